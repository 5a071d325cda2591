// tensorgrad's README model: an MLP 1 -> 64 -> 64 -> 1 that fits y = sin(x).
#include <nndna/nndna.hpp>

using namespace nndna;

// Examples are linked into one program: an anonymous namespace keeps this file's types apart.
namespace {

constexpr int B = 256;
constexpr int HIDDEN = 64;

struct MLP : Module {
  Linear l1{"l1", 1, HIDDEN};
  Linear l2{"l2", HIDDEN, HIDDEN};
  Linear l3{"l3", HIDDEN, 1};
};

Tensor forward(MLP& m, Tensor x) {
  Tensor h = relu(m.l1(x));
  h = relu(m.l2(h));
  return m.l3(h);
}

Tensor lossFn(MLP& m, const Inputs& in) {
  Tensor d = sub(forward(m, in["x"]), in["y"]);
  return mean(mul(d, d));
}

Tensor predictFn(MLP& m, const Inputs& in) { return forward(m, in["x"]); }

NNDNA_SPEC(MLP) {
  return {
      .label = "MLP fits sin(x)",
      .description = "A 3-layer MLP (1 -> 64 -> 64 -> 1, ReLU) that approximates y = sin(x) over "
                     "[-pi, pi]. MSE loss, Adam at 5e-3, batches of 256 random samples.",
      .loss = lossFn,
      .inputs = {{"x", {B, 1}}, {"y", {B, 1}}},
      .optimizer = Adam{.lr = 5e-3},
      .predict = predictFn,
      .predictInputs = {{"x", {B, 1}}},
      .dims = {{B, "B", "batch"}, {HIDDEN, "H", "hidden"}},
  };
}

}  // namespace
