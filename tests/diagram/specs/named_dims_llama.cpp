// A LLaMA-style decoder written with named dims, at a 128-token context: T = Dh = 128, so with
// plain ints its attention boxes read [B, H, T/Dh, T/Dh] (issue 12, point 10). The width is
// defined as H · Dh, which is how the diagram reads splitHeads' D/H as Dh; there is no `.dims`
// list: the legend is the dims the model API met.
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

namespace {

constexpr Dim B{"B", 4, "batch"};
constexpr Dim T{"T", 128, "context"};
constexpr Dim V{"V", 32000, "vocabulary"};
constexpr Dim H{"H", 32, "heads"};
constexpr Dim Dh{"Dh", 128, "head width"};
constexpr Dim D{"D", H * Dh, "width"};
constexpr Dim F{"F", 11008, "MLP hidden"};
constexpr int N_LAYERS = 4;
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

struct NamedLlama : Module {
  Embedding embed{"embed_tokens", V, D};
  std::vector<Layer> layers = list<Layer>("layers", N_LAYERS);
  RMSNorm norm{"norm", D};
  Linear lmHead{"lm_head", D, V, NO_BIAS};
};

Tensor attention(const Attention& a, Tensor x) {
  auto [q, k] = rope(splitHeads(a.q(x), H), splitHeads(a.k(x), H));
  Tensor v = splitHeads(a.v(x), H);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(double(Dh)));
  return a.o(mergeHeads(matmul(softmaxCausal(scores), v)));
}

Tensor mlp(const Mlp& m, Tensor x) { return m.down(mul(silu(m.gate(x)), m.up(x))); }

Tensor layer(const Layer& l, Tensor x) {
  x = add(x, attention(l.attn, l.inputNorm(x)));
  return add(x, mlp(l.mlp, l.postNorm(x)));
}

Tensor logits(const NamedLlama& m, Tensor tokens) {
  Tensor h = m.embed(tokens);
  for (const Layer& l : m.layers) h = layer(l, h);
  return m.lmHead(m.norm(h));
}

Tensor lossFn(NamedLlama& m, const Inputs& in) {
  return crossEntropy(reshape(logits(m, in["tokens"]), {-1, V}), reshape(in["targets"], {-1}));
}

Tensor predictFn(NamedLlama& m, const Inputs& in) { return logits(m, in["tokens"]); }

}  // namespace

NNDNA_SPEC(NamedLlama) {
  return {.label = "LLaMA-style decoder (named dims)",
          .description = "A 4-block LLaMA-2-7B-wide decoder at a 128-token context.",
          .loss = lossFn,
          .inputs = {{"tokens", {B, T}, i32}, {"targets", {B, T}, i32}},
          .optimizer = AdamW{.lr = 3e-4, .weightDecay = 0.1, .beta2 = 0.95},
          .predict = predictFn,
          .predictInputs = {{"tokens", {B, T}, i32}}};
}
