// Like train_tiny, but the head's output is captured, so dead-code elimination must keep it.
#include <nndna/nndna.hpp>

using namespace nndna;

struct Captured : Module {
  Linear fc{"fc", 3, 2};
  Linear head{"head", 3, 4};
};

Tensor lossFn(Captured& m, const Inputs& in) {
  Tensor h = m.fc(in["x"]);
  capture("head_out", m.head(in["x"]));
  return mean(square(sub(h, in["y"])));
}

NNDNA_SPEC(Captured) {
  return {.label = "captured", .loss = lossFn, .inputs = {{"x", {4, 3}}, {"y", {4, 2}}},
          .optimizer = SGD{.lr = 0.1}};
}
