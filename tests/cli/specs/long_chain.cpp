// A chain long enough that `nndna ir` writes its IR compact (more than 100,000 ops in all): a
// matmul and a tanh, 30,000 times, in the loss (then its mean) and in predict.
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

struct Chain : Module {
  Tensor w = param("w", {8, 8});
};

Tensor predictFn(Chain& m, const Inputs& in) {
  Tensor x = in["x"];
  for (int i = 0; i < 30000; ++i) x = tanh(matmul(x, m.w));
  return x;
}

Tensor lossFn(Chain& m, const Inputs& in) { return mean(predictFn(m, in)); }

NNDNA_SPEC(Chain) {
  return {.label = "A long chain", .loss = lossFn, .inputs = {{"x", {2, 8}}}, .predict = predictFn,
          .predictInputs = {{"x", {2, 8}}}};
}

}  // namespace
