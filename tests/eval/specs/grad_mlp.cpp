// A tiny classifier MLP with GELU, tanh and dropout, for the composite gradient check.
#include <nndna/nndna.hpp>

using namespace nndna;

struct GradMlp : Module {
  Linear l1{"l1", 3, 5};
  Linear l2{"l2", 5, 4};
  Linear l3{"l3", 4, 3};
};

static Tensor lossFn(GradMlp& m, const Inputs& in) {
  Tensor h = gelu(m.l1(in["x"]));
  h = dropout(tanh(m.l2(h)), 0.25);
  return crossEntropy(m.l3(h), in["label"]);
}

NNDNA_SPEC(GradMlp) {
  return {.label = "grad check: MLP",
          .description = "3 -> 5 -> 4 -> 3 classifier",
          .loss = lossFn,
          .inputs = {{"x", {4, 3}}, {"label", {4}, DType::i32}},
          .optimizer = Adam{},
          .predict = {},
          .predictInputs = {},
          .dims = {}};
}
