// A spec with a shape error: the second layer expects 32 features, the first gives 64.
#include <nndna/nndna.hpp>

using namespace nndna;

struct TwoLayers : Module {
  Linear l1{"l1", 16, 64};
  Linear l2{"l2", 32, 8};
};

Tensor lossFn(TwoLayers& m, const Inputs& in) {
  Tensor h = relu(m.l1(in["x"]));
  return mean(m.l2(h));
}

NNDNA_SPEC(TwoLayers) {
  return {.label = "shape error", .loss = lossFn, .inputs = {{"x", {4, 16}}}};
}
