// The seed's default model: an MLP trained to predict noise, applied iteratively at inference.
#include <nndna/nndna.hpp>

using namespace nndna;

// Examples are linked into one program: an anonymous namespace keeps this file's types apart.
namespace {

constexpr int B = 256;
constexpr int D = 32;
constexpr int HIDDEN = 128;
constexpr int N_STEPS = 12;
constexpr double STEP_SIZE = 0.1;

struct Denoiser : Module {
  Linear l1{"l1", D, HIDDEN};
  Linear l2{"l2", HIDDEN, HIDDEN};
  Linear l3{"l3", HIDDEN, D};
};

// One step of the denoiser: noisy x -> predicted noise.
Tensor denoise(Denoiser& m, Tensor x) { return m.l3(gelu(m.l2(gelu(m.l1(x))))); }

// Training: predict the noise added to a clean signal (a single forward pass).
Tensor lossFn(Denoiser& m, const Inputs& in) {
  Tensor predNoise = denoise(m, in["noisy"]);
  Tensor trueNoise = sub(in["noisy"], in["clean"]);
  return mean(square(sub(predNoise, trueNoise)));
}

// Inference: start from pure noise and take N_STEPS Euler-style denoising steps.
Tensor predictFn(Denoiser& m, const Inputs& in) {
  Tensor x = in["xInit"];
  for (int t = 0; t < N_STEPS; t++) {
    x = sub(x, mul(denoise(m, x), STEP_SIZE));
  }
  return x;
}

NNDNA_SPEC(Denoiser) {
  return {
      .label = "Iterative diffusion denoiser",
      .description =
          "A 3-layer MLP trained to predict the noise added to a 32-d signal. Training is a "
          "single forward pass plus MSE on the predicted noise. Inference is the same MLP "
          "applied iteratively over 12 Euler-style denoising steps starting from pure noise.",
      .loss = lossFn,
      .inputs = {{"clean", {B, D}}, {"noisy", {B, D}}},
      .optimizer = AdamW{.lr = 1e-3, .weightDecay = 0.01},
      .predict = predictFn,
      .predictInputs = {{"xInit", {B, D}}},
      .dims = {{B, "B", "batch"}, {D, "D", "signal dim"}, {HIDDEN, "H", "denoiser hidden"}},
  };
}

}  // namespace
