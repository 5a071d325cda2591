// Test spec: keeps a tensor of the training trace in a module member and uses it in the
// inference trace, where its id names an unrelated tensor. It must be a TraceError at the line
// that uses it.
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

struct Stale : Module {
  Linear l{"l", 4, 4};
  Tensor kept;  // set while tracing the loss
};

Tensor lossFn(Stale& m, const Inputs& in) {
  m.kept = m.l(in["x"]);
  return mean(m.kept);
}

Tensor predictFn(Stale& m, const Inputs& in) {
  Tensor y = m.l(in["x"]);
  return add(y, m.kept);  // STALE: m.kept belongs to the training trace
}

}  // namespace

NNDNA_SPEC(Stale) {
  return {.label = "stale tensor", .loss = lossFn, .inputs = {{"x", {2, 4}}},
          .predict = predictFn, .predictInputs = {{"x", {2, 4}}}};
}
