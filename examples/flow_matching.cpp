// Flow matching (rectified flow) on 2-D data: an MLP learns the velocity that carries noise to
// data along straight paths; sampling integrates it with Euler steps.
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

// The examples are linked into one program: an anonymous namespace keeps each file's model types
// from colliding with another file's.
namespace {

constexpr int B = 512;        // samples per batch
constexpr int D = 2;          // data dimension (a 2-D point cloud)
constexpr int TIME_EMB = 32;  // sinusoidal time-embedding width
constexpr int HIDDEN = 128;
constexpr int N_STEPS = 8;    // Euler steps from t = 0 (noise) to t = 1 (data)

struct VelocityField : Module {
  Linear l1{"l1", D + TIME_EMB, HIDDEN};
  Linear l2{"l2", HIDDEN, HIDDEN};
  Linear l3{"l3", HIDDEN, D};
};

// t [B] -> [sin(t·f), cos(t·f)] over log-spaced frequencies f: [B, TIME_EMB].
Tensor timeEmbedding(Tensor t) {
  constexpr int half = TIME_EMB / 2;
  Tensor freqs = exp(mul(arange(half, f32), -std::log(10000.0) / half));  // [half]
  Tensor angles = mul(reshape(t, {B, 1}), reshape(freqs, {1, half}));     // [B, half]
  return concat({sin(angles), cos(angles)}, -1);                          // [B, TIME_EMB]
}

// The learned velocity v(x, t): [B, D].
Tensor velocity(const VelocityField& m, Tensor x, Tensor t) {
  Tensor h = silu(m.l1(concat({x, timeEmbedding(t)}, -1)));
  h = silu(m.l2(h));
  return m.l3(h);
}

// Conditional flow matching: on the straight path x_t = (1 - t)·x0 + t·x1 the velocity is
// x1 - x0; regress the network onto it at a random t.
Tensor lossFn(VelocityField& m, const Inputs& in) {
  Tensor x0 = in["noise"];
  Tensor x1 = in["data"];
  Tensor t = reshape(in["t"], {B, 1});
  Tensor xt = add(mul(sub(1.0, t), x0), mul(t, x1));
  Tensor target = sub(x1, x0);
  return mean(square(sub(velocity(m, xt, in["t"]), target)));
}

// Sampling: integrate dx/dt = v(x, t) from noise at t = 0 to t = 1 with Euler steps.
Tensor predictFn(VelocityField& m, const Inputs& in) {
  constexpr double dt = 1.0 / N_STEPS;
  Tensor x = in["noise"];
  for (int step = 0; step < N_STEPS; step++) {
    Tensor t = mul(ones({B}), step * dt);
    x = add(x, mul(velocity(m, x, t), dt));
  }
  return x;
}

}  // namespace

NNDNA_SPEC(VelocityField) {
  return {
      .label = "Flow matching on 2-D points",
      .description =
          "Rectified-flow / conditional flow matching: a 3-layer SiLU MLP (width 128) takes a "
          "point and a sinusoidal embedding of time t and predicts the velocity that moves "
          "Gaussian noise to the data along straight lines; the loss is MSE to x1 - x0 at a "
          "random t. Inference samples by 8 Euler steps from t = 0 to t = 1.",
      .loss = lossFn,
      .inputs = {{"noise", {B, D}}, {"data", {B, D}}, {"t", {B}}},
      .optimizer = AdamW{.lr = 1e-3, .weightDecay = 1e-4},
      .predict = predictFn,
      .predictInputs = {{"noise", {B, D}}},
      .dims = {{B, "B", "batch"},
               {D, "D", "data dim"},
               {TIME_EMB, "E", "time embedding"},
               {TIME_EMB / 2, "E/2", "frequencies"},
               {D + TIME_EMB, "D+E", "point + time"},
               {HIDDEN, "H", "hidden"}},
  };
}
