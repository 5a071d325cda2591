// Two sides that share no box: training and inference each reach the layer through a helper of
// their own (no function both forwards call), so no key matches and the diagram draws the
// training side, with the inference side drawn alone beside it (Diagram::inferAlone).
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

struct Net : Module {
  Linear fc{"fc", 4, 2};
};

Tensor trainPath(Net& m, const Tensor& x) { return relu(m.fc(x)); }
Tensor inferPath(Net& m, const Tensor& x) { return sigmoid(m.fc(x)); }

Tensor lossFn(Net& m, const Inputs& in) { return mean(trainPath(m, in["x"])); }
Tensor predictFn(Net& m, const Inputs& in) { return inferPath(m, in["x"]); }

}  // namespace

NNDNA_SPEC(Net) {
  return {.label = "disjoint sides",
          .loss = lossFn,
          .inputs = {{"x", {8, 4}}},
          .predict = predictFn,
          .predictInputs = {{"x", {8, 4}}}};
}
