// A 96-layer decoder-only transformer at GPT-3 / GPT-4 scale: width 16384, 128 heads, an 8192-token
// context and a 100,000-token vocabulary (about 311 billion parameters). Traced, never run: the
// benchmarks use it to show how tracing and diagrams scale.
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

// The examples are linked into one program: an anonymous namespace keeps each file's model types
// from colliding with another file's.
namespace {

constexpr int B = 1;           // one sequence per step
constexpr int T = 8192;        // context length
constexpr int V = 100000;      // vocabulary
constexpr int D = 16384;       // model width
constexpr int H = 128;         // attention heads
constexpr int DH = D / H;      // head width (128)
constexpr int F = 4 * D;       // MLP hidden width
constexpr int N_LAYERS = 96;

// Parameters, by hand (every Linear has a bias, LayerNorm has weight and bias):
//   token embedding (tied to the output)   V·D   = 100000·16384     =   1,638,400,000
//   learned positions                      T·D   = 8192·16384       =     134,217,728
//   per layer: ln1 + ln2                   2·2D                     =          65,536
//              q, k, v, proj               4·(D·D + D)              =   1,073,807,360
//              fc                          D·F + F                  =   1,073,807,360
//              proj                        F·D + D                  =   1,073,758,208
//              layer total                 12·D² + 13·D             =   3,221,438,464
//   96 layers                                                       = 309,258,092,544
//   final LayerNorm                        2·D                      =          32,768
//   total                                                           = 311,030,743,040

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

struct Decoder : Module {
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
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));  // [B, H, T, T]
  Tensor y = matmul(softmaxCausal(scores), v);                                 // [B, H, T, DH]
  return a.proj(mergeHeads(y));                                                // [B, T, D]
}

Tensor mlp(const Mlp& m, Tensor x) { return m.proj(gelu(m.fc(x))); }

// Pre-LayerNorm residual block.
Tensor block(const Block& b, Tensor x) {
  x = add(x, attention(b.attn, b.ln1(x)));
  return add(x, mlp(b.mlp, b.ln2(x)));
}

// tokens [B, T] -> next-token logits [B, T, V].
Tensor decode(const Decoder& m, Tensor tokens) {
  Tensor h = add(embedding(m.tokEmb, tokens), m.posEmb(arange(T)));  // [B, T, D]
  for (const Block& layer : m.layers) h = block(layer, h);
  h = m.lnF(h);
  return matmul(h, swapAxes(m.tokEmb, -1, -2));  // [B, T, V]
}

Tensor lossFn(Decoder& m, const Inputs& in) {
  Tensor logits = decode(m, in["tokens"]);
  return crossEntropy(reshape(logits, {-1, V}), reshape(in["targets"], {-1}));
}

Tensor predictFn(Decoder& m, const Inputs& in) { return decode(m, in["tokens"]); }

}  // namespace

NNDNA_SPEC(Decoder) {
  return {
      .label = "96-layer decoder (311B)",
      .description =
          "A GPT-style decoder-only transformer at frontier scale: 96 pre-LayerNorm blocks of "
          "width 16384 with 128 causal attention heads of 128 and a GELU MLP of 65536, learned "
          "positions over an 8192-token context, a 100,000-token vocabulary tied to the output. "
          "One sequence per step; about 311 billion parameters.",
      .loss = lossFn,
      .inputs = {{"tokens", {B, T}, i32}, {"targets", {B, T}, i32}},
      .optimizer = AdamW{.lr = lr::cosineAnnealing(1.5e-4, 1.5e-5, 300000),
                         .weightDecay = 0.1,
                         .beta2 = 0.95},
      .predict = predictFn,
      .predictInputs = {{"tokens", {B, T}, i32}},
      .dims = {{B, "B", "batch"},
               {T, "T", "context"},
               {D, "D", "model width"},
               // 128 is both the head count and the head width: one dim name for both.
               {H, "H", "heads (and head width)"},
               {F, "F", "MLP hidden"},
               {V, "V", "vocabulary"}},
  };
}
