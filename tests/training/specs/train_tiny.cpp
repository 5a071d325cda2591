// A linear regression with a head whose output is unused (dead code) — hand-counted in
// tests/training/dce_kernels_test.cpp.
#include <nndna/nndna.hpp>

using namespace nndna;

struct Tiny : Module {
  Linear fc{"fc", 3, 2};
  Linear head{"head", 3, 4};
};

Tensor lossFn(Tiny& m, const Inputs& in) {
  Tensor h = m.fc(in["x"]);
  Tensor unused = m.head(in["x"]);
  (void)unused;
  return mean(square(sub(h, in["y"])));
}

NNDNA_SPEC(Tiny) {
  return {.label = "tiny", .loss = lossFn, .inputs = {{"x", {4, 3}}, {"y", {4, 2}}},
          .optimizer = SGD{.lr = 0.1}};
}
