// Golden diagrams of the remaining examples (golden_test.cpp has the seed's default model, mlp_sin,
// deep_mlp and GPT-2 small). Every expected value is derived by hand from the spec's source in
// examples/ (the derivation is next to it), never copied from a run.
//
// How the derivations read a spec (docs/diagram.md, the seed's code.tsx):
// - A box is a run of consecutive forward ops issued by one source line; a user-function call
//   made from line L of its caller is a cluster "L" around the callee's boxes. Two calls on one
//   line (`decode(m, sampleLatent(...))`) share that line's cluster; a loop whose body is one
//   line with a call (`for (...) h = block(layer, h);`) puts every iteration in that line's
//   cluster, and the loop is found among the cluster's children.
// - A box's incoming edges are the drawn tensors (data inputs and the *last* tensor of each box)
//   its ops read; parameters are not drawn.
// - Keys: a box's frame chain from the first function both forwards call; boxes with equal keys
//   are one box of the merged diagram. lossFn's / predictFn's call of the shared forward is one
//   paired cluster.
// - FLOPs: matmul 2·|out|·K; conv 2·|out|·(C/G)·kH·kW; backward: each matmul input that needs a
//   gradient costs one matmul of the forward's FLOPs (dA = dY·Bᵀ, dB = Aᵀ·dY), each conv input
//   likewise (conv2d_input_grad, conv2d_weight_grad); an input needs a gradient when it depends
//   on a parameter (data inputs do not).
// - Activations: elements of every non-leaf, non-view (reshape, permute) forward op × 4 bytes.
// - Inference kernels: every op of the inference graph except leaves and reshape, permute,
//   split_heads (views). Training-step kernels (derived for every example) count the forward
//   ops the loss needs, the backward src/grad emits, and the optimizer's (src/optim), the same
//   views and broadcast_to excepted. Backward, walking the forward in reverse: the loss's seed
//   `ones` 1; each op's adjoint rule for the inputs that depend on a parameter (an add or sub of
//   equal shapes passes dy on with no op; a broadcast operand, such as a bias, gets one
//   sum_to_shape; a matmul one matmul per such input, the transposes and flattening reshapes
//   being views; an activation one *_grad); one `add` per extra gradient of a tensor read by
//   several ops. Optimizer per parameter tensor: Adam/AdamW 3, SGD 1, with momentum 2, Nesterov
//   4; BatchNorm running statistics 2 per layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace nndna::diagram {
namespace {

using testing::boxesOn;
using testing::boxWithLabel;
using testing::loopLabels;
using testing::metric;
using testing::traced;
using testing::userClusterLabels;
using testing::value;

const std::vector<Side> kBoth{Side::train, Side::infer};
const std::vector<Side> kTrain{Side::train};
const std::vector<Side> kInfer{Side::infer};

// ---------------------------------------------------------------------------------------------
// cnn_digits: B=256, 28×28×1 images, conv 3×3 pad 1 (no bias) → BN → ReLU → pool 2, twice
// (32, 64 channels), fc1 3136→128, dropout (training only), fc2 128→10.
TEST(DiagramGoldenExamples, CnnDigits) {
  const Diagram d = buildDiagram(traced("cnn_digits"));
  // classify(): line 32 (conv1, bn1, relu, pool: one box), 33 (likewise), 34 (reshape, fc1, relu),
  // 35 (dropout, only when train), 36 (fc2); lossFn line 40's crossEntropy after the call.
  // Shared: 32, 33, 34, 36; training-only: 35, crossEntropy. 4 + 2 = 6 boxes; inputs images
  // (both sides) and labels.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 6u);
  EXPECT_EQ(d.nodes.size(), 8u);
  EXPECT_EQ(boxesOn(d, kBoth), 4u);
  EXPECT_EQ(boxesOn(d, kTrain), 2u);
  EXPECT_EQ(boxesOn(d, kInfer), 0u);
  // Only the wrapper pair (lossFn line 40 / predictFn line 43 calling classify); no loop.
  EXPECT_EQ(d.clusters.size(), 1u);
  EXPECT_TRUE(loopLabels(d).empty());
  // Training: images→32, 32→33, 33→34, 34→35, 35→36, 36→CE, labels→CE (7). Inference adds
  // 34→36 (no dropout between them); its other three are shared. 8.
  EXPECT_EQ(d.edges.size(), 8u);
  EXPECT_EQ(d.carriedEdgeCount(), 0u);
  // conv1 32·1·3·3 = 288, bn1 2·32 = 64, conv2 64·32·3·3 = 18,432, bn2 2·64 = 128 (running
  // statistics are state, not parameters), fc1 3136·128+128 = 401,536, fc2 128·10+10 = 1,290.
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 288 + 64 + 18'432 + 128 + 401'536 + 1'290);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 421'738);
  // Forward: conv1 2·(256·32·28·28)·(1·3·3) = 115,605,504; conv2 2·(256·64·14·14)·(32·3·3) =
  // 1,849,688,064; fc1 2·256·3136·128 = 205,520,896; fc2 2·256·128·10 = 655,360.
  const std::int64_t conv1 = 2LL * (256 * 32 * 28 * 28) * (1 * 3 * 3);
  const std::int64_t conv2 = 2LL * (256 * 64 * 14 * 14) * (32 * 3 * 3);
  const std::int64_t fc1 = 2LL * 256 * 3136 * 128;
  const std::int64_t fc2 = 2LL * 256 * 128 * 10;
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), conv1 + conv2 + fc1 + fc2);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 2'171'469'824);
  // Step: forward, then dW and dX of fc2, fc1 and conv2 (their inputs depend on parameters) and
  // conv1's weight gradient only (its input is the images).
  EXPECT_EQ(value(d.metrics, Side::train, "flops"),
            (conv1 + conv2 + fc1 + fc2) + 2 * fc2 + 2 * fc1 + 2 * conv2 + conv1);
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), 6'398'803'968);
  // Inference activations: conv, bn, relu at [256,32,28,28] (3·6,422,528), pool [256,32,14,14]
  // 1,605,632; conv, bn, relu at [256,64,14,14] (3·3,211,264), pool [256,64,7,7] 802,816; the
  // reshape is a view; fc1 matmul, add, relu [256,128] (3·32,768); fc2 matmul, add [256,10]
  // (2·2,560). 31,413,248 elements.
  const std::int64_t inferActs =
      3 * 6'422'528 + 1'605'632 + 3 * 3'211'264 + 802'816 + 3 * 32'768 + 2 * 2'560;
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"), inferActs * 4);
  // Training adds dropout [256,128] and the scalar cross-entropy.
  EXPECT_EQ(value(d.metrics, Side::train, "activations"), (inferActs + 32'768 + 1) * 4);
  // Inference kernels: 2·(conv, bn, relu, pool) + fc1 matmul, add, relu + fc2 matmul, add = 13.
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 13);
  // Training-step kernels (src/grad, src/optim). Forward: 2·4 + 3 + dropout + 2 + cross-entropy
  // = 15. Backward: seed ones 1, cross_entropy_grad 1, fc2 bias sum_to_shape 1 and dX, dW 2,
  // dropout (the same mask) 1, relu_grad 1, fc1 bias 1 and dX, dW 2 (the reshape's gradient is a
  // view), then per conv block pool grad 1, relu_grad 1, batch-norm input, weight and bias
  // (sum_to_shape; its reshape is a view) 3, conv2 input and weight 2 / conv1 weight only 1:
  // 1 + 1 + 3 + 1 + 1 + 3 + (1 + 1 + 3 + 2) + (1 + 1 + 3 + 1) = 23. SGD with Nesterov momentum
  // per parameter tensor: momentum, ·momentum, add, update = 4 × 10 tensors. Running mean and
  // variance of both batch norms: 4.
  EXPECT_EQ(value(d.metrics, Side::train, "kernels"), 15 + 23 + 4 * 10 + 4);
  // The dropout box is training-only and sits in the wrapper pair with the shared boxes.
  const Node& drop = boxWithLabel(d, "dropout(h, DROPOUT)");
  EXPECT_EQ(drop.sides, kTrain);
  ASSERT_GE(drop.cluster, 0);
  const Cluster& pair = d.clusters[static_cast<std::size_t>(drop.cluster)];
  ASSERT_TRUE(pair.trainLabel && pair.inferLabel);
  EXPECT_EQ(*pair.inferLabel,
            "Tensor predictFn(DigitCNN& m, const Inputs& in) { return classify(m, in[\"images\"], "
            "false); }");
}

// ---------------------------------------------------------------------------------------------
// rnn_unrolled: B=32, T=16 steps of IN=8 features, HIDDEN=64; h0 = zeros, h = tanh(ih(x_t) +
// hh(h)) per step, a shared head on the stacked states.
TEST(DiagramGoldenExamples, RnnUnrolledFoldsItsSixteenSteps) {
  const Diagram d = buildDiagram(traced("rnn_unrolled"));
  // forecast(): line 29 (zeros), per step line 32 (narrow, reshape) and line 33's call of step()
  // (its line 25: one box), line 36 (stack, head). The cluster of forecast's call holds
  // [29, (32, call 33)×16, 36]: period 2, 16 iterations, each 2 boxes: folds to ×16.
  // Shared: 29, 32, 25, 36; training-only: lossFn line 40's mean(square(sub)). 5 boxes;
  // inputs series (both) and next.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 5u);
  EXPECT_EQ(d.nodes.size(), 7u);
  EXPECT_EQ(boxesOn(d, kBoth), 4u);
  EXPECT_EQ(boxesOn(d, kTrain), 1u);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×16"});
  // The wrapper pair (lossFn line 40 / predictFn line 43 calling forecast), the ×16 loop, and
  // line 33's call of step() inside it; laid out with the longer label of the pair. A cluster's
  // label is its call line as written (shape comments are stripped from boxes only).
  EXPECT_EQ(d.clusters.size(), 3u);
  EXPECT_EQ(
      userClusterLabels(d),
      (std::vector<std::string>{
          "Tensor predictFn(ElmanRNN& m, const Inputs& in) { return forecast(m, in[\"series\"]); }",
          "h = step(m, xt, h);                                  // [B, HIDDEN]"}));
  // series→32, 29→25 (the zero state feeds step 0), 32→25, 25→25 (carried: h feeds the next
  // step), 25→36 (every step's state is stacked: one edge after folding), 36→loss,
  // next→loss. Inference draws the first five, all shared. 7 edges, 1 carried.
  EXPECT_EQ(d.edges.size(), 7u);
  EXPECT_EQ(d.carriedEdgeCount(), 1u);
  // ih 8·64+64 = 576, hh 64·64 = 4,096 (no bias), head 64·8+8 = 520.
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 576 + 4'096 + 520);
  // Forward: 16 × (ih 2·32·8·64 + hh 2·32·64·64) + head 2·(32·16·8)·64 = 4,718,592 + 524,288.
  const std::int64_t ih = 2LL * 32 * 8 * 64, hh = 2LL * 32 * 64 * 64;
  const std::int64_t head = 2LL * (32 * 16 * 8) * 64;
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 16 * (ih + hh) + head);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 5'242'880);
  // Step: forward + head dW and dX (the stacked states depend on parameters) + per step ih dW
  // (x_t is data) and hh dW, + hh dX for steps 1..15 (step 0 reads the zero state, no
  // parameter behind it): 2·524,288 + 16·(32,768 + 262,144) + 15·262,144 = 9,699,328.
  EXPECT_EQ(value(d.metrics, Side::train, "flops"),
            (16 * (ih + hh) + head) + 2 * head + 16 * (ih + hh) + 15 * hh);
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), 14'942'208);
  // Inference activations: zeros [32,64] 2,048; per step narrow [32,1,8] 256 (reshape is a
  // view), ih matmul, add, hh matmul, add, tanh at [32,64] (5·2,048); stack [32,16,64] 32,768;
  // head matmul, add [32,16,8] (2·4,096). 2,048 + 16·10,496 + 32,768 + 8,192 = 210,944.
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"),
            (2'048 + 16 * (256 + 5 * 2'048) + 32'768 + 2 * 4'096) * 4);
  // Inference kernels: zeros + 16·(narrow, 2 matmuls, 2 adds, tanh) + stack, matmul, add = 100.
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 1 + 16 * 6 + 3);
  // Training-step kernels. Forward: the 100 above + sub, square, mean = 103. Backward: seed ones
  // 1, mean ×1/n 1, square 2, sub 0 (same shapes), head bias sum_to_shape 1, head dX and dW 2
  // (dW's reshapes and transpose are views), stack: one narrow per step 16 (its reshape is a
  // view); per step tanh_grad, ih bias sum_to_shape, ih dW, hh dW 4·16, hh dX for steps 1..15
  // 15; sums of gradients that arrive twice or more: each h_t for t < 15 (from the stack and from
  // step t+1) 15, and ih.weight, ih.bias, hh.weight (one contribution per step) 3·15. Adam: 3 × 5
  // parameter tensors.
  EXPECT_EQ(value(d.metrics, Side::train, "kernels"),
            103 + (1 + 1 + 2 + 1 + 2 + 16 + 4 * 16 + 15 + 15 + 3 * 15) + 3 * 5);
  // The folded step box carries every step's parameters and FLOPs.
  const Node& step = boxWithLabel(d, "return tanh(add(m.ih(xt), m.hh(h)));");
  ASSERT_TRUE(step.cost.infer);
  EXPECT_EQ(step.cost.infer->params, 576 + 4'096);
  EXPECT_EQ(step.cost.infer->flops, 16 * (ih + hh));
}

// ---------------------------------------------------------------------------------------------
// char_transformer: B=64, T=256, V=96, D=192, H=6 heads of DH=32, F=768, 4 blocks; RMSNorm,
// bias-free projections, RoPE, tied embeddings, dropout while training.
TEST(DiagramGoldenExamples, CharTransformerFoldsFourBlocks) {
  const Diagram d = buildDiagram(traced("char_transformer"));
  // logitsOf(): line 64 (embedding); line 65's call cluster holds the 4 blocks' children; line 66
  // (norm_f, swapAxes, matmul). block(): line 58 gives two boxes (norm1 before the attention
  // call, the residual add after it) around the attention cluster, line 59 likewise around the
  // mlp cluster. attention(): lines 45 (q, k, rope), 46 (v), 47 (scores), 48 (softmax, ·v,
  // proj), 49 (dropout: training only). mlp(): line 53, line 54 (dropout: training only).
  // The loop: period 6 (norm1, attention call, add, norm2, mlp call, add), 4 iterations of 11
  // boxes (training) / 9 (inference): ×4 on both sides.
  // Shared: 64, 2 + 4 + 2 + 1 (block, attention 45–48, mlp 53), 66 = 11. Training-only: 49, 54,
  // lossFn line 71 (crossEntropy) = 3. Inference-only: predictFn line 77 (narrow, categorical).
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 15u);
  EXPECT_EQ(d.nodes.size(), 17u);  // + chars (both sides), targets
  EXPECT_EQ(boxesOn(d, kBoth), 11u);
  EXPECT_EQ(boxesOn(d, kTrain), 3u);
  EXPECT_EQ(boxesOn(d, kInfer), 1u);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×4"});
  // The wrapper pair, line 65's call cluster, the loop, the attention and mlp call clusters.
  EXPECT_EQ(d.clusters.size(), 5u);
  // Training (20): chars→64, 64→norm1, 64→add1 (block 0's residual), norm1→45, norm1→46,
  // 45→47 (the last rope output; the other is inside the box), 47→48, 46→48, 48→49, 49→add1,
  // add1→norm2, norm2→53, 53→54, add1→add2, 54→add2, add2→norm1 and add2→add1 (carried: the
  // residual stream into the next block), add2→66, 66→71, targets→71.
  // Inference adds 48→add1, 53→add2 (no dropout) and 66→77: 23 edges, 2 carried.
  EXPECT_EQ(d.edges.size(), 23u);
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
  // tok_emb V·D = 18,432; per block: 2 RMSNorm weights 2·192, q, k, v, proj 4·192², fc and fc_out
  // 2·192·768 = 442,752; norm_f 192.
  constexpr std::int64_t B = 64, T = 256, V = 96, D = 192, H = 6, DH = 32, F = 768;
  EXPECT_EQ(value(d.metrics, Side::train, "params"),
            V * D + 4 * (2 * D + 4 * D * D + 2 * D * F) + D);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 1'789'632);
  // Forward per block: q, k, v, proj 4·2·(B·T)·D·D; scores and attention·v, each
  // 2·(B·H·T·T)·DH; fc and fc_out 2·2·(B·T)·D·F. Logits 2·(B·T)·D·V.
  const std::int64_t perBlock =
      4 * 2 * (B * T) * D * D + 2 * (2 * (B * H * T * T) * DH) + 2 * 2 * (B * T) * D * F;
  const std::int64_t forward = 4 * perBlock + 2 * (B * T) * D * V;
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), forward);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 71'470'940'160);
  // Step: every matmul input depends on a parameter (the embedding feeds block 0; the logits'
  // right side is tok_emb itself), so each matmul adds two of its own cost: 3 × forward.
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), 3 * forward);
  // Inference activations, in elements (BTD = B·T·D, BHTT = B·H·T·T, BTF = B·T·F): embedding
  // BTD; per block norm1 BTD, line 45 k, q, rope, rope 4·BTD (the two split_heads are views),
  // line 46 BTD (v's split_heads is a view), line 47 matmul and mul 2·BHTT (swapAxes is a view),
  // line 48 softmax BHTT, ·v, merge_heads, proj 3·BTD, add, norm2 2·BTD, mlp fc and gelu 2·BTF,
  // fc_out BTD, add BTD (13·BTD + 3·BHTT + 2·BTF); norm_f BTD, logits B·T·V; narrow [64,1,96]
  // 6,144; categorical [64,1] 64.
  const std::int64_t BTD = B * T * D, BHTT = B * H * T * T, BTF = B * T * F;
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"),
            (BTD + 4 * (13 * BTD + 3 * BHTT + 2 * BTF) + BTD + B * T * V + 64 * 96 + 64) * 4);
  // Inference kernels: embedding; per block norm1, 2 matmuls and 2 ropes (line 45; split_heads
  // is a view), 1 matmul (46), matmul and mul (47), softmax, matmul, merge_heads, proj (48),
  // add, norm2, fc, gelu, fc_out, add = 18; norm_f and the logits matmul; narrow, categorical.
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 1 + 4 * 18 + 2 + 2);
  // Training-step kernels (src/grad, src/optim). Forward: embedding 1; per block the 18 above
  // plus the two dropouts = 20; norm_f, logits matmul 2; cross-entropy 1 (its reshapes are
  // views): 1 + 4·20 + 2 + 1 = 84.
  // Backward: seed ones 1, cross_entropy_grad 1; logits matmul dX and dW 2 (dW flattens [B,T,D]
  // by reshapes; the swapAxes of tok_emb goes back by a permute, a view); norm_f input and weight
  // grads 2 (RMSNorm has no bias). Per block, from its output: the residual adds pass dy on
  // (same shapes, no op); mlp: dropout 1, fc_out dX, dW 2, gelu_grad 1, fc dX, dW 2, norm2
  // input and weight 2, the sum of the two gradients of x after the attention add (norm2 and
  // the residual) 1 = 9; attention: dropout 1, proj dX, dW 2 (merge_heads' adjoint split_heads
  // is a view), softmax·v 2, softmax_grad 1, the 1/√DH scale 1, q·kᵀ 2 (kᵀ's permute is a
  // view), rope_grad for q and k 2, merge_heads for the three split_heads 3, q, k, v dX and dW
  // 6, the sum of norm1's output's three gradients 2, norm1 input and weight 2, the sum of the
  // block input's two gradients (norm1 and the residual) 1 = 25; 34 per block. Then
  // embedding_grad 1 and the sum of tok_emb's two gradients (embedding and logits) 1:
  // 1 + 1 + 2 + 2 + 4·34 + 2 = 144. AdamW: 3 × 34 parameter tensors (tok_emb, per block norm1,
  // q, k, v, proj, norm2, fc, fc_out, and norm_f) = 102.
  EXPECT_EQ(value(d.metrics, Side::train, "kernels"),
            (1 + 4 * 20 + 2 + 1) + (1 + 1 + 2 + 2 + 4 * (9 + 25) + 2) + 3 * (1 + 4 * 8 + 1));
  // The dropout boxes are training-only boxes inside the folded attention and mlp clusters.
  const Node& attnDrop = boxWithLabel(d, "return train ? dropout(y, DROPOUT) : y;", 49);
  EXPECT_EQ(attnDrop.sides, kTrain);
  ASSERT_GE(attnDrop.cluster, 0);
  const Cluster& attn = d.clusters[static_cast<std::size_t>(attnDrop.cluster)];
  EXPECT_EQ(attn.kind, Cluster::Kind::user);
  EXPECT_EQ(attn.label, "x = add(x, attention(b, b.norm1(x), train));");
  ASSERT_GE(attn.parent, 0);
  const Cluster& loop = d.clusters[static_cast<std::size_t>(attn.parent)];
  EXPECT_EQ(loop.label, "×4");
  // The folded loop costs all four blocks: their parameters (2·D + 4·D² + 2·D·F each) and the
  // forward FLOPs of every iteration, on each side (dropout has none).
  ASSERT_TRUE(loop.cost.train && loop.cost.infer);
  EXPECT_EQ(loop.cost.infer->params, 4 * (2 * D + 4 * D * D + 2 * D * F));
  EXPECT_EQ(loop.cost.infer->flops, 4 * perBlock);
  EXPECT_EQ(loop.cost.train->flops, 4 * perBlock);
}

// ---------------------------------------------------------------------------------------------
// vae: B=128, 784 pixels, encoder 784→400 (ReLU) → mu, log_var (400→20 each), reparameterised
// sample, decoder 20→400 (ReLU) → 784; inference decodes prior samples z.
TEST(DiagramGoldenExamples, VaeSharesOnlyTheDecoder) {
  const Diagram d = buildDiagram(traced("vae"));
  // Training: lossFn line 42's call of encode (boxes: line 27 enc+relu, line 28 mu and log_var),
  // line 43's calls of sampleLatent and decode (both calls on one line: one cluster, boxes line
  // 33 randn, line 34 mul, exp, mul, add, decode's line 38), then lossFn lines 45, 47, 48.
  // Inference: predictFn line 52's call of decode (line 38), then its sigmoid.
  // decode is the only function both sides call: shared decode@38; training-only 27, 28, 33,
  // 34, 45, 47, 48; inference-only the sigmoid. 1 + 7 + 1 = 9 boxes; inputs images and z.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 9u);
  EXPECT_EQ(d.nodes.size(), 11u);
  EXPECT_EQ(boxesOn(d, kBoth), 1u);
  EXPECT_EQ(boxesOn(d, kTrain), 7u);
  EXPECT_EQ(boxesOn(d, kInfer), 1u);
  // The encode cluster (training only) and the pair of line 43 / line 52 around decode.
  EXPECT_EQ(d.clusters.size(), 2u);
  EXPECT_TRUE(loopLabels(d).empty());
  const Node& dec = boxWithLabel(d, "return m.dec2(relu(m.dec1(z)));");
  ASSERT_GE(dec.cluster, 0);
  const Cluster& pair = d.clusters[static_cast<std::size_t>(dec.cluster)];
  ASSERT_TRUE(pair.trainLabel && pair.inferLabel);
  EXPECT_EQ(*pair.trainLabel, "Tensor logits = decode(m, sampleLatent(mu, logVar));");
  // The `.dot` file is the training view too, as the standalone SVG: the pair shows the training
  // label, where the page's DOT is laid out with the longer of the two.
  EXPECT_EQ(pair.label, *pair.inferLabel);
  const std::string dot = standaloneDot(d);
  EXPECT_NE(dot.find("label=\"Tensor logits = decode(m, sampleLatent(mu, logVar));\""), std::string::npos);
  EXPECT_EQ(dot.find("label=\"" + *pair.inferLabel), std::string::npos);
  // Nothing else changed: the page's label put back gives the page's DOT (these labels need only
  // their quotes escaped).
  auto quoted = [](std::string s) {
    for (std::size_t at = s.find('"'); at != std::string::npos; at = s.find('"', at + 2)) s.insert(at, "\\");
    return "label=\"" + s + "\"";
  };
  std::string back = dot;
  back.replace(back.find(quoted(*pair.trainLabel)), quoted(*pair.trainLabel).size(), quoted(pair.label));
  EXPECT_EQ(back, d.dot);
  // Training: images→27, 27→28, 28→34 (log_var; mu is inside box 28, not drawn), 33→34, 34→38,
  // 38→45, images→45, 28→47, 45→48, 47→48 (10). Inference: z→38, 38→sigmoid (2). 12.
  EXPECT_EQ(d.edges.size(), 12u);
  EXPECT_EQ(d.carriedEdgeCount(), 0u);
  // enc 784·400+400 = 314,000; mu and log_var 400·20+20 = 8,020 each; dec1 20·400+400 = 8,400;
  // dec2 400·784+784 = 314,384.
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 314'000 + 2 * 8'020 + 8'400 + 314'384);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 652'824);
  const std::int64_t enc = 2LL * 128 * 784 * 400, head = 2LL * 128 * 400 * 20;
  const std::int64_t dec1 = 2LL * 128 * 20 * 400, dec2 = 2LL * 128 * 400 * 784;
  // Inference: the decoder only.
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), dec1 + dec2);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 82'329'600);
  // Step: forward enc + mu + log_var + dec1 + dec2; backward dW and dX of dec2, dec1, mu and
  // log_var (their inputs depend on parameters), enc's dW only (its input is the images).
  EXPECT_EQ(value(d.metrics, Side::train, "flops"),
            (enc + 2 * head + dec1 + dec2) + 2 * dec2 + 2 * dec1 + 2 * 2 * head + enc);
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), 419'840'000);
  // Inference activations: dec1 matmul, add, relu [128,400] (3·51,200), dec2 matmul, add and
  // the sigmoid [128,784] (3·100,352).
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"), (3 * 51'200 + 3 * 100'352) * 4);
  // Training activations: enc 3·51,200; line 28 four ops at [128,20] (4·2,560); randn 2,560;
  // line 34 four ops (4·2,560); decode 3·51,200 + 2·100,352; line 45 softplus, mul, sub
  // (3·100,352) and the sum (1); line 47 add, square, sub, exp, sub (5·2,560), sum, mul (2);
  // line 48 add, div (2).
  EXPECT_EQ(value(d.metrics, Side::train, "activations"),
            (3 * 51'200 + 4 * 2'560 + 2'560 + 4 * 2'560 + 3 * 51'200 + 2 * 100'352 + 3 * 100'352 +
             1 + 5 * 2'560 + 2 + 2) *
                4);
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 6);  // 2·(matmul, add), relu, sigmoid
  // Training-step kernels (src/grad, src/optim). Forward: line 27 3; line 28 4; randn 1; line 34
  // mul, exp, mul, add 4; decode 5; line 45 softplus, mul, sub, sum 4; line 47 add, square, sub,
  // exp, sub, sum, mul 7; line 48 add, div 2: 30.
  // Backward, from the loss: seed ones 1; ÷B (×1/B) 1; add(recon, kl) passes dy on (rank 0);
  // kl's ·−0.5 1; sum: a broadcast (view); sub(…, exp(lv)) neg 1, exp: ·y 1; sub(…, square(mu))
  // neg 1, square: x·2 and ·dy 2; add(lv, 1) passes dy on; recon's sum a view, sub neg 1,
  // mul(x, logits) ·x 1 (the images need no gradient), softplus_grad 1, the sum of the logits'
  // two gradients 1; dec2 bias sum_to_shape 1, dX and dW 2, relu_grad 1, dec1 bias 1, dX and dW
  // 2; add(mu, ·) passes dy on; mul(exp(·), eps) ·eps 1 (eps is randn: no gradient), exp ·y 1,
  // lv·0.5 ×0.5 1; sums: lv has three gradients (the sample, the KL's add and exp) 2, mu two
  // (the sample, the square) 1; mu and log_var bias 1 and dX, dW 2 each (6); the sum of h's two
  // gradients 1, relu_grad 1, enc bias 1 and dW 1 (the images need no gradient) = 35.
  // Adam: 3 × 10 parameter tensors.
  EXPECT_EQ(value(d.metrics, Side::train, "kernels"),
            (3 + 4 + 1 + 4 + 5 + 4 + 7 + 2) +
                (1 + 1 + 1 + 1 + 1 + 1 + 2 + 1 + 1 + 1 + 1 + (1 + 2 + 1 + 1 + 2) + 1 + 1 + 1 +
                 2 + 1 + 6 + 1 + 1 + 1 + 1) +
                3 * 10);
}

// ---------------------------------------------------------------------------------------------
// unet: B=8, 80×80 RGB, DoubleConv (two 3×3 pad-1 convs with bias + ReLU) at 32, 64, 128
// channels with 2×2 pooling, decoder upsampling ×2 and concatenating the skip, 1×1 head to 5.
TEST(DiagramGoldenExamples, UnetSkipConnections) {
  const Diagram d = buildDiagram(traced("unet"));
  // segment(): line 46's call of doubleConv (its line 37: one box), line 47 (maxPool box, then the
  // call cluster with doubleConv's box), line 48 likewise, lines 49 and 50 (one call cluster each,
  // holding upAndJoin's line 41 and doubleConv's line 37), line 51 (head). 1 + 2 + 2 + 2 + 2 + 1
  // = 10 shared boxes. Training-only: lossFn line 55's permute, line 56's crossEntropy.
  // Inference-only: predictFn line 60's argmax. 13 boxes; inputs images (both) and masks.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 13u);
  EXPECT_EQ(d.nodes.size(), 15u);
  EXPECT_EQ(boxesOn(d, kBoth), 10u);
  EXPECT_EQ(boxesOn(d, kTrain), 2u);
  EXPECT_EQ(boxesOn(d, kInfer), 1u);
  // The pair (lossFn line 55 / predictFn line 60) and segment's five call clusters; no loop:
  // the five calls are on five lines, so their signatures differ.
  EXPECT_EQ(d.clusters.size(), 6u);
  EXPECT_TRUE(loopLabels(d).empty());
  const std::vector<std::string> users = userClusterLabels(d);
  for (const char* line :
       {"Tensor s1 = doubleConv(m.enc1, images);               // [B, C1, S, S]",
        "Tensor u2 = doubleConv(m.dec2, upAndJoin(bottom, s2));  // [B, C2, S/2, S/2]",
        "Tensor u1 = doubleConv(m.dec1, upAndJoin(u2, s1));      // [B, C1, S, S]"}) {
    EXPECT_NE(std::find(users.begin(), users.end(), line), users.end()) << line;
  }
  // Training: images→s1, s1→pool1, pool1→s2, s2→pool2, pool2→bottom, bottom→up2, s2→up2 (skip),
  // up2→u2, u2→up1, s1→up1 (skip), up1→u1, u1→head, head→permute, permute→CE, masks→CE (15).
  // Inference adds head→argmax. 16.
  EXPECT_EQ(d.edges.size(), 16u);
  EXPECT_EQ(d.carriedEdgeCount(), 0u);
  // out·in·3·3 + out per conv: enc1 (3→32, 32→32) 896 + 9,248; enc2 (32→64, 64→64) 18,496 +
  // 36,928; mid (64→128, 128→128) 73,856 + 147,584; dec2 (192→64, 64→64) 110,656 + 36,928;
  // dec1 (96→32, 32→32) 27,680 + 9,248; head 5·32 + 5 = 165.
  EXPECT_EQ(
      value(d.metrics, Side::train, "params"),
      896 + 9'248 + 18'496 + 36'928 + 73'856 + 147'584 + 110'656 + 36'928 + 27'680 + 9'248 + 165);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 471'685);
  // conv FLOPs 2·|out|·in·3·3; |out| at full, half and quarter side: 8·C·6400, 8·C·1600, 8·C·400.
  auto conv = [](std::int64_t outElems, std::int64_t in, std::int64_t k) {
    return 2 * outElems * in * k * k;
  };
  const std::int64_t full32 = 8 * 32 * 6400, half64 = 8 * 64 * 1600, quarter128 = 8 * 128 * 400;
  const std::int64_t enc1c1 = conv(full32, 3, 3);
  const std::int64_t forward =
      enc1c1 + conv(full32, 32, 3) + conv(half64, 32, 3) + conv(half64, 64, 3) +
      conv(quarter128, 64, 3) + conv(quarter128, 128, 3) + conv(half64, 192, 3) +
      conv(half64, 64, 3) + conv(full32, 96, 3) + conv(full32, 32, 3) + conv(8 * 5 * 6400, 32, 1);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), forward);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 11'429'478'400);
  // Step: every conv's weight and input gradient (each its forward's cost), except enc1.c1's
  // input gradient (the images).
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), 3 * forward - enc1c1);
  // Inference activations: per DoubleConv conv, add, relu twice (6·|out|; the bias reshape is a
  // view): 6·(full32 + half64 + quarter128 + half64 + full32); pools [8,32,40,40] 409,600 and
  // [8,64,20,20] 204,800; upsample [8,128,40,40] 1,638,400 and concat [8,192,40,40] 2,457,600;
  // upsample [8,64,80,80] 3,276,800 and concat [8,96,80,80] 4,915,200; head conv, add
  // [8,5,80,80] 2·256,000; argmax [8,80,80] 51,200.
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"),
            (6 * (2 * full32 + 2 * half64 + quarter128) + 409'600 + 204'800 + 1'638'400 +
             2'457'600 + 3'276'800 + 4'915'200 + 2 * 256'000 + 51'200) *
                4);
  // Inference kernels: 5 DoubleConvs × 6, 2 pools, 2 × (upsample, concat), head conv and add,
  // argmax.
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 5 * 6 + 2 + 2 * 2 + 2 + 1);
  // Training-step kernels (src/grad, src/optim). Forward: the 39 above without argmax, plus the
  // cross-entropy (permute and reshapes are views) = 39.
  // Backward: seed ones 1, cross_entropy_grad 1 (the permute and reshapes go back by views);
  // head: bias sum_to_shape to [5,1,1] 1 (then a reshape, a view), conv input and weight grads
  // 2. A DoubleConv from its output: relu_grad 1, c2 bias, weight, input 3, relu_grad 1, c1
  // bias, weight 2 and input 1 = 8 (enc1: 7, the images need no gradient). Joins: each concat
  // gives one narrow per piece 2 and the upsample its grad 1; s1 and s2 each get two gradients
  // (pool and skip), summed 1 each; each pool one max_pool2d_grad. dec1 8 + join 3 + dec2 8 +
  // join 3 + mid 8 + pool 1 + enc2 8 + pool 1 + enc1 7 + sums 2 = 49.
  // Adam: 3 × 22 parameter tensors (10 convs' weight and bias, the head's).
  EXPECT_EQ(value(d.metrics, Side::train, "kernels"),
            (5 * 6 + 2 + 2 * 2 + 2 + 1) + (1 + 1 + 3 + 8 + 3 + 8 + 3 + 8 + 1 + 8 + 1 + 7 + 2) +
                3 * 22);
}

// ---------------------------------------------------------------------------------------------
// nerf: B=1024 2-D coordinates, positional encoding (10 frequencies: 2 + 2·2·10 = 42 features),
// MLP 42→256→256→256→3 with ReLU and a sigmoid.
TEST(DiagramGoldenExamples, NerfPositionalEncodingCluster) {
  const Diagram d = buildDiagram(traced("nerf"));
  // colourAt(): line 37's call of positionalEncoding (its lines 29, 30, 31, 32: four boxes), then
  // line 37's in + relu box, lines 38, 39, 40. Shared 8; training-only lossFn line 44's
  // mean(square(sub)). 9 boxes; inputs coords (both) and colours.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 9u);
  EXPECT_EQ(d.nodes.size(), 11u);
  EXPECT_EQ(boxesOn(d, kBoth), 8u);
  EXPECT_EQ(boxesOn(d, kTrain), 1u);
  // The pair (lossFn line 44 / predictFn line 47) and the positionalEncoding call cluster.
  EXPECT_EQ(d.clusters.size(), 2u);
  EXPECT_TRUE(loopLabels(d).empty());
  // 29 has no drawn input (arange); coords→30, 29→30, 30→31, coords→32 (p itself is
  // concatenated), 31→32, 32→37, 37→38, 38→39, 39→40, 40→loss, colours→loss. Inference draws no
  // edge of its own. 11.
  EXPECT_EQ(d.edges.size(), 11u);
  EXPECT_EQ(d.carriedEdgeCount(), 0u);
  // in 42·256+256 = 11,008; h1, h2 256·256+256 = 65,792 each; out 256·3+3 = 771.
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 11'008 + 2 * 65'792 + 771);
  const std::int64_t in = 2LL * 1024 * 42 * 256, hidden = 2LL * 1024 * 256 * 256,
                     out = 2LL * 1024 * 256 * 3;
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), in + 2 * hidden + out);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 292'028'416);
  // Step: out, h2, h1 dW and dX; in dW only (the encoding depends on no parameter).
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), 3 * (in + 2 * hidden + out) - in);
  // Inference activations: line 29 arange, mul, exp, mul [10] (40); line 30 mul [1024,2,10]
  // 20,480 (two reshapes are views); line 31 sin, cos [1024,2,10] and concat [1024,2,20]
  // (2·20,480 + 40,960); line 32 concat [1024,42] 43,008; lines 37–39 matmul, add, relu
  // [1024,256] (3·3·262,144); line 40 matmul, add, sigmoid [1024,3] (3·3,072).
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"),
            (40 + 20'480 + 2 * 20'480 + 40'960 + 43'008 + 9 * 262'144 + 3 * 3'072) * 4);
  // Inference kernels: 4 + 1 + 3 + 1 (encoding; reshapes are views) + 4·3.
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 4 + 1 + 3 + 1 + 4 * 3);
  // Training-step kernels (src/grad, src/optim): forward 21 as above + sub, square, mean = 24.
  // Backward, from the loss: the seed ones({}) 1; mean: ×1/n 1 (the broadcast is a view);
  // square: x·2 and ·dy 2; sub: nothing (same shapes; the colours need no gradient); sigmoid_grad
  // 1; per layer bias sum_to_shape 1, then dX and dW matmuls (transposes are views) 2, then
  // relu_grad 1 for the layer below — out: 1 + 2 + 1, h2: 1 + 2 + 1, h1: 1 + 2 + 1, in: bias 1
  // and dW only 1 (the encoding needs no gradient) = 19. Adam: moment1, moment2, update per
  // parameter tensor, 8 tensors = 24.
  EXPECT_EQ(value(d.metrics, Side::train, "kernels"), 24 + (1 + 1 + 2 + 1 + 3 * 4 + 2) + 3 * 8);
}

// ---------------------------------------------------------------------------------------------
// kan: B=256, layers [2, 16, 16, 1], each edge a linear B-spline over 12 knots plus a SiLU base.
TEST(DiagramGoldenExamples, KanThreeLayersOnThreeLines) {
  const Diagram d = buildDiagram(traced("kan"));
  // kan(): lines 56, 57, 58 each call kanLayer: a cluster holding line 50's call of splineBasis
  // (its lines 44, 45, 46: three boxes), line 50's reshape + matmul box and line 51's box;
  // lines 56 and 57 then add a tanh box. 3·5 + 2 = 17 shared; training-only lossFn line 62's
  // mean(square(sub)). The three layers are called from three lines, so no loop. 18 boxes; inputs
  // points (both sides) and values.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 18u);
  EXPECT_EQ(d.nodes.size(), 20u);
  EXPECT_EQ(boxesOn(d, kBoth), 17u);
  EXPECT_EQ(boxesOn(d, kTrain), 1u);
  EXPECT_TRUE(loopLabels(d).empty());
  // The pair (lossFn line 62 / predictFn line 65), kan's three call clusters, and a splineBasis
  // call cluster in each.
  EXPECT_EQ(d.clusters.size(), 7u);
  // Per layer, x its input: x→45, 44→45 (the knots), 45→46, 46→50, x→51 (silu), 50→51 (6); then
  // layer 1's 51→tanh, layer 2's 51→tanh, layer 3's 51→loss, values→loss. 3·6 + 4 = 22; the
  // inference side draws none of its own.
  EXPECT_EQ(d.edges.size(), 22u);
  EXPECT_EQ(d.carriedEdgeCount(), 0u);
  // base in·out + coeffs in·12·out: l1 2·16 + 24·16, l2 16·16 + 192·16, l3 16·1 + 192·1.
  EXPECT_EQ(value(d.metrics, Side::train, "params"), (32 + 384) + (256 + 3'072) + (16 + 192));
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 3'952);
  // Per layer: spline matmul 2·256·(in·12)·out, base matmul 2·256·in·out.
  auto layer = [](std::int64_t in, std::int64_t out) {
    return 2 * 256 * (in * 12) * out + 2 * 256 * in * out;
  };
  const std::int64_t forward = layer(2, 16) + layer(16, 16) + layer(16, 1);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), forward);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 2'023'424);
  // Step: every matmul's parameter gradient, and the input gradient of layers 2 and 3 (their
  // inputs depend on layer 1; layer 1's are functions of the points only).
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), 2 * forward + layer(16, 16) + layer(16, 1));
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), 5'857'280);
  // Inference activations per layer (n inputs, o outputs): knots arange, mul, add [12] (36);
  // sub, abs [256,n,12]; div, sub, relu [256,n,12] (reshapes are views); the spline matmul
  // [256,o]; silu [256,n], base matmul and add [256,o]. Plus two tanh [256,16].
  auto acts = [](std::int64_t n, std::int64_t o) {
    return 36 + 5 * 256 * n * 12 + 256 * n + 3 * 256 * o;
  };
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"),
            (acts(2, 16) + acts(16, 16) + acts(16, 1) + 2 * 256 * 16) * 4);
  // Inference kernels: per layer 3 + 2 + 3 + 1 + 3 = 12; two tanh.
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 3 * 12 + 2);
  // Training-step kernels (src/grad, src/optim). Forward: the 38 above + sub, square, mean = 41.
  // Backward: seed ones 1, mean ×1/n 1, square 2, sub passes dy on (same shapes; the values need
  // no gradient). A layer whose input needs a gradient (layers 3 and 2, from their output): the
  // add passes dy on (same shapes); spline matmul dX and dW 2 (the basis depends on the input);
  // relu_grad 1; sub(1, ·) neg 1; ÷SPACING ×1/SPACING 1; abs_grad 1; sub(x, knots) sums dy
  // [B,n,12] to x's [B,n,1] 1 (the knots come from arange: no gradient; the reshape is a view);
  // base matmul dX and dW 2, silu_grad 1; x's two gradients (basis and silu) summed 1 = 11, and
  // the tanh before it tanh_grad 1. Layer 1 reads the points: the spline and base matmuls' dW
  // only 2 (no gradient flows into its basis or silu). 4 + 2·(11 + 1) + 2 = 30.
  // Adam: 3 × 6 parameter tensors (base, coeffs per layer).
  EXPECT_EQ(value(d.metrics, Side::train, "kernels"),
            (3 * 12 + 2 + 3) + (1 + 1 + 2 + 2 * (11 + 1) + 2) + 3 * 6);
}

// ---------------------------------------------------------------------------------------------
// flow_matching: B=512 2-D points, sinusoidal time embedding (32), velocity MLP 34→128→128→2 with
// SiLU; training at one random t, inference 8 Euler steps.
TEST(DiagramGoldenExamples, FlowMatchingFoldsTheEulerSteps) {
  const Diagram d = buildDiagram(traced("flow_matching"));
  // Training: lossFn lines 45 (reshape t), 46 (xt), 47 (target), line 48's call of velocity
  // (line 35's call of timeEmbedding with boxes 28, 29, 30; then velocity's lines 35, 36, 37),
  // line 48's mean(square(sub)). Inference: per step line 56 (ones·t) and line 57's call of
  // velocity (the same 6 boxes) then line 57's mul + add: period 3 at predictFn's level, 8
  // iterations of 8 boxes: ×8, inference only.
  // Shared: the 6 velocity/timeEmbedding boxes; training-only 45, 46, 47, 48; inference-only 56,
  // 57. 12 boxes; inputs noise (both sides), data, t.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 12u);
  EXPECT_EQ(d.nodes.size(), 15u);
  EXPECT_EQ(boxesOn(d, kBoth), 6u);
  EXPECT_EQ(boxesOn(d, kTrain), 4u);
  EXPECT_EQ(boxesOn(d, kInfer), 2u);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×8 (inference)"});
  // The loop, the pair (line 48 / line 57 calling velocity) inside it, and line 35's call of
  // timeEmbedding. A shared box takes the path with more loops, so the clusters are the
  // inference side's. The seed keys a call cluster with its enclosing loop (`${frameKey}|${loopKey}`),
  // which only the inference side has, and so draws the timeEmbedding cluster as inference-only
  // although training calls it too; nndna ignores loops in one side's own code (predictFn's
  // sampling loop) in that key, so the cluster is shared, as its boxes are.
  EXPECT_EQ(d.clusters.size(), 3u);
  const Node& emb = boxWithLabel(d, "Tensor freqs = exp(mul(arange(half, f32)");
  EXPECT_EQ(emb.sides, kBoth);
  ASSERT_GE(emb.cluster, 0);
  const Cluster& call = d.clusters[static_cast<std::size_t>(emb.cluster)];
  EXPECT_EQ(call.label, "Tensor h = silu(m.l1(concat({x, timeEmbedding(t)}, -1)));");
  EXPECT_EQ(call.sides, kBoth);
  ASSERT_GE(call.parent, 0);
  const Cluster& pair = d.clusters[static_cast<std::size_t>(call.parent)];
  ASSERT_TRUE(pair.trainLabel && pair.inferLabel);
  EXPECT_EQ(*pair.trainLabel, "return mean(square(sub(velocity(m, xt, in[\"t\"]), target)));");
  EXPECT_EQ(*pair.inferLabel, "x = add(x, mul(velocity(m, x, t), dt));");
  EXPECT_EQ(pair.sides, kBoth);
  // Training (15): t→45, 45→46, noise→46, data→46, data→47, noise→47, t→29 (timeEmbedding reads
  // the raw t), 28→29, 29→30, 46→35, 30→35, 35→36, 36→37, 37→48, 47→48.
  // Inference adds 6: 56→29, noise→35 and noise→57 (step 0's x), 37→57, and the carried 57→35
  // and 57→57 (x feeds the next step). 28→29, 29→30, 30→35, 35→36, 36→37 are shared. 21, 2 carried.
  EXPECT_EQ(d.edges.size(), 21u);
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
  // l1 34·128+128 = 4,480; l2 128·128+128 = 16,512; l3 128·2+2 = 258.
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 4'480 + 16'512 + 258);
  const std::int64_t l1 = 2LL * 512 * 34 * 128, l2 = 2LL * 512 * 128 * 128,
                     l3 = 2LL * 512 * 128 * 2;
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 8 * (l1 + l2 + l3));
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 171'966'464);
  // Step: one forward; l3 and l2 dW and dX, l1 dW only (its input, the point and the time
  // embedding, depends on no parameter).
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), (l1 + l2 + l3) + 2 * l3 + 2 * l2 + l1);
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), 60'030'976);
  // Inference activations per step: ones and mul [512] (2·512); arange, mul, exp [16] (48); mul
  // [512,16] 8,192 (reshapes are views); sin, cos [512,16], concat [512,32] (32,768); concat
  // [512,34] 17,408, l1 matmul, add, silu [512,128] (3·65,536); l2 likewise (3·65,536); l3
  // matmul, add [512,2] (2·1,024); line 57's mul, add [512,2] (2·1,024).
  const std::int64_t perStep = 2 * 512 + 48 + 8'192 + 32'768 + 17'408 + 6 * 65'536 + 4 * 1'024;
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"), 8 * perStep * 4);
  // Training activations: line 46 sub [512,1] 512, mul, mul, add [512,2] (3·1,024); line 47 sub
  // 1,024; the velocity call as in one step without line 56 and 57; line 48 sub, square
  // [512,2] (2·1,024) and the mean (1).
  EXPECT_EQ(value(d.metrics, Side::train, "activations"),
            (512 + 3 * 1'024 + 1'024 + (perStep - 2 * 512 - 2 * 1'024) + 2 * 1'024 + 1) * 4);
  // Inference kernels per step: 2 + 3 + 1 + 3 + 4 + 3 + 2 + 2 = 20.
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 8 * 20);
  // Training-step kernels (src/grad, src/optim). Forward: line 46 sub, mul, mul, add 4 (line
  // 45's reshape is a view); line 47 sub 1; velocity: timeEmbedding 3 + 1 + 3 = 7, line 35
  // concat, matmul, add, silu 4, line 36 3, line 37 2 = 16; line 48 sub, square, mean 3: 24.
  // Backward: seed ones 1, mean ×1/n 1, square 2, sub passes dy on (the target needs none); l3
  // bias sum_to_shape 1, dX and dW 2, silu_grad 1, l2 bias 1, dX and dW 2, silu_grad 1, l1 bias
  // 1 and dW only 1: its input concatenates x_t and the time embedding, which depend on no
  // parameter, so the concat and everything before it get no gradient. 4 + 10 = 14.
  // AdamW: 3 × 6 parameter tensors.
  EXPECT_EQ(value(d.metrics, Side::train, "kernels"),
            (4 + 1 + 16 + 3) + (1 + 1 + 2 + (1 + 2 + 1 + 1 + 2 + 1 + 1 + 1)) + 3 * 6);
}

// ---------------------------------------------------------------------------------------------
// decoder_96: GPT-2 small's structure (golden_test.cpp) at B=1, T=8192, V=100,000, D=16384,
// H=128 heads of DH=128, F=4D, 96 blocks.
TEST(DiagramGoldenExamples, Decoder96FoldsNinetySixBlocks) {
  const Diagram d = buildDiagram(traced("decoder_96"));
  // decode(): line 82 (embeddings and their sum), line 83's call cluster holding the 96 blocks
  // (period 6: ln1, attention call, add, ln2, mlp call, add; 11 boxes each), line 84 (ln_f),
  // line 85 (logits). block(): lines 76 and 77 give two boxes each; attention() lines 64–69 six;
  // mlp() line 72 one. 1 + 11 + 2 = 14 shared; training-only lossFn line 90's crossEntropy.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 15u);
  EXPECT_EQ(d.nodes.size(), 17u);  // + tokens (both sides), targets
  EXPECT_EQ(boxesOn(d, kBoth), 14u);
  EXPECT_EQ(boxesOn(d, kTrain), 1u);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×96"});
  // The pair (line 89 / line 93), line 83's call cluster, the loop, attention and mlp calls.
  EXPECT_EQ(d.clusters.size(), 5u);
  // tokens→82, 82→ln1, 82→add1, ln1→q, ln1→k, ln1→v, q→scores, k→scores, scores→y, v→y,
  // y→proj, proj→add1, add1→ln2, ln2→mlp, add1→add2, mlp→add2, add2→ln1 and add2→add1
  // (carried), add2→84, 84→85, 85→CE, targets→CE. Inference draws a subset. 22, 2 carried.
  EXPECT_EQ(d.edges.size(), 22u);
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
  // The spec's own hand count (its header comment): V·D + T·D + 96·(12·D² + 13·D) + 2·D.
  constexpr std::int64_t T = 8192, V = 100'000, D = 16384, H = 128, DH = 128, F = 4 * D;
  EXPECT_EQ(value(d.metrics, Side::train, "params"),
            V * D + T * D + 96 * (12 * D * D + 13 * D) + 2 * D);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 311'030'743'040);
  // Scaled by 1000 three times: B, with two decimals from that magnitude on (the seed's format).
  EXPECT_EQ(metric(*d.metrics.train, "params").display, "311.03B parameters");
  // Forward per block: q, k, v, proj 4·2·T·D²; scores and attention·v 2·(2·H·T·T·DH); fc and
  // proj 2·2·T·D·F. Logits 2·T·D·V.
  const std::int64_t perBlock = 4 * 2 * T * D * D + 2 * (2 * H * T * T * DH) + 2 * 2 * T * D * F;
  const std::int64_t forward = 96 * perBlock + 2 * T * D * V;
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), forward);
  // 96 · 57,174,604,644,352 + 26,843,545,600,000 = 5,515,605,591,457,792: 5.52 P.
  EXPECT_EQ(metric(*d.metrics.infer, "flops").display, "5.52P FLOPs/forward");
  // Every matmul input depends on a parameter: 3 × forward per step.
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), 3 * forward);
  // Inference activations (TD = T·D, HTT = H·T·T, TF = T·F): line 82 two embeddings and the add
  // (3·TD) and arange [T]; per block ln1, q/k/v matmul and bias add (7·TD; split_heads is a
  // view), scores matmul and scale (2·HTT; swapAxes is a view), softmax (HTT), ·v (TD),
  // merge_heads, proj matmul and add (3·TD), add, ln2 (2·TD), fc matmul, add, gelu (3·TF), proj
  // matmul, add (2·TD), add (TD): 16·TD + 3·HTT + 3·TF; ln_f TD; logits T·V.
  const std::int64_t TD = T * D, HTT = H * T * T, TF = T * F;
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"),
            (3 * TD + T + 96 * (16 * TD + 3 * HTT + 3 * TF) + TD + T * V) * 4);
  // Inference kernels: line 82's 4; per block ln1, 3 × (matmul, add), matmul, mul, softmax,
  // matmul, merge_heads, matmul, add, add, ln2, matmul, add, gelu, matmul, add, add = 22; ln_f,
  // logits.
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 4 + 96 * 22 + 2);
  // Training-step kernels (src/grad, src/optim). Forward: the inference's 4 + 96·22 + 2 and the
  // cross-entropy 1 (its reshapes are views).
  // Backward: seed ones 1, cross_entropy_grad 1; logits dX and dW 2 (tok_emb's swapAxes goes
  // back by a permute, a view); ln_f input, weight and bias (sum_to_shape) 3. Per block, from
  // its output: the residual adds pass dy on (same shapes); mlp: proj bias 1, dX and dW 2,
  // gelu_grad 1, fc bias 1, dX and dW 2, ln2 3, the sum of the two gradients of x after the
  // attention add 1 = 11; attention: proj bias 1, dX and dW 2 (mergeHeads' adjoint is a view),
  // softmax·v 2, softmax_grad 1, the 1/√DH scale 1, q·kᵀ 2, merge_heads for the three
  // splitHeads 3, q, k, v bias 3 and dX, dW 6, the sum of ln1's output's three gradients 2, ln1
  // 3, the sum of the block input's two gradients 1 = 27; 38 per block. Line 82: the positions'
  // sum_to_shape [1,T,D] → [T,D] 1, two embedding_grads 2, the sum of tok_emb's two gradients
  // (embedding and logits) 1 = 4. 7 + 96·38 + 4.
  // AdamW: 3 × (tok_emb, pos_emb + 96 × 16 (ln1, q, k, v, proj, ln2, fc, proj: weight and bias)
  // + ln_f's 2) parameter tensors.
  EXPECT_EQ(value(d.metrics, Side::train, "kernels"),
            (4 + 96 * 22 + 2 + 1) + (1 + 1 + 2 + 3 + 96 * (11 + 27) + 4) + 3 * (2 + 96 * 16 + 2));
}

// ---------------------------------------------------------------------------------------------
// The metrics count what the seed's do: activations and FLOPs/forward over the ops the outputs
// need (its fwdOps = forwardReachable), so a spec line whose result is never used (the seed's
// infer.md: "unused-result ops still trace into the graph") adds nothing. The same holds for the
// inference kernels (the training step is pruned by dead-code elimination already).
TEST(DiagramGoldenExamples, UnusedResultsAreNotCounted) {
  auto fn = [](const Inputs& in) {
    Tensor unused = matmul(in["x"], in["w"]);  // [4, 8]: traced, never read
    (void)unused;
    return sum(matmul(in["x"], in["w2"]));  // [4, 3], then a scalar
  };
  const std::vector<InputDecl> inputs{{"x", {4, 8}}, {"w", {8, 8}}, {"w2", {8, 3}}};
  ir::TracedModel model;
  model.train = traceFunction(inputs, fn, true);
  model.hasInfer = true;
  model.infer = traceFunction(inputs, fn, false);
  const Diagram d = buildDiagram(model);
  // Only the used matmul: 2·(4·3)·8 = 192 FLOPs (the unused one would add 2·(4·8)·8 = 512).
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 2 * (4 * 3) * 8);
  // The matmul [4,3] and the sum (1 element), 4 bytes each (the unused [4,8] would add 128).
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"), (4 * 3 + 1) * 4);
  EXPECT_EQ(value(d.metrics, Side::train, "activations"), (4 * 3 + 1) * 4);
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 2);  // matmul, sum
  // The step has no parameter, so no backward: its forward, pruned, is the same 2 kernels.
  EXPECT_EQ(value(d.metrics, Side::train, "kernels"), 2);
  EXPECT_EQ(d.layerCount(), 1u);  // the loss line; the unused line draws nothing either
}

}  // namespace
}  // namespace nndna::diagram
