// A multilayer perceptron: feature vectors through a stack of equal-width hidden layers to class
// logits (or, for regression, to predicted values).
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

constexpr int B = 64;          // samples per batch
constexpr int IN = 16;         // input features
constexpr int HIDDEN = 128;    // hidden width
constexpr int N_LAYERS = 4;    // Linear layers in all (input, hidden ones, output)
constexpr int OUT = 10;        // classes (or predicted values)

struct Mlp : Module {
  Linear input{"input", IN, HIDDEN};
  std::vector<Linear> hidden = list<Linear>("hidden", N_LAYERS - 2, HIDDEN, HIDDEN);
  Linear output{"output", HIDDEN, OUT};
};

Tensor forward(const Mlp& m, Tensor x) {
  Tensor h = relu(m.input(x));                             // [B, HIDDEN]
  for (const Linear& layer : m.hidden) h = relu(layer(h));  // [B, HIDDEN]
  return m.output(h);                                      // [B, OUT]
}

Tensor lossFn(Mlp& m, const Inputs& in) {
  return crossEntropy(forward(m, in["x"]), in["labels"]);  //[!regression]
  //[regression] return mean(square(sub(forward(m, in["x"]), in["y"])));
}

Tensor predictFn(Mlp& m, const Inputs& in) { return forward(m, in["x"]); }

}  // namespace

NNDNA_SPEC(Mlp) {
  return {
      .label = "MLP classifier",
      .description =
          "A multilayer perceptron of 4 Linear layers: 16 input features, hidden layers of 128 "
          "ReLU units, 10 output classes. Cross-entropy on batches of 64, Adam at 1e-3.",
      .loss = lossFn,
      .inputs = {{"x", {B, IN}}, {"labels", {B}, i32}},  //[!regression]
      //[regression] .inputs = {{"x", {B, IN}}, {"y", {B, OUT}}},
      .optimizer = Adam{.lr = 1e-3},
      .predict = predictFn,
      .predictInputs = {{"x", {B, IN}}},
      .dims = {{B, "B", "batch"}, {IN, "F", "input features"}, {HIDDEN, "H", "hidden"}, {OUT, "K", "outputs"}},
  };
}
