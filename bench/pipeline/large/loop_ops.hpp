// A loop of a 5-op body, run LOOP_ITERATIONS times (issue 13 point 1): 5 × LOOP_ITERATIONS forward
// ops whose picture folds to a handful of boxes, plus its training graph (backward and Adam).
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

struct Net : Module {
  Tensor w = param("w", {16, 16});
};

Tensor body(Net& m, Tensor x) {
  Tensor h = matmul(x, m.w);
  h = relu(h);
  h = add(h, x);
  h = mul(h, 0.5);
  return tanh(h);
}

Tensor predictFn(Net& m, const Inputs& in) {
  Tensor x = in["x"];
  for (int i = 0; i < LOOP_ITERATIONS; ++i) x = body(m, x);
  return x;
}

Tensor lossFn(Net& m, const Inputs& in) { return mean(predictFn(m, in)); }

NNDNA_SPEC(Net) {
  return {.label = "A long loop", .loss = lossFn, .inputs = {{"x", {4, 16}}}, .predict = predictFn,
          .predictInputs = {{"x", {4, 16}}}};
}

}  // namespace
