// A spec that does not compile: `relu` takes one tensor.
#include <nndna/nndna.hpp>

using namespace nndna;

struct One : Module {
  Linear l1{"l1", 4, 4};
};

Tensor lossFn(One& m, const Inputs& in) {
  return mean(relu(m.l1(in["x"]), 2));
}

NNDNA_SPEC(One) {
  return {.label = "compile error", .loss = lossFn, .inputs = {{"x", {2, 4}}}};
}
