// A transformer encoder (BERT-style): token and position embeddings, a stack of post-norm blocks
// of bidirectional self-attention and a GELU MLP, and a pooled first ([CLS]) token that a linear
// head classifies — or, as a masked language model, every position predicted over the vocabulary.
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

namespace {

constexpr int B = 16;          // sequences per batch
constexpr int T = 128;         // tokens per sequence
constexpr int V = 8000;        // vocabulary size
constexpr int D = 256;         // model width
constexpr int H = 8;           // attention heads
constexpr int DH = D / H;      // head width
constexpr int F = 4 * D;       // MLP hidden width
constexpr int N_LAYERS = 4;    // encoder blocks
constexpr int CLASSES = 2;     // labels of the sequence classifier  //[!mlm]
//[mlm] constexpr int TYPES = 2;       // segment (token type) ids: sentence A or B

struct Attention : Module {
  Linear q{"q", D, D};
  Linear k{"k", D, D};
  Linear v{"v", D, D};
  Linear proj{"proj", D, D};
};

struct Block : Module {
  Attention attn = child<Attention>("attn");
  LayerNorm norm1{"norm1", D};
  Linear up{"up", D, F};
  Linear down{"down", F, D};
  LayerNorm norm2{"norm2", D};
};

struct Encoder : Module {
  Tensor tokEmb = param("tok_emb", {V, D}, {.init = init::normal(0.02)});
  Embedding posEmb{"pos_emb", T, D};
  //[mlm] Embedding typeEmb{"type_emb", TYPES, D};
  LayerNorm embNorm{"emb_norm", D};
  std::vector<Block> layers = list<Block>("layers", N_LAYERS);
  Linear pooler{"pooler", D, D};
  Linear classifier{"classifier", D, CLASSES};  //[!mlm]
};

// Self-attention over the whole sequence (no mask: every token sees every other).
Tensor attention(const Attention& a, Tensor x) {
  Tensor q = splitHeads(a.q(x), H);  // [B, H, T, DH]
  Tensor k = splitHeads(a.k(x), H);
  Tensor v = splitHeads(a.v(x), H);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));  // [B, H, T, T]
  return a.proj(mergeHeads(matmul(softmax(scores), v)));                     // [B, T, D]
}

// Post-norm residual block (normalise after each residual sum, as BERT does).
Tensor block(const Block& b, Tensor x) {
  x = b.norm1(add(x, attention(b.attn, x)));
  return b.norm2(add(x, b.down(gelu(b.up(x)))));
}

Tensor encode(const Encoder& m, const Inputs& in) {
  Tensor h = add(embedding(m.tokEmb, in["tokens"]), m.posEmb(arange(T)));  // [B, T, D]
  //[mlm] h = add(h, m.typeEmb(in["segments"]));
  h = m.embNorm(h);
  for (const Block& layer : m.layers) h = block(layer, h);
  return h;  // [B, T, D]
}

// The first token's final state through a tanh layer: the sequence's summary.
Tensor pooled(const Encoder& m, Tensor h) {
  return tanh(m.pooler(reshape(narrow(h, 1, 0, 1), {B, D})));  // [B, D]
}

Tensor lossFn(Encoder& m, const Inputs& in) {
  return crossEntropy(m.classifier(pooled(m, encode(m, in))), in["labels"]);  //[!mlm]
  //[mlm] Tensor logits = matmul(encode(m, in), swapAxes(m.tokEmb, -1, -2));  // [B, T, V], tied
  //[mlm] return crossEntropy(reshape(logits, {-1, V}), reshape(in["targets"], {-1}));
}

Tensor predictFn(Encoder& m, const Inputs& in) {
  return m.classifier(pooled(m, encode(m, in)));  // [B, CLASSES]  //[!mlm]
  //[mlm] return pooled(m, encode(m, in));  // [B, D]: the sequence embedding
}

}  // namespace

NNDNA_SPEC(Encoder) {
  return {
      .label = "Transformer encoder classifier",
      .description =
          "A BERT-style encoder of 4 post-norm blocks (width 256, 8 heads of 32, GELU MLP of "
          "1024) over 128-token sequences from an 8,000-token vocabulary, with learned positions. "
          "The pooled first token is classified into 2 labels; cross-entropy on batches of 16, "
          "AdamW.",
      .loss = lossFn,
      .inputs = {{"tokens", {B, T}, i32}, {"labels", {B}, i32}},  //[!mlm]
      //[mlm] .inputs = {{"tokens", {B, T}, i32}, {"segments", {B, T}, i32}, {"targets", {B, T}, i32}},
      .optimizer = AdamW{.lr = 1e-4, .weightDecay = 0.01},
      .predict = predictFn,
      .predictInputs = {{"tokens", {B, T}, i32}},  //[!mlm]
      //[mlm] .predictInputs = {{"tokens", {B, T}, i32}, {"segments", {B, T}, i32}},
      .dims = {{B, "B", "batch"},
               {T, "T", "sequence"},
               {D, "D", "model width"},
               {H, "H", "heads"},
               {DH, "Dh", "head width"},
               {F, "F", "MLP hidden"},
               {V, "V", "vocabulary"}},
  };
}
