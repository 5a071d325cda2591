// LLaMA-2-7B as Meta released it: 32 pre-RMSNorm decoder blocks of width 4096 with 32 heads of
// 128 and rotary positions, a SwiGLU MLP of 11,008, no biases, a 32,000-token vocabulary and an
// output projection of its own (not tied). One sequence of the full 4,096-token context. The
// summary's goldens (tests/diagram/summary_test.cpp) derive its figures by hand.
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

namespace {

constexpr int B = 1;
constexpr int T = 4096;
constexpr int V = 32000;
constexpr int D = 4096;
constexpr int H = 32;
constexpr int DH = D / H;
constexpr int F = 11008;
constexpr int N_LAYERS = 32;
constexpr LinearOptions NO_BIAS{.bias = false};

struct Attention : Module {
  Linear q{"q_proj", D, D, NO_BIAS};
  Linear k{"k_proj", D, D, NO_BIAS};
  Linear v{"v_proj", D, D, NO_BIAS};
  Linear o{"o_proj", D, D, NO_BIAS};
};

struct Mlp : Module {
  Linear gate{"gate_proj", D, F, NO_BIAS};
  Linear up{"up_proj", D, F, NO_BIAS};
  Linear down{"down_proj", F, D, NO_BIAS};
};

struct Layer : Module {
  RMSNorm inputNorm{"input_layernorm", D};
  Attention attn = child<Attention>("self_attn");
  RMSNorm postNorm{"post_attention_layernorm", D};
  Mlp mlp = child<Mlp>("mlp");
};

struct Llama : Module {
  Embedding embed{"embed_tokens", V, D};
  std::vector<Layer> layers = list<Layer>("layers", N_LAYERS);
  RMSNorm norm{"norm", D};
  Linear lmHead{"lm_head", D, V, NO_BIAS};
};

Tensor attention(const Attention& a, Tensor x) {
  auto [q, k] = rope(splitHeads(a.q(x), H), splitHeads(a.k(x), H));  // [B, H, T, DH]
  Tensor v = splitHeads(a.v(x), H);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));  // [B, H, T, T]
  return a.o(mergeHeads(matmul(softmaxCausal(scores), v)));                  // [B, T, D]
}

Tensor mlp(const Mlp& m, Tensor x) { return m.down(mul(silu(m.gate(x)), m.up(x))); }

Tensor layer(const Layer& l, Tensor x) {
  x = add(x, attention(l.attn, l.inputNorm(x)));
  return add(x, mlp(l.mlp, l.postNorm(x)));
}

Tensor logits(const Llama& m, Tensor tokens) {
  Tensor h = m.embed(tokens);  // [B, T, D]
  for (const Layer& l : m.layers) h = layer(l, h);
  return m.lmHead(m.norm(h));  // [B, T, V]
}

Tensor lossFn(Llama& m, const Inputs& in) {
  return crossEntropy(reshape(logits(m, in["tokens"]), {-1, V}), reshape(in["targets"], {-1}));
}

Tensor predictFn(Llama& m, const Inputs& in) { return logits(m, in["tokens"]); }

}  // namespace

NNDNA_SPEC(Llama) {
  return {.label = "LLaMA-2-7B",
          .description = "Meta's LLaMA-2 7B decoder at its 4,096-token context.",
          .loss = lossFn,
          .inputs = {{"tokens", {B, T}, i32}, {"targets", {B, T}, i32}},
          .optimizer = AdamW{.lr = 3e-4, .weightDecay = 0.1, .beta2 = 0.95},
          .predict = predictFn,
          .predictInputs = {{"tokens", {B, T}, i32}},
          .dims = {{T, "T", "context"}, {D, "D", "width"}, {H, "H", "heads"}, {DH, "Dh", "head width"},
                   {F, "F", "MLP hidden"}, {V, "V", "vocabulary"}}};
}
