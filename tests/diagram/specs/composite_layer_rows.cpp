// Built-in layers made of several ops, each called once from its own line: self-attention, an
// LSTM and a BatchNorm1d over the sequence's channels. Each summary row holds all of its
// layer's ops (docs/summary.md, "How an op is attributed to a module").
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 4;
constexpr int T = 5;
constexpr int E = 8;
constexpr int H = 6;

struct Model : Module {
  MultiheadAttention attn{"attn", E, 2};
  LSTM rnn{"rnn", E, H};
  BatchNorm1d bn{"bn", H};
  Linear head{"head", H, 1};
};

Tensor forward(const Model& m, Tensor x) {
  Tensor a = m.attn(x, x, x);
  auto [h, state] = m.rnn(a, {});  // with its last state: the row still shows the output
  Tensor n = m.bn(swapAxes(h, 1, 2));
  return m.head(swapAxes(n, 1, 2));
}

Tensor lossFn(Model& m, const Inputs& in) { return mean(square(sub(forward(m, in["x"]), in["y"]))); }

}  // namespace

NNDNA_SPEC(Model) {
  return {
      .label = "Composite layers",
      .loss = lossFn,
      .inputs = {{"x", {B, T, E}}, {"y", {B, T, 1}}},
      .optimizer = Adam{},
  };
}
