// A decoder whose attention projects q, k and v with one fused matrix and splits the result
// (PyTorch's nn.MultiheadAttention `in_proj`): every piece of the split feeds its own line.
#include <nndna/nndna.hpp>

#include <cmath>

namespace {

using namespace nndna;

constexpr int B = 8;       // sequences per batch
constexpr int T = 64;      // context (B·T = 512 is no declared size)
constexpr int V = 1000;    // vocabulary
constexpr int D = 256;     // model width
constexpr int H = 8;       // heads
constexpr int DH = D / H;  // head width
constexpr int F = 4 * D;   // MLP hidden width
constexpr int N_LAYERS = 3;

struct Block : Module {
  LayerNorm ln1{"ln1", D};
  Linear inProj{"in_proj", D, 3 * D};
  Linear outProj{"out_proj", D, D};
  LayerNorm ln2{"ln2", D};
  Linear fc{"fc", D, F};
  Linear proj{"proj", F, D};
};

struct Decoder : Module {
  Embedding tokEmb{"tok_emb", V, D};
  std::vector<Block> layers = list<Block>("layers", N_LAYERS);
  Linear head{"head", D, V};
};

Tensor attention(const Block& b, Tensor x) {
  std::vector<Tensor> qkv = split(b.inProj(x), {D, D, D}, -1);
  Tensor q = splitHeads(qkv[0], H);
  Tensor k = splitHeads(qkv[1], H);
  Tensor v = splitHeads(qkv[2], H);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));
  return b.outProj(mergeHeads(matmul(softmaxCausal(scores), v)));
}

Tensor block(const Block& b, Tensor x) {
  x = add(x, attention(b, b.ln1(x)));
  return add(x, b.proj(gelu(b.fc(b.ln2(x)))));
}

Tensor logitsOf(const Decoder& m, Tensor tokens) {
  Tensor h = m.tokEmb(tokens);
  for (const Block& layer : m.layers) h = block(layer, h);
  return m.head(h);
}

Tensor lossFn(Decoder& m, const Inputs& in) {
  return crossEntropy(reshape(logitsOf(m, in["tokens"]), {-1, V}), reshape(in["targets"], {-1}));
}

Tensor predictFn(Decoder& m, const Inputs& in) { return logitsOf(m, in["tokens"]); }

}  // namespace

NNDNA_SPEC(Decoder) {
  return {
      .label = "Decoder with a fused QKV projection",
      .description = "Three pre-LayerNorm blocks whose attention splits one fused projection.",
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
               {F, "F", "MLP hidden"},
               {V, "V", "vocabulary"}},
  };
}
