// A 3-block pre-LayerNorm transformer that captures each block's residual stream: `capture`
// names a tensor and computes nothing, so the diagram draws it as nothing.
#include <nndna/nndna.hpp>

#include <cmath>

namespace {

using namespace nndna;

constexpr int B = 8;
constexpr int T = 64;
constexpr int V = 500;  // B·T = 512 is no declared size
constexpr int D = 128;
constexpr int H = 4;
constexpr int DH = D / H;
constexpr int N_LAYERS = 3;

struct Block : Module {
  LayerNorm ln1{"ln1", D};
  Linear q{"q", D, D};
  Linear k{"k", D, D};
  Linear v{"v", D, D};
  Linear proj{"proj", D, D};
  LayerNorm ln2{"ln2", D};
  Linear fc{"fc", D, 4 * D};
  Linear fcOut{"fc_out", 4 * D, D};
};

struct Transformer : Module {
  Embedding tokEmb{"tok_emb", V, D};
  std::vector<Block> layers = list<Block>("layers", N_LAYERS);
  Linear head{"head", D, V};
};

Tensor attention(const Block& b, Tensor x) {
  Tensor q = splitHeads(b.q(x), H);
  Tensor k = splitHeads(b.k(x), H);
  Tensor v = splitHeads(b.v(x), H);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));
  return b.proj(mergeHeads(matmul(softmaxCausal(scores), v)));
}

Tensor block(const Block& b, Tensor x) {
  x = capture(b.path() + ".residual", x);
  x = add(x, attention(b, b.ln1(x)));
  return add(x, b.fcOut(gelu(b.fc(b.ln2(x)))));
}

Tensor logitsOf(const Transformer& m, Tensor tokens) {
  Tensor h = m.tokEmb(tokens);
  for (const Block& layer : m.layers) h = block(layer, h);
  return m.head(h);
}

Tensor lossFn(Transformer& m, const Inputs& in) {
  return crossEntropy(reshape(logitsOf(m, in["tokens"]), {-1, V}), reshape(in["targets"], {-1}));
}

Tensor predictFn(Transformer& m, const Inputs& in) { return logitsOf(m, in["tokens"]); }

}  // namespace

NNDNA_SPEC(Transformer) {
  return {
      .label = "Transformer with captured residuals",
      .description = "Three pre-LayerNorm blocks; each captures its input residual stream.",
      .loss = lossFn,
      .inputs = {{"tokens", {B, T}, i32}, {"targets", {B, T}, i32}},
      .optimizer = AdamW{},
      .predict = predictFn,
      .predictInputs = {{"tokens", {B, T}, i32}},
      .dims = {{B, "B", "batch"},
               {T, "T", "context"},
               {D, "D", "model width"},
               {H, "H", "heads"},
               {DH, "Dh", "head width"},
               {V, "V", "vocabulary"}},
  };
}
