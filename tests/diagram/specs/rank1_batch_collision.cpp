// A sequence classifier whose batch equals its head width (B = Dh = 64): the batch heuristic
// tells them apart on tensors of rank 2 and more, but not on the rank-1 labels.
#include <nndna/nndna.hpp>

#include <cmath>

namespace {

using namespace nndna;

constexpr int B = 64;      // sequences per batch
constexpr int T = 32;      // tokens per sequence
constexpr int V = 1000;    // vocabulary
constexpr int D = 256;     // model width
constexpr int H = 4;       // heads
constexpr int DH = D / H;  // head width: 64 = B
constexpr int K = 10;      // classes

struct Classifier : Module {
  Embedding tokEmb{"tok_emb", V, D};
  Linear q{"q", D, D};
  Linear k{"k", D, D};
  Linear v{"v", D, D};
  Linear head{"head", D, K};
};

Tensor logitsOf(const Classifier& m, Tensor tokens) {
  Tensor x = m.tokEmb(tokens);
  Tensor q = splitHeads(m.q(x), H);
  Tensor k = splitHeads(m.k(x), H);
  Tensor v = splitHeads(m.v(x), H);
  Tensor y = matmul(softmax(mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH))), v);
  return m.head(mean(mergeHeads(y), 1));
}

Tensor lossFn(Classifier& m, const Inputs& in) {
  return crossEntropy(logitsOf(m, in["tokens"]), in["labels"]);
}

}  // namespace

NNDNA_SPEC(Classifier) {
  return {
      .label = "Classifier with B = Dh",
      .description = "One attention layer over 32 tokens, mean-pooled, 10 classes.",
      .loss = lossFn,
      .inputs = {{"tokens", {B, T}, i32}, {"labels", {B}, i32}},
      .optimizer = Adam{},
      .dims = {{B, "B", "batch"},
               {T, "T", "tokens"},
               {D, "D", "model width"},
               {H, "H", "heads"},
               {DH, "Dh", "head width"},
               {K, "K", "classes"},
               {V, "V", "vocabulary"}},
  };
}
