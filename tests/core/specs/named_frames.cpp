// Test spec: ops issued from functions whose symbols differ in kind, so the frames' function names
// are checked for each: a global function, one in an anonymous namespace (a local symbol), a
// member function defined in its class and a function template (weak symbols), and a lambda.
// The tests assert exact line numbers below: keep the lines where they are (or update the
// constants in callsite_test.cpp).
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {
Tensor hidden(Tensor x) {
  return tanh(x);  // line 12
}
}  // namespace

struct FramedBlock : Module {
  Linear proj{"proj", 8, 8};
  Tensor fwd(Tensor x) { return proj(x); }  // line 18
};

template <int N>
Tensor repeated(Tensor x) {
  for (int i = 0; i < N; i++) x = sigmoid(x);  // line 23
  return x;
}

struct Framed : Module {
  FramedBlock block = child<FramedBlock>("block");
};

Tensor lossFn(Framed& m, const Inputs& in) {
  auto activate = [](Tensor t) { return relu(t); };  // line 32
  Tensor h = activate(m.block.fwd(in["x"]));  // line 33
  return mean(repeated<2>(hidden(h)));  // line 34
}

NNDNA_SPEC(Framed) {
  return {.label = "named frames", .loss = lossFn, .inputs = {{"x", {4, 8}}}};
}
