// Spec "eval_layers": one of each layer (see eval_layers.hpp); tests replace its loss.
#include "eval_layers.hpp"

using namespace nndna;
using eval_layers::Layers;

namespace {
Tensor lossFn(Layers& m, const Inputs& in) { return mean(m.linear(in["x"])); }
}  // namespace

NNDNA_SPEC(Layers) {
  return {.label = "Layers under test",
          .description = "One of each built-in layer, for the evaluator's tests.",
          .loss = lossFn,
          .inputs = {{"x", {2, 3}}},
          .optimizer = Adam{},
          .predict = {},
          .predictInputs = {},
          .dims = {}};
}
