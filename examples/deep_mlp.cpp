// A deep MLP classifier whose hidden layers are a list walked by a one-line loop.
#include <nndna/nndna.hpp>

using namespace nndna;

// The examples are linked into one program: an anonymous namespace keeps each file's model types
// from colliding with another file's.
namespace {

constexpr int B = 128;        // images per batch
constexpr int PIXELS = 784;   // 28×28, flattened
constexpr int WIDTH = 256;
constexpr int DEPTH = 8;      // hidden layers of the same width
constexpr int CLASSES = 10;

struct DeepMLP : Module {
  Linear input{"input", PIXELS, WIDTH};
  std::vector<Linear> layers = list<Linear>("layers", DEPTH, WIDTH, WIDTH);  // "layers.3.weight"
  Linear head{"head", WIDTH, CLASSES};
};

// images [B, 784] -> logits [B, 10].
Tensor classify(const DeepMLP& m, Tensor images) {
  Tensor h = relu(m.input(images));
  for (const Linear& layer : m.layers) h = relu(layer(h));
  return m.head(h);
}

Tensor lossFn(DeepMLP& m, const Inputs& in) {
  return crossEntropy(classify(m, in["images"]), in["labels"]);
}

Tensor predictFn(DeepMLP& m, const Inputs& in) { return classify(m, in["images"]); }

}  // namespace

NNDNA_SPEC(DeepMLP) {
  return {
      .label = "Deep MLP (8 hidden layers)",
      .description =
          "A plain multilayer perceptron classifying flattened 28×28 digits: an input layer to "
          "width 256, then 8 identical ReLU layers of width 256 kept in a list and applied by a "
          "one-line loop, and a 10-way linear head. Cross-entropy, SGD with momentum 0.9, "
          "batches of 128.",
      .loss = lossFn,
      .inputs = {{"images", {B, PIXELS}}, {"labels", {B}, i32}},
      .optimizer = SGD{.lr = lr::cosineAnnealing(0.05, 0.0, 10000), .momentum = 0.9},
      .predict = predictFn,
      .predictInputs = {{"images", {B, PIXELS}}},
      .dims = {{B, "B", "batch"},
               {PIXELS, "P", "pixels"},
               {WIDTH, "W", "width"},
               {CLASSES, "K", "classes"}},
  };
}
