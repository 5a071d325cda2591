// An unrolled tanh RNN over 4 steps with a per-step regression head.
#include <nndna/nndna.hpp>

using namespace nndna;

constexpr int B = 2, T = 4, IN = 3, HID = 5;

struct GradRnn : Module {
  Linear ih{"ih", IN, HID};
  Linear hh{"hh", HID, HID, {.bias = false, .init = {}, .decay = {}}};
  Linear head{"head", HID, 1};
};

static Tensor lossFn(GradRnn& m, const Inputs& in) {
  Tensor h = zeros({B, HID});
  std::vector<Tensor> outs;
  for (int t = 0; t < T; ++t) {
    Tensor xt = reshape(narrow(in["x"], 1, t, 1), {B, IN});
    h = tanh(add(m.ih(xt), m.hh(h)));
    outs.push_back(h);
  }
  Tensor y = m.head(stack(outs, 1));  // [B, T, 1]
  return mean(square(sub(y, in["y"])));
}

NNDNA_SPEC(GradRnn) {
  return {.label = "grad check: unrolled RNN",
          .description = "tanh RNN unrolled over 4 steps",
          .loss = lossFn,
          .inputs = {{"x", {B, T, IN}}, {"y", {B, T, 1}}},
          .optimizer = Adam{},
          .predict = {},
          .predictInputs = {},
          .dims = {}};
}
