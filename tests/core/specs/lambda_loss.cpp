// Test spec: the loss is a lambda (as the docs suggest for a model only run for inference), so
// the call passes through the compiler's static invoker of the lambda (GCC's `_FUN`), a frame
// at the lambda's line with no code of the user's. The tests assert exact line numbers below:
// keep the lines where they are (or update the constants in callsite_test.cpp).
#include <nndna/nndna.hpp>

using namespace nndna;

struct LambdaLoss : Module {
  Linear fc{"fc", 4, 4};
};

Tensor forward(LambdaLoss& m, const Inputs& in) { return relu(m.fc(in["x"])); }  // line 13

NNDNA_SPEC(LambdaLoss) {
  return {.loss = [](LambdaLoss& m, const Inputs& in) { return mean(forward(m, in)); },  // line 16
          .inputs = {{"x", {2, 4}}}};
}
