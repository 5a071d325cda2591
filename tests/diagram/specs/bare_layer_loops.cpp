// Loops whose body is one call of a built-in layer, the PyTorch user's `for layer in
// self.layers: x = layer(x)`: the line issues every op from the same call instruction, so only
// the list element its parameters come from says the line ran again. Beside them, one line that
// calls two elements of a list (two call instructions) stays one box.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 4;
constexpr int T = 6;
constexpr int D = 16;
constexpr int K = 10;

struct Stack : Module {
  std::vector<Linear> fcs = list<Linear>("fcs", 5, D, D);
  std::vector<TransformerEncoderLayer> layers = list<TransformerEncoderLayer>("layers", 3, D, 2);
  std::vector<Linear> pair = list<Linear>("pair", 2, D, D);
  Linear head{"head", D, K};
};

Tensor encode(const Stack& m, Tensor x) {
  for (const Linear& l : m.fcs) x = l(x);
  for (const TransformerEncoderLayer& layer : m.layers) x = layer(x);
  x = m.pair[1](m.pair[0](x));
  return m.head(x);
}

Tensor lossFn(Stack& m, const Inputs& in) { return mean(square(encode(m, in["x"]))); }

}  // namespace

NNDNA_SPEC(Stack) {
  return {
      .label = "Loops of bare layer calls",
      .loss = lossFn,
      .inputs = {{"x", {B, T, D}}},
      .optimizer = Adam{},
      .dims = {{B, "B", "batch"}, {T, "T", "steps"}, {D, "D", "width"}, {K, "K", "classes"}},
  };
}
