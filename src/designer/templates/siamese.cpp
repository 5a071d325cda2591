// A siamese network trained contrastively: one shared encoder embeds two views of each sample;
// the embeddings are normalised and every pair is scored by cosine similarity, and each sample's
// own pair must win against the rest of the batch (InfoNCE, as in SimCLR and CLIP).
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

constexpr int B = 64;                 // pairs per batch
constexpr int IN = 128;               // input features per view
constexpr int HIDDEN = 256;           // encoder width
constexpr int EMBED = 32;             // embedding size
constexpr int N_LAYERS = 3;           // Linear layers of the encoder
constexpr double TEMPERATURE = 0.1;   // similarity sharpness

struct Encoder : Module {
  Linear input{"input", IN, HIDDEN};
  std::vector<Linear> hidden = list<Linear>("hidden", N_LAYERS - 2, HIDDEN, HIDDEN);
  Linear output{"output", HIDDEN, EMBED};
};

struct Siamese : Module {
  Encoder encoder = child<Encoder>("encoder");
};

// [B, IN] -> unit-length embeddings [B, EMBED].
Tensor embed(const Encoder& e, Tensor x) {
  Tensor h = relu(e.input(x));
  for (const Linear& layer : e.hidden) h = relu(layer(h));
  Tensor z = e.output(h);
  return div(z, sqrt(add(sum(square(z), -1, {.keepDims = true}), 1e-8)));
}

Tensor lossFn(Siamese& m, const Inputs& in) {
  Tensor a = embed(m.encoder, in["viewA"]);
  Tensor b = embed(m.encoder, in["viewB"]);
  Tensor similarity = div(matmul(a, swapAxes(b, 0, 1)), TEMPERATURE);  // [B, B]
  return crossEntropy(similarity, arange(B));  // pair i matches column i
}

Tensor predictFn(Siamese& m, const Inputs& in) { return embed(m.encoder, in["x"]); }

}  // namespace

NNDNA_SPEC(Siamese) {
  return {
      .label = "Siamese contrastive encoder",
      .description =
          "A siamese network: one MLP encoder (3 Linear layers, 256 ReLU units, 32-d output) "
          "embeds both views of 64 pairs of 128-feature inputs; unit-length embeddings are "
          "compared by cosine similarity at temperature 0.1 with the InfoNCE loss. Adam at 1e-3.",
      .loss = lossFn,
      .inputs = {{"viewA", {B, IN}}, {"viewB", {B, IN}}},
      .optimizer = Adam{.lr = 1e-3},
      .predict = predictFn,
      .predictInputs = {{"x", {B, IN}}},
      .dims = {{B, "B", "batch"}, {IN, "F", "features"}, {HIDDEN, "H", "hidden"}, {EMBED, "E", "embedding"}},
  };
}
