// Test spec: ops issued three user functions deep, through a layer, and from loops. The tests
// assert exact line numbers below — keep the lines where they are (or update the constants in
// callsite_test.cpp).
#include <nndna/nndna.hpp>

using namespace nndna;

struct Nested : Module {
  Linear proj{"proj", 8, 8};
};

Tensor inner(Nested& m, Tensor x) {
  return relu(m.proj(x));  // line 13: matmul + add (in the layer) + relu
}

Tensor middle(Nested& m, Tensor x) {
  return inner(m, x);  // line 17
}

Tensor outer(Nested& m, Tensor x) {
  Tensor y = middle(m, x);  // line 21
  return y;
}

Tensor lossFn(Nested& m, const Inputs& in) {
  Tensor h = outer(m, in["x"]);  // line 26
  Tensor twice = add(tanh(h), sigmoid(h));  // line 27: two calls on one line
  for (int i = 0; i < 3; i++) twice = relu(twice);  // line 28: one call repeated by a loop
  return mean(twice);  // line 29
}

NNDNA_SPEC(Nested) {
  return {.label = "nested calls", .loss = lossFn, .inputs = {{"x", {4, 8}}}};
}
