// A loop over a list of layers inside a loop that repeats the list (weights shared across the
// outer iterations, as ALBERT or a Universal Transformer does): `×3` inside `×2`. The inner loop's
// weights are read again by the outer loop's next iteration, which is the same code run again.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 8;
constexpr int D = 16;

struct Shared : Module {
  std::vector<Linear> layers = list<Linear>("layers", 3, D, D);
};

Tensor encode(const Shared& m, Tensor x) {
  for (int round = 0; round < 2; ++round) {
    for (const Linear& layer : m.layers) x = layer(x);
    x = relu(x);
  }
  return x;
}

Tensor lossFn(Shared& m, const Inputs& in) { return mean(square(encode(m, in["x"]))); }

}  // namespace

NNDNA_SPEC(Shared) {
  return {
      .label = "Layers shared across rounds",
      .loss = lossFn,
      .inputs = {{"x", {B, D}}},
      .optimizer = Adam{},
      .dims = {{B, "B", "batch"}, {D, "D", "width"}},
  };
}
