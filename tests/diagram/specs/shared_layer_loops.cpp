// Loops that call one layer again on one line, its weights shared by every iteration (ALBERT's
// `for i in range(6): x = self.layer(x)`): one call instruction per line, the same parameters
// every time.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 4;
constexpr int T = 6;
constexpr int D = 16;
constexpr int K = 10;

struct Shared : Module {
  Linear fc{"fc", D, D};
  TransformerEncoderLayer layer{"layer", D, 2};
  LSTM lstm{"lstm", D, D};
  Linear head{"head", D, K};
};

Tensor encode(const Shared& m, Tensor x) {
  for (int i = 0; i < 4; ++i) x = m.fc(x);
  for (int i = 0; i < 3; ++i) x = m.layer(x);
  for (int i = 0; i < 2; ++i) x = m.lstm(x);
  return m.head(x);
}

Tensor lossFn(Shared& m, const Inputs& in) { return mean(square(encode(m, in["x"]))); }

}  // namespace

NNDNA_SPEC(Shared) {
  return {
      .label = "Loops of one shared layer",
      .loss = lossFn,
      .inputs = {{"x", {B, T, D}}},
      .optimizer = Adam{},
      .dims = {{B, "B", "batch"}, {T, "T", "steps"}, {D, "D", "width"}, {K, "K", "classes"}},
  };
}
