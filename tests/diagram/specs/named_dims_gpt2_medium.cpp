// GPT-2 medium (350M) written with named dims: its context and width are both 1024, so with plain
// ints every box of its blocks reads [B, T/D, T/D] (issue 12, point 10). Here every size is a Dim
// and the boxes read [B, T, D]; `.dims` lists them to order the legend, and Dh's definition lets
// the diagram read splitHeads' D/H as Dh.
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

namespace {

constexpr Dim B{"B", 8, "batch"};
constexpr Dim T{"T", 1024, "context"};
constexpr Dim V{"V", 50257, "vocabulary"};
constexpr Dim D{"D", 1024, "model width"};
constexpr Dim H{"H", 16, "heads"};
constexpr Dim Dh{"Dh", D / H, "head width"};
constexpr Dim F{"F", 4 * D, "MLP hidden"};
constexpr int N_LAYERS = 24;

struct Attention : Module {
  Linear q{"q", D, D};
  Linear k{"k", D, D};
  Linear v{"v", D, D};
  Linear proj{"proj", D, D};
};

struct Mlp : Module {
  Linear fc{"fc", D, F};
  Linear proj{"proj", F, D};
};

struct Block : Module {
  LayerNorm ln1{"ln1", D};
  Attention attn = child<Attention>("attn");
  LayerNorm ln2{"ln2", D};
  Mlp mlp = child<Mlp>("mlp");
};

struct Gpt2Medium : Module {
  Tensor tokEmb = param("tok_emb", {V, D}, {.init = init::normal(0.02)});
  Embedding posEmb{"pos_emb", T, D};
  std::vector<Block> layers = list<Block>("layers", N_LAYERS);
  LayerNorm lnF{"ln_f", D};
};

Tensor attention(const Attention& a, Tensor x) {
  Tensor q = splitHeads(a.q(x), H);
  Tensor k = splitHeads(a.k(x), H);
  Tensor v = splitHeads(a.v(x), H);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(double(Dh)));
  Tensor y = matmul(softmaxCausal(scores), v);
  return a.proj(mergeHeads(y));
}

Tensor mlp(const Mlp& m, Tensor x) { return m.proj(gelu(m.fc(x), {.approximate = GeluApproximate::tanh})); }

Tensor block(const Block& b, Tensor x) {
  x = add(x, attention(b.attn, b.ln1(x)));
  return add(x, mlp(b.mlp, b.ln2(x)));
}

Tensor gpt(const Gpt2Medium& m, Tensor tokens) {
  Tensor h = add(embedding(m.tokEmb, tokens), m.posEmb(arange(T)));
  for (const Block& layer : m.layers) h = block(layer, h);
  h = m.lnF(h);
  return matmul(h, swapAxes(m.tokEmb, -1, -2));
}

Tensor lossFn(Gpt2Medium& m, const Inputs& in) {
  Tensor logits = gpt(m, in["tokens"]);
  return crossEntropy(reshape(logits, {-1, V}), reshape(in["targets"], {-1}));
}

Tensor predictFn(Gpt2Medium& m, const Inputs& in) { return gpt(m, in["tokens"]); }

}  // namespace

NNDNA_SPEC(Gpt2Medium) {
  return {
      .label = "GPT-2 medium (named dims)",
      .description = "GPT-2 medium: 24 pre-LN blocks of width 1024 over a 1024-token context.",
      .loss = lossFn,
      .inputs = {{"tokens", {B, T}, i32}, {"targets", {B, T}, i32}},
      .optimizer = AdamW{.lr = 3e-4, .weightDecay = 0.1},
      .predict = predictFn,
      .predictInputs = {{"tokens", {B, T}, i32}},
      .dims = {B, T, D, H, Dh, F, V},
  };
}
