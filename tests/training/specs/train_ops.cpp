// Every differentiable op of the API on one path to the loss, so the structure tests see each
// adjoint rule emit ops of the right shapes.
#include <nndna/nndna.hpp>

using namespace nndna;

constexpr int B = 2, T = 4, D = 8, H = 2, V = 11;

struct AllOps : Module {
  Embedding tok{"tok", V, D};
  LayerNorm ln{"ln", D};
  RMSNorm rms{"rms", D};
  Linear qkv{"qkv", D, 3 * D};
  Linear out{"out", D, D};
  Tensor scale = param("scale", {D});
  Tensor table = param("table", {T, D});
  Conv2d conv{"conv", 2, 2, 3, {.padding = 1}};
};

Tensor unaryChain(Tensor x) {
  Tensor y = add(sqrt(add(square(x), 1.0)), rsqrt(add(abs(x), 1.0)));
  y = add(y, log(add(exp(neg(square(x))), 1.0)));
  y = add(y, mul(sin(x), cos(x)));
  y = add(y, erf(x));
  y = add(y, tanh(x));
  y = add(y, sigmoid(x));
  y = add(y, gelu(x));
  y = add(y, gelu(x, {.approximate = GeluApproximate::tanh}));
  y = add(y, silu(x));
  y = add(y, leakyRelu(x, 0.1));
  y = add(y, softplus(x));
  y = add(y, clamp(x, -0.5, 0.5));
  y = add(y, relu(x));
  y = add(y, div(1.0, add(square(x), 1.0)));
  y = add(y, sub(1.0, div(x, 2.0)));
  y = add(y, max(x, 0.1));
  y = add(y, min(x, y));
  return y;
}

Tensor lossFn(AllOps& m, const Inputs& in) {
  Tensor x = m.tok(in["tokens"]);                      // [B, T, D]
  x = add(x, m.table);                                  // broadcast add
  x = m.ln(x);
  x = mul(m.rms(x), m.scale);
  Tensor qkv = m.qkv(x);
  std::vector<Tensor> parts = split(qkv, {D, D, D}, -1);
  Tensor q = splitHeads(parts[0], H);
  Tensor k = splitHeads(parts[1], H);
  Tensor v = splitHeads(parts[2], H);
  auto [rq, rk] = rope(q, k);
  Tensor scores = div(matmul(rq, swapAxes(rk, -1, -2)), 2.0);
  Tensor att = matmul(softmaxCausal(scores), v);
  Tensor s2 = softmax(whereCausal(scores, -1e9), -1);
  att = add(att, matmul(s2, v));
  x = add(x, m.out(mergeHeads(att)));
  x = unaryChain(x);
  x = where(greater(x, 0.0), x, mul(x, 0.5));
  x = concat({x, narrow(x, -1, 0, 2)}, -1);             // [B, T, D + 2]
  x = narrow(x, -1, 1, D);
  Tensor st = stack({x, mul(x, 2.0)}, 1);               // [B, 2, T, D]
  Tensor img = nearestUpsample2d(st, 2);                // [B, 2, 2T, 2D]
  img = maxPool2d(m.conv(img), 2);                      // [B, 2, T, D]
  x = add(x, sum(img, 1));
  x = dropout(x, 0.1);
  Tensor logits = permute(x, {0, 1, 2});
  Tensor ce = crossEntropy(logits, in["targets"]);
  Tensor nll = nllLoss(logSoftmax(logits), in["targets"], {.reduction = Reduction::sum});
  Tensor picked = takeAlongAxis(logits, in["index"], -1);
  Tensor mx = max(logits, stopGradient(mean(logits, -1, {.keepDims = true})));
  return add(add(ce, mul(nll, 0.01)), add(mean(picked), mean(mx)));
}

NNDNA_SPEC(AllOps) {
  return {.label = "all ops", .loss = lossFn,
          .inputs = {{"tokens", {B, T}, i32}, {"targets", {B, T}, i32},
                     {"index", {B, T, 1}, i32}},
          .optimizer = SGD{.lr = 0.01, .momentum = 0.9, .nesterov = true}};
}
