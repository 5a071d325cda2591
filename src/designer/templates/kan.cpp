// A Kolmogorov–Arnold network: every edge is a learnable function — a piecewise-linear spline
// over a grid of knots plus a SiLU term — instead of a weight; a node sums its edges.
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

constexpr int B = 256;         // samples per batch
constexpr int IN = 2;          // input features
constexpr int HIDDEN = 16;     // hidden width
constexpr int N_LAYERS = 3;    // KAN layers in all
constexpr int OUT = 1;         // outputs
constexpr int KNOTS = 12;      // spline grid points on [-1, 1]

// One KAN layer of `in`·`out` edges: spline coefficients per knot and a SiLU base weight.
struct KanLayer : Module {
  KanLayer(int in, int out)
      : coeff(param("coeff", {in * KNOTS, out}, {.init = init::normal(0.1)})), base(param("base", {in, out})) {}
  Tensor coeff;  // [in·KNOTS, out]
  Tensor base;   // [in, out]
};

struct Kan : Module {
  KanLayer first = child<KanLayer>("first", IN, HIDDEN);
  std::vector<KanLayer> hidden = list<KanLayer>("hidden", N_LAYERS - 2, HIDDEN, HIDDEN);
  KanLayer last = child<KanLayer>("last", HIDDEN, OUT);
};

// x [B, in] -> [B, out]. Hat functions: basis_k(x) = relu(1 - |x - g_k| / step) for knots g_k.
Tensor kanLayer(const KanLayer& l, Tensor x) {
  const std::int64_t in = x.dim(-1);
  constexpr double step = 2.0 / (KNOTS - 1);
  Tensor knots = sub(mul(arange(KNOTS, f32), step), 1.0);                                  // [KNOTS]
  Tensor distance = abs(sub(reshape(x, {B, in, 1}), reshape(knots, {1, 1, KNOTS})));       // [B, in, KNOTS]
  Tensor basis = reshape(relu(sub(1.0, div(distance, step))), {B, in * KNOTS});            // [B, in·KNOTS]
  return add(matmul(basis, l.coeff), matmul(silu(x), l.base));
}

Tensor forward(const Kan& m, Tensor x) {
  Tensor h = kanLayer(m.first, x);
  for (const KanLayer& layer : m.hidden) h = kanLayer(layer, h);
  return kanLayer(m.last, h);
}

Tensor lossFn(Kan& m, const Inputs& in) { return mean(square(sub(forward(m, in["x"]), in["y"]))); }

Tensor predictFn(Kan& m, const Inputs& in) { return forward(m, in["x"]); }

}  // namespace

NNDNA_SPEC(Kan) {
  return {
      .label = "Kolmogorov–Arnold network",
      .description =
          "A KAN of 3 layers from 2 inputs through 16-wide hidden layers to 1 output: each edge a "
          "piecewise-linear spline over 12 knots plus a SiLU base term. MSE regression on batches "
          "of 256, Adam.",
      .loss = lossFn,
      .inputs = {{"x", {B, IN}}, {"y", {B, OUT}}},
      .optimizer = Adam{.lr = 1e-3},
      .predict = predictFn,
      .predictInputs = {{"x", {B, IN}}},
      .dims = {{B, "B", "batch"}, {IN, "I", "inputs"}, {HIDDEN, "H", "hidden"}, {KNOTS, "K", "knots"}},
  };
}
