// A grouped-query attention block (LLaMA-2 70B, Mistral): 8 query heads share 2 key/value heads.
// The training loss writes it with matmul broadcasting a size-1 group axis ([B, Hkv, G, T, Dh]
// against [B, Hkv, 1, T, Dh]); the prediction with repeatKv. Both are the same computation.
#include <nndna/nndna.hpp>

#include <cmath>

namespace {

using namespace nndna;

constexpr int B = 2;         // sequences per batch
constexpr int T = 16;        // context
constexpr int D = 64;        // model width
constexpr int H = 8;         // query heads
constexpr int HKV = 2;       // key/value heads
constexpr int G = H / HKV;   // query heads per key/value head
constexpr int DH = D / H;    // head width

struct Attention : Module {
  Linear wq{"wq", D, H * DH, {.bias = false}};
  Linear wk{"wk", D, HKV * DH, {.bias = false}};
  Linear wv{"wv", D, HKV * DH, {.bias = false}};
  Linear wo{"wo", H * DH, D, {.bias = false}};
};

// Broadcasting: the group axis of k and v is 1.
Tensor attentionBroadcast(const Attention& m, Tensor x) {
  Tensor q = reshape(splitHeads(m.wq(x), H), {B, HKV, G, T, DH});
  Tensor k = reshape(splitHeads(m.wk(x), HKV), {B, HKV, 1, T, DH});
  Tensor v = reshape(splitHeads(m.wv(x), HKV), {B, HKV, 1, T, DH});
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));
  Tensor o = matmul(softmaxCausal(scores), v);  // [B, HKV, G, T, DH]
  return m.wo(mergeHeads(reshape(o, {B, H, T, DH})));
}

// repeatKv: every key/value head repeated for its G query heads.
Tensor attentionRepeat(const Attention& m, Tensor x) {
  Tensor q = splitHeads(m.wq(x), H);
  Tensor k = repeatKv(splitHeads(m.wk(x), HKV), G);
  Tensor v = repeatKv(splitHeads(m.wv(x), HKV), G);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));
  return m.wo(mergeHeads(matmul(softmaxCausal(scores), v)));
}

Tensor lossFn(Attention& m, const Inputs& in) { return mean(attentionBroadcast(m, in["x"])); }
Tensor predictFn(Attention& m, const Inputs& in) { return attentionRepeat(m, in["x"]); }

}  // namespace

NNDNA_SPEC(Attention) {
  return {.label = "Grouped-query attention",
          .description = "8 query heads over 2 key/value heads, by broadcasting and by repeatKv.",
          .loss = lossFn,
          .inputs = {{"x", {B, T, D}}},
          .optimizer = AdamW{.lr = 3e-4, .weightDecay = 0.1, .clipGradNorm = 1.0},
          .predict = predictFn,
          .predictInputs = {{"x", {B, T, D}}},
          .dims = {{B, "B", "batch"}, {T, "T", "context"}, {D, "D", "width"}}};
}
