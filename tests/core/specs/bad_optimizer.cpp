// Test spec: an optimizer setting that cannot work (Nesterov without momentum). Tracing reports
// it at the NNDNA_SPEC line; before, the diagram silently fell back to forward-only metrics.
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) { return mean(m.l(in["x"])); }

}  // namespace

NNDNA_SPEC(Net) {
  return {.label = "bad optimizer", .loss = lossFn, .inputs = {{"x", {8, 4}}},
          .optimizer = SGD{.lr = 0.1, .nesterov = true}};
}
