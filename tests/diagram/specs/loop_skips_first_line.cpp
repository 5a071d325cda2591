// One call of a function whose loop skips its first line in the first round and is followed by
// more code: a VGG-like stack that pools before every stage but the first, then a head. The lines
// go back at each round, as they would at new calls, but the head after the loop says it is one
// call: the rounds fold as before.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 2;
constexpr int C = 3;
constexpr int S = 16;

struct Stage : Module {
  Conv2d a{"a", C, C, 3, {.padding = 1}};
  Conv2d b{"b", C, C, 3, {.padding = 1}};
};

struct Net : Module {
  std::vector<Stage> stages = list<Stage>("stages", 3);
  Linear fc{"fc", C * (S / 4) * (S / 4), 10};
};

Tensor forward(const Net& m, Tensor x) {
  for (std::size_t i = 0; i < m.stages.size(); ++i) {
    if (i > 0) x = maxPool2d(x, 2);
    x = relu(m.stages[i].a(x));
    x = relu(m.stages[i].b(x));
  }
  return m.fc(flatten(x, 1));
}

Tensor lossFn(Net& m, const Inputs& in) { return mean(forward(m, in["x"])); }

}  // namespace

NNDNA_SPEC(Net) {
  return {
      .label = "Loop skips its first line",
      .loss = lossFn,
      .inputs = {{"x", {B, C, S, S}}},
      .optimizer = Adam{},
      .dims = {{B, "B", "batch"}, {C, "C", "channels"}, {S, "S", "size"}},
  };
}
