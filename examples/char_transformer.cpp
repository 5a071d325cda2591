// A character-level transformer language model with rotary positions and tied embeddings.
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

// The examples are linked into one program: an anonymous namespace keeps each file's model types
// (every transformer has a `Block`) from colliding with another file's.
namespace {

constexpr int B = 64;         // sequences per batch
constexpr int T = 256;        // characters of context
constexpr int V = 96;         // printable ASCII characters
constexpr int D = 192;        // model width
constexpr int H = 6;          // attention heads
constexpr int DH = D / H;     // head width
constexpr int F = 4 * D;      // MLP hidden width
constexpr int N_LAYERS = 4;
constexpr double DROPOUT = 0.1;

// RMSNorm and bias-free projections, as in LLaMA-style models.
constexpr LinearOptions NO_BIAS{.bias = false};

struct Block : Module {
  RMSNorm norm1{"norm1", D};
  Linear q{"q", D, D, NO_BIAS};
  Linear k{"k", D, D, NO_BIAS};
  Linear v{"v", D, D, NO_BIAS};
  Linear proj{"proj", D, D, NO_BIAS};
  RMSNorm norm2{"norm2", D};
  Linear fc{"fc", D, F, NO_BIAS};
  Linear fcOut{"fc_out", F, D, NO_BIAS};
};

struct CharTransformer : Module {
  // A raw table, not an Embedding: the output projection reuses it (tied embeddings).
  Tensor tokEmb = param("tok_emb", {V, D}, {.init = init::normal(0.02)});
  std::vector<Block> layers = list<Block>("layers", N_LAYERS);
  RMSNorm normF{"norm_f", D};
};

// Causal self-attention; positions enter only through RoPE on the queries and keys.
Tensor attention(const Block& b, Tensor x, bool train) {
  auto [q, k] = rope(splitHeads(b.q(x), H), splitHeads(b.k(x), H));       // [B, H, T, DH]
  Tensor v = splitHeads(b.v(x), H);                                          // [B, H, T, DH]
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));  // [B, H, T, T]
  Tensor y = b.proj(mergeHeads(matmul(softmaxCausal(scores), v)));           // [B, T, D]
  return train ? dropout(y, DROPOUT) : y;
}

Tensor mlp(const Block& b, Tensor x, bool train) {
  Tensor y = b.fcOut(gelu(b.fc(x)));
  return train ? dropout(y, DROPOUT) : y;
}

Tensor block(const Block& b, Tensor x, bool train) {
  x = add(x, attention(b, b.norm1(x), train));
  return add(x, mlp(b, b.norm2(x), train));
}

// chars [B, T] -> next-character logits [B, T, V].
Tensor logitsOf(const CharTransformer& m, Tensor chars, bool train) {
  Tensor h = embedding(m.tokEmb, chars);  // [B, T, D]
  for (const Block& layer : m.layers) h = block(layer, h, train);
  return matmul(m.normF(h), swapAxes(m.tokEmb, -1, -2));  // [B, T, V]
}

Tensor lossFn(CharTransformer& m, const Inputs& in) {
  Tensor logits = logitsOf(m, in["chars"], true);
  return crossEntropy(reshape(logits, {-1, V}), reshape(in["targets"], {-1}));
}

// Samples the character that follows each sequence.
Tensor predictFn(CharTransformer& m, const Inputs& in) {
  Tensor logits = logitsOf(m, in["chars"], false);
  return categorical(narrow(logits, 1, T - 1, 1));  // [B, 1]
}

}  // namespace

NNDNA_SPEC(CharTransformer) {
  return {
      .label = "Char-level transformer with RoPE",
      .description =
          "A 4-layer decoder-only transformer over 96 printable characters: width 192, 6 heads of "
          "32 with rotary position embeddings on queries and keys, causal attention, RMSNorm and "
          "bias-free projections, GELU MLP of 768, dropout 0.1 while training. The input "
          "embedding is tied to the output. Trained on 64 × 256-character windows; inference "
          "samples the next character.",
      .loss = lossFn,
      .inputs = {{"chars", {B, T}, i32}, {"targets", {B, T}, i32}},
      .optimizer = AdamW{.lr = lr::linear(3e-4, 3e-5, 5000), .weightDecay = 0.1},
      .predict = predictFn,
      .predictInputs = {{"chars", {B, T}, i32}},
      .dims = {{B, "B", "batch"},
               {T, "T", "context"},
               {D, "D", "model width"},
               {H, "H", "heads"},
               {DH, "Dh", "head width"},
               {F, "F", "MLP hidden"},
               {V, "V", "characters"}},
  };
}
