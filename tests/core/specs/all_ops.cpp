// Test spec: every op of the model API, each on a tensor that depends on a parameter, all summed
// into the loss, so that its training step holds every backward kind too (and the inference
// graph BatchNorm2d's running-statistics form). tests/core/op_table_test.cpp checks that the
// graphs cover every kind of the op table; the fuzz corpus starts from its IR.
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

constexpr int B = 2, T = 4, D = 8, H = 2, V = 10, C = 3, S = 8, K = 5;

struct AllOps : Module {
  Linear in{"in", D, D};
  Embedding emb{"emb", V, D};
  LayerNorm ln{"ln", D};
  RMSNorm rms{"rms", D};
  Conv2d conv{"conv", C, C, 3, {.padding = 1}};
  Conv1d conv1{"conv1", D, D, 3, {.padding = 2, .groups = 2, .dilation = 2}};
  Dropout drop{"drop", 0.1};
  BatchNorm2d bn{"bn", C};
  BatchNorm2d frozenBn{"frozen_bn", C, {.frozen = true}};
  ConvTranspose2d up{"up", C, 4, 2, {.stride = 2}};
  GroupNorm gn{"gn", 2, 4};
  Linear head{"head", D, K};
  Tensor gain = param("gain", {D});
  Tensor imageBias = param("image_bias", {C});
};

Tensor positive(Tensor t) { return add(square(t), 1.0); }

Tensor lossFn(AllOps& m, const Inputs& in) {
  Tensor h = m.in(in["x"]);  // [B, T, D]
  Tensor total = mean(h);
  auto use = [&](Tensor t) { total = add(total, mean(t)); };
  // Elementwise, unary and binary, tensor and number operands, comparisons, where.
  for (Tensor t : {sqrt(positive(h)), rsqrt(positive(h)), log(positive(h)), exp(h), neg(h), abs(h),
                   sin(h), cos(h), erf(h), relu(h), tanh(h), sigmoid(h), gelu(h),
                   gelu(h, {.approximate = GeluApproximate::tanh}), silu(h), leakyRelu(h, 0.1),
                   softplus(h), clamp(h, -1.0, 1.0), pow(positive(h), 1.5)}) {
    use(t);
  }
  Tensor shifted = add(h, 0.5);
  for (Tensor t : {add(h, m.gain), sub(h, shifted), mul(h, shifted), div(h, positive(h)),
                   min(h, shifted), max(h, shifted), sub(1.0, h), div(1.0, positive(h)), mul(h, 2.0),
                   min(h, 0.5), max(h, 0.5), where(less(h, 0.0), h, neg(h)),
                   mul(h, greater(h, shifted)), mul(h, less(h, 0.25))}) {
    use(t);
  }
  // Reductions, argmax/argmin through oneHot.
  use(mean(h, -1, {.keepDims = true}));
  use(sum(h, 1));
  use(mean(h, {0, 2}, {.keepDims = true}));
  use(sum(h, {-2, -1}));
  use(mul(h, oneHot(argmax(h, -1), D)));
  use(mul(h, oneHot(argmin(h, -1), D)));
  use(where(oneHot(argmax(h, 1), T, DType::boolean), swapAxes(h, 1, 2), neg(swapAxes(h, 1, 2))));
  // Scans: the running sum; the top k, its values and (through an i32 oneHot) its indices.
  use(cumsum(h, 1));
  const TopK top = topk(h, 3);
  use(top.values);
  use(mul(h, less(sum(oneHot(top.indices, D, i32), 2), 1)));  // h where not among the top 3
  // Layout and matmul.
  use(reshape(h, {B * T, D}));
  use(permute(h, {0, 2, 1}));
  Tensor scores = matmul(h, swapAxes(h, -1, -2));  // [B, T, T]
  use(softmaxCausal(scores));
  // Broadcasting: a view, a size-1 batch axis in matmul, repeated key/value heads.
  use(concat({expand(reshape(m.gain, {1, 1, D}), {B, -1, -1}), h}, 1));
  use(matmul(reshape(h, {B, 1, T, D}), broadcastTo(reshape(m.gain, {D, 1}), {2, D, 1})));
  use(repeatKv(splitHeads(h, H), 2));
  use(softmax(whereCausal(scores)));  // the masked -inf become 0
  // Indexing.
  use(mul(h, m.emb(in["tokens"])));
  use(mul(h, embedding(m.emb.weight, in["tokens"], -1)));  // the last row the padding one
  use(takeAlongAxis(h, in["positions"], -1));
  // Slicing and joining.
  use(narrow(h, -1, 0, 4));
  use(pad(h, {1, 2, -1, 1}, 0.5));  // the last axis padded, the time axis cropped in front
  use(concat({h, shifted}, -1));
  use(stack({h, shifted}, 0));
  for (Tensor piece : split(h, {3, 5}, -1)) use(piece);
  // Fused ML ops.
  use(softmax(h));
  use(logSoftmax(h, 1));
  use(mul(h, oneHot(categorical(h), D)));
  auto [q, k] = rope(splitHeads(h, H), splitHeads(shifted, H));
  use(mergeHeads(q));
  use(k);
  // Convolution, pooling, upsampling, batch norm, on an image that depends on a parameter.
  Tensor image = add(in["image"], reshape(m.imageBias, {C, 1, 1}));  // [B, C, S, S]
  use(nearestUpsample2d(maxPool2d(m.bn(m.conv(image)), 2), 2));
  use(bilinearUpsample2d(image, 2, {.alignCorners = true}));
  use(pixelShuffle(pixelUnshuffle(image, 2), 2));  // [B, 4C, S/2, S/2] and back
  use(avgPool2d(maxPool2d(image, 3, {.stride = 2, .ceilMode = true}), 2, {.ceilMode = true}));  // S 8 -> 4 -> 2
  use(m.conv1(swapAxes(h, 1, 2)));  // [B, D, T] -> [B, D, T]
  // Transposed convolution, group norm (affine and not), average pooling, a frozen batch norm
  // (running statistics inside the training loss).
  Tensor up = m.gn(m.up(m.frozenBn(image)));  // [B, 4, 2S, 2S]
  use(adaptiveAvgPool2d(avgPool2d(up, 3, {.stride = 2, .padding = 1}), {1, 1}));
  use(groupNorm(up, 4));
  use(m.drop(h));
  // Stochastic and gradient control.
  use(dropout(h, 0.1));
  use(mul(h, stopGradient(h)));
  use(capture("hidden", h));
  // Constants.
  use(add(h, zeros({B, T, D})));
  use(mul(h, ones({B, T, D})));
  use(add(h, arange(D, f32)));
  use(add(h, arange(-1, 1, 0.25, f32)));  // D = 8 values
  use(add(h, randn({B, T, D})));
  // Norms and losses.
  use(m.ln(h));
  use(m.rms(h));
  Tensor logits = m.head(h);  // [B, T, K]
  use(crossEntropy(logits, in["labels"]));
  use(crossEntropy(logits, in["labels"], {.reduction = Reduction::none}));
  use(nllLoss(logSoftmax(logits), in["labels"], {.reduction = Reduction::sum}));
  return total;
}

// Inference: BatchNorm2d with its running statistics.
Tensor predictFn(AllOps& m, const Inputs& in) {
  return mean(m.drop(m.bn(m.conv(in["image"]))), 1);  // Dropout: the identity here
}

}  // namespace

NNDNA_SPEC(AllOps) {
  return {.label = "every op",
          .loss = lossFn,
          .inputs = {{"x", {B, T, D}},
                     {"tokens", {B, T}, i32},
                     {"positions", {B, T, D}, i32},
                     {"labels", {B, T}, i32},
                     {"image", {B, C, S, S}}},
          .optimizer = Adam{.lr = 1e-3},
          .predict = predictFn,
          .predictInputs = {{"image", {B, C, S, S}}}};
}
