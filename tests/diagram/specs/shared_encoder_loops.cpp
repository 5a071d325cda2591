// One encoder with a loop over its layers, called where its weights are read again by another
// call: twice in the training loss (a siamese pair), and once per step of a sampling loop at
// inference. A layer read by the other call is still that loop's own layer.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 16;
constexpr int F = 12;
constexpr int W = 40;
constexpr int N_LAYERS = 3;
constexpr int STEPS = 5;

struct Encoder : Module {
  Linear inProj{"in_proj", F, W};
  std::vector<Linear> layers = list<Linear>("layers", N_LAYERS, W, W);
  Linear outProj{"out_proj", W, F};
};

Tensor encode(const Encoder& m, Tensor x) {
  Tensor h = m.inProj(x);
  for (const Linear& layer : m.layers) {
    h = layer(h);
    h = tanh(h);
  }
  return m.outProj(h);
}

Tensor lossFn(Encoder& m, const Inputs& in) {
  Tensor a = encode(m, in["a"]);
  Tensor b = encode(m, in["b"]);
  return mean(square(sub(a, b)));
}

Tensor predictFn(Encoder& m, const Inputs& in) {
  Tensor x = in["x"];
  for (int step = 0; step < STEPS; ++step) x = sub(x, mul(encode(m, x), 0.1));
  return x;
}

}  // namespace

NNDNA_SPEC(Encoder) {
  return {
      .label = "Shared encoder",
      .description = "One encoder: twice in the loss, five times in the sampling loop.",
      .loss = lossFn,
      .inputs = {{"a", {B, F}}, {"b", {B, F}}},
      .optimizer = Adam{},
      .predict = predictFn,
      .predictInputs = {{"x", {B, F}}},
      .dims = {{B, "B", "batch"}, {F, "F", "features"}, {W, "W", "width"}},
  };
}
