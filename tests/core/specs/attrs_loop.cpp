// Test spec: a loop of twelve iterations whose body gives its ops attributes (a scalar operand,
// a reshape's target, a swap of axes, a reduction's axis), for the sharing of repeated
// attribute blocks (attrs_interner_test.cpp).
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

constexpr int B = 4, D = 8;

struct Net : Module {
  Linear fc{"fc", D, D};
};

Tensor body(Net& m, Tensor x) {
  Tensor h = mul(m.fc(x), 0.5);
  h = reshape(h, {B, 2, D / 2});
  h = swapAxes(h, 1, 2);
  h = reshape(h, {B, D});
  return add(softmax(h, -1), 1.0);
}

Tensor forward(Net& m, const Inputs& in) {
  Tensor x = in["x"];
  for (int i = 0; i < 12; ++i) x = body(m, x);
  return x;
}

Tensor lossFn(Net& m, const Inputs& in) { return mean(forward(m, in)); }

}  // namespace

NNDNA_SPEC(Net) {
  return {.label = "Attributes in a loop",
          .loss = lossFn,
          .inputs = {{"x", {B, D}}},
          .optimizer = Adam{}};
}
