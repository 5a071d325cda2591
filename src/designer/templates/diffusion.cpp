// A diffusion noise predictor: a convolutional network with residual blocks, told the diffusion
// time through a sinusoidal embedding, learns the noise in a noisy image; inference starts from
// pure noise and removes the predicted noise step by step.
#include <nndna/nndna.hpp>

#include <cmath>
#include <numeric>

using namespace nndna;

namespace {

constexpr int B = 16;            // images per batch
constexpr int CHANNELS = 3;      // image channels
constexpr int SIDE = 32;         // image height and width
constexpr int WIDTH = 64;        // feature channels
constexpr int N_BLOCKS = 4;      // residual blocks
constexpr int TEMB = 96;         // time-embedding width
constexpr int HALF = TEMB / 2;   // sinusoid frequencies
constexpr int STEPS = 10;        // denoising steps at inference
constexpr int GROUPS = std::gcd(8, WIDTH);  // GroupNorm groups (8, or fewer that divide WIDTH)

const Conv2dLayerOptions SAME{.padding = 1};

// DDPM's residual block: GroupNorm, SiLU and a 3×3 conv, twice, the time added in between.
struct ResBlock : Module {
  GroupNorm norm1{"norm1", GROUPS, WIDTH};
  Conv2d conv1{"conv1", WIDTH, WIDTH, 3, SAME};
  Linear time{"time", TEMB, WIDTH};  // the time embedding, added per channel
  GroupNorm norm2{"norm2", GROUPS, WIDTH};
  Conv2d conv2{"conv2", WIDTH, WIDTH, 3, SAME};
};

struct NoisePredictor : Module {
  Linear time1{"time1", TEMB, TEMB};
  Linear time2{"time2", TEMB, TEMB};
  Conv2d in{"in", CHANNELS, WIDTH, 3, SAME};
  std::vector<ResBlock> blocks = list<ResBlock>("blocks", N_BLOCKS);
  GroupNorm outNorm{"out_norm", GROUPS, WIDTH};
  Conv2d out{"out", WIDTH, CHANNELS, 3, SAME};
};

// t [B] -> [B, TEMB]: sines and cosines of log-spaced frequencies, then a small MLP.
Tensor timeEmbedding(const NoisePredictor& m, Tensor t) {
  Tensor freqs = exp(mul(arange(HALF, f32), -std::log(10000.0) / HALF));  // [HALF]
  Tensor angles = mul(reshape(t, {B, 1}), reshape(freqs, {1, HALF}));    // [B, HALF]
  Tensor e = concat({sin(angles), cos(angles)}, -1);                     // [B, TEMB]
  return m.time2(silu(m.time1(e)));
}

Tensor resBlock(const ResBlock& b, Tensor x, Tensor temb) {
  Tensor h = b.conv1(silu(b.norm1(x)));
  h = add(h, reshape(b.time(temb), {B, WIDTH, 1, 1}));
  return add(x, b.conv2(silu(b.norm2(h))));
}

// The noise in `x` at time `t`.
Tensor predictNoise(const NoisePredictor& m, Tensor x, Tensor t) {
  Tensor temb = timeEmbedding(m, t);
  Tensor h = m.in(x);  // [B, WIDTH, SIDE, SIDE]
  for (const ResBlock& block : m.blocks) h = resBlock(block, h, temb);
  return m.out(silu(m.outNorm(h)));  // [B, CHANNELS, SIDE, SIDE]
}

Tensor lossFn(NoisePredictor& m, const Inputs& in) {
  return mean(square(sub(predictNoise(m, in["noisy"], in["t"]), in["noise"])));
}

// From pure noise, STEPS Euler-style steps, each removing a share of the predicted noise.
Tensor predictFn(NoisePredictor& m, const Inputs& in) {
  Tensor x = in["xInit"];
  for (int s = STEPS; s > 0; s--) {
    Tensor t = mul(ones({B}), static_cast<double>(s) / STEPS);
    x = sub(x, mul(predictNoise(m, x, t), 1.0 / STEPS));
  }
  return x;
}

}  // namespace

NNDNA_SPEC(NoisePredictor) {
  return {
      .label = "Diffusion noise predictor",
      .description =
          "A diffusion model's noise predictor for 32×32 colour images: a 3×3 conv in, 4 residual "
          "blocks of 64 channels (GroupNorm, SiLU, 3×3 conv, twice) told the time by a 96-wide "
          "sinusoidal embedding, a 3×3 conv out. "
          "Trained with MSE on the added noise (batches of 16, AdamW); inference denoises pure "
          "noise in 10 steps.",
      .loss = lossFn,
      .inputs = {{"noisy", {B, CHANNELS, SIDE, SIDE}}, {"noise", {B, CHANNELS, SIDE, SIDE}}, {"t", {B}}},
      .optimizer = AdamW{.lr = 2e-4, .weightDecay = 0.01},
      .predict = predictFn,
      .predictInputs = {{"xInit", {B, CHANNELS, SIDE, SIDE}}},
      .dims = {{B, "B", "batch"},
               {CHANNELS, "C", "image channels"},
               {SIDE, "S", "image side"},
               {WIDTH, "W", "channels"},
               {TEMB, "E", "time embedding"}},
  };
}
