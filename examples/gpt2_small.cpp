// GPT-2 small (124M): a 12-layer pre-LayerNorm decoder-only transformer with learned positions
// and a token embedding tied to the output projection, as OpenAI released it.
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

// The examples are linked into one program: an anonymous namespace keeps each file's model types
// (every transformer has a `Block`) from colliding with another file's.
namespace {

// Named dims: each is an integer, and every axis it makes keeps its name in the diagram.
constexpr Dim B{"B", 8, "batch"};
constexpr Dim T{"T", 1024, "context"};
constexpr Dim V{"V", 50257, "vocabulary"};  // GPT-2 BPE
constexpr Dim D{"D", 768, "model width"};
constexpr Dim H{"H", 12, "heads"};
constexpr Dim DH{"Dh", D / H, "head width"};
constexpr Dim F{"F", 4 * D, "MLP hidden"};
constexpr int N_LAYERS = 12;

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

struct GPT2 : Module {
  // A raw table, not an Embedding: the output projection reuses it (tied embeddings).
  Tensor tokEmb = param("tok_emb", {V, D}, {.init = init::normal(0.02)});
  Embedding posEmb{"pos_emb", T, D, {.init = init::normal(0.01)}};
  std::vector<Block> layers = list<Block>("layers", N_LAYERS);
  LayerNorm lnF{"ln_f", D};
};

// Causal multi-head self-attention.
Tensor attention(const Attention& a, Tensor x) {
  Tensor q = splitHeads(a.q(x), H);  // [B, H, T, DH]
  Tensor k = splitHeads(a.k(x), H);
  Tensor v = splitHeads(a.v(x), H);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(double(DH)));  // [B, H, T, T]
  Tensor y = matmul(softmaxCausal(scores), v);                                 // [B, H, T, DH]
  return a.proj(mergeHeads(y));                                                // [B, T, D]
}

Tensor mlp(const Mlp& m, Tensor x) {
  return m.proj(gelu(m.fc(x), {.approximate = GeluApproximate::tanh}));
}

// Pre-LayerNorm residual block.
Tensor block(const Block& b, Tensor x) {
  x = add(x, attention(b.attn, b.ln1(x)));
  return add(x, mlp(b.mlp, b.ln2(x)));
}

// tokens [B, T] -> next-token logits [B, T, V].
Tensor gpt(const GPT2& m, Tensor tokens) {
  Tensor h = add(embedding(m.tokEmb, tokens), m.posEmb(arange(T)));  // [B, T, D]
  for (const Block& layer : m.layers) h = block(layer, h);
  h = m.lnF(h);
  return matmul(h, swapAxes(m.tokEmb, -1, -2));  // [B, T, V]
}

Tensor lossFn(GPT2& m, const Inputs& in) {
  Tensor logits = gpt(m, in["tokens"]);
  return crossEntropy(reshape(logits, {-1, V}), reshape(in["targets"], {-1}));
}

Tensor predictFn(GPT2& m, const Inputs& in) { return gpt(m, in["tokens"]); }

}  // namespace

NNDNA_SPEC(GPT2) {
  return {
      .label = "GPT-2 small (124M)",
      .description =
          "OpenAI's GPT-2 small: a decoder-only transformer of 12 pre-LayerNorm blocks (width 768, "
          "12 heads of 64, GELU MLP of 3072) over a 50,257-token BPE vocabulary. Learned positions "
          "for a 1024-token context, causal attention, and a token embedding tied to the output "
          "projection. Next-token cross-entropy on batches of 8 × 1024 tokens, AdamW with a "
          "cosine schedule.",
      .loss = lossFn,
      .inputs = {{"tokens", {B, T}, i32}, {"targets", {B, T}, i32}},
      .optimizer = AdamW{.lr = lr::cosineAnnealing(6e-4, 6e-5, 600000),
                         .weightDecay = 0.1,
                         .beta2 = 0.95},
      .predict = predictFn,
      .predictInputs = {{"tokens", {B, T}, i32}},
      .dims = {B, T, D, H, DH, F, V},  // the legend's order
  };
}
