// A Kolmogorov-Arnold network (KAN): every edge carries a learnable 1-D function, here a linear
// B-spline on a fixed grid plus a SiLU base term, instead of a fixed activation on the nodes.
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

// The examples are linked into one program: an anonymous namespace keeps each file's model types
// from colliding with another file's.
namespace {

constexpr int B = 256;       // samples per batch
constexpr int IN = 2;        // (x, y)
constexpr int WIDTH = 16;    // hidden nodes per layer
constexpr int GRID = 12;     // spline knots per edge, evenly spaced on [-1, 1]
constexpr double LO = -1.0;
constexpr double SPACING = 2.0 / (GRID - 1);

// One KAN layer: y_j = Σ_i  w_ij·silu(x_i) + Σ_k c_ijk·B_k(x_i).
struct KanLayer : Module {
  int in;
  int out;
  Tensor base;    // [in, out]: weight of the SiLU residual of each edge
  Tensor coeffs;  // [in·GRID, out]: spline coefficient of each edge and knot
  KanLayer(int in_, int out_)
      : in(in_),
        out(out_),
        // Like nn.Linear's weight: uniform(±1/√in).
        base(param("base", {in_, out_},
                   {.init = init::uniform(-1.0 / std::sqrt(in_), 1.0 / std::sqrt(in_))})),
        coeffs(param("coeffs", {in_ * GRID, out_}, {.init = init::normal(0.1)})) {}
};

struct KAN : Module {
  KanLayer l1 = child<KanLayer>("l1", IN, WIDTH);
  KanLayer l2 = child<KanLayer>("l2", WIDTH, WIDTH);
  KanLayer l3 = child<KanLayer>("l3", WIDTH, 1);
};

// Linear B-spline basis ("hat" functions) of x [B, n] on the grid: [B, n, GRID], each value
// max(0, 1 - |x - knot| / spacing).
Tensor splineBasis(Tensor x) {
  Tensor knots = add(mul(arange(GRID, f32), SPACING), LO);              // [GRID]
  Tensor dist = abs(sub(reshape(x, {B, x.dim(1), 1}), knots));          // [B, n, GRID]
  return relu(sub(1.0, div(dist, SPACING)));                             // [B, n, GRID]
}

Tensor kanLayer(const KanLayer& l, Tensor x) {
  Tensor spline = matmul(reshape(splineBasis(x), {B, l.in * GRID}), l.coeffs);  // [B, out]
  return add(matmul(silu(x), l.base), spline);                                   // [B, out]
}

// points [B, 2] -> f(x, y) [B, 1]. tanh keeps the hidden values on the spline grid.
Tensor kan(const KAN& m, Tensor points) {
  Tensor h = tanh(kanLayer(m.l1, points));
  h = tanh(kanLayer(m.l2, h));
  return kanLayer(m.l3, h);
}

Tensor lossFn(KAN& m, const Inputs& in) {
  return mean(square(sub(kan(m, in["points"]), in["values"])));
}

Tensor predictFn(KAN& m, const Inputs& in) { return kan(m, in["points"]); }

}  // namespace

NNDNA_SPEC(KAN) {
  return {
      .label = "KAN with spline edges",
      .description =
          "A Kolmogorov-Arnold network of shape [2, 16, 16, 1] fitting a 2-D function such as "
          "exp(sin(pi·x) + y²). Each edge applies its own learnable function: a linear B-spline "
          "over 12 knots on [-1, 1] plus a SiLU base term; tanh keeps hidden values on the "
          "grid. MSE, Adam at 1e-2, batches of 256.",
      .loss = lossFn,
      .inputs = {{"points", {B, IN}}, {"values", {B, 1}}},
      .optimizer = Adam{.lr = 1e-2},
      .predict = predictFn,
      .predictInputs = {{"points", {B, IN}}},
      .dims = {{B, "B", "batch"},
               {IN, "I", "inputs"},
               {WIDTH, "W", "hidden nodes"},
               {GRID, "G", "spline knots"},
               {IN * GRID, "I·G", "input edges × knots"},
               {WIDTH * GRID, "W·G", "hidden edges × knots"}},
  };
}
