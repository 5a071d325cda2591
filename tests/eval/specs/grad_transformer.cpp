// One pre-norm transformer block with RoPE and causal softmax over token embeddings.
#include <cmath>

#include <nndna/nndna.hpp>

using namespace nndna;

constexpr int B = 2, T = 4, D = 8, H = 2, V = 7;

struct GradBlock : Module {
  Embedding tok{"tok", V, D};
  LayerNorm ln1{"ln1", D};
  Linear q{"q", D, D};
  Linear k{"k", D, D};
  Linear v{"v", D, D};
  Linear proj{"proj", D, D};
  RMSNorm ln2{"ln2", D};
  Linear up{"up", D, 2 * D};
  Linear down{"down", 2 * D, D};
  Linear out{"out", D, V};
};

static Tensor lossFn(GradBlock& m, const Inputs& in) {
  Tensor x = m.tok(in["tokens"]);                                   // [B, T, D]
  Tensor h = m.ln1(x);
  auto [q, k] = rope(splitHeads(m.q(h), H), splitHeads(m.k(h), H));  // [B, H, T, D/H]
  Tensor v = splitHeads(m.v(h), H);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(D / H));
  Tensor att = matmul(softmaxCausal(scores), v);
  x = add(x, m.proj(mergeHeads(att)));
  x = add(x, m.down(gelu(m.up(m.ln2(x)))));
  return crossEntropy(reshape(m.out(x), {-1, V}), reshape(in["targets"], {-1}));
}

NNDNA_SPEC(GradBlock) {
  return {.label = "grad check: transformer block",
          .description = "embedding, pre-norm attention with RoPE and causal softmax, GELU MLP",
          .loss = lossFn,
          .inputs = {{"tokens", {B, T}, DType::i32}, {"targets", {B, T}, DType::i32}},
          .optimizer = Adam{},
          .predict = {},
          .predictInputs = {},
          .dims = {}};
}
