// ESPCN (Shi et al. 2016, "Real-Time Single Image and Video Super-Resolution Using an Efficient
// Sub-Pixel Convolutional Neural Network") as PyTorch's super-resolution example builds it: four
// same-size convolutions, the last to r² channels, then PixelShuffle(r) to an image r times
// larger. Upscale factor 3 on the example's 85×85 crops (255 / 3) of a luminance channel.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 1;
constexpr int SIDE = 85;
constexpr int R = 3;

struct Espcn : Module {
  Conv2d conv1{"conv1", 1, 64, 5, {.padding = 2}};
  Conv2d conv2{"conv2", 64, 64, 3, {.padding = 1}};
  Conv2d conv3{"conv3", 64, 32, 3, {.padding = 1}};
  Conv2d conv4{"conv4", 32, R * R, 3, {.padding = 1}};
};

Tensor upscale(const Espcn& m, Tensor low) {
  Tensor x = relu(m.conv1(low));              // [B, 64, 85, 85]
  x = relu(m.conv2(x));                        // [B, 64, 85, 85]
  x = relu(m.conv3(x));                        // [B, 32, 85, 85]
  return pixelShuffle(m.conv4(x), R);          // [B, 9, 85, 85] -> [B, 1, 255, 255]
}

Tensor lossFn(Espcn& m, const Inputs& in) { return mseLoss(upscale(m, in["low"]), in["high"]); }
Tensor predictFn(Espcn& m, const Inputs& in) { return upscale(m, in["low"]); }

}  // namespace

NNDNA_SPEC(Espcn) {
  return {.label = "ESPCN ×3",
          .description = "Sub-pixel convolution super-resolution: convolutions to r² channels, then pixelShuffle.",
          .loss = lossFn,
          .inputs = {{"low", {B, 1, SIDE, SIDE}}, {"high", {B, 1, SIDE * R, SIDE * R}}},
          .optimizer = Adam{.lr = 1e-3},
          .predict = predictFn,
          .predictInputs = {{"low", {B, 1, SIDE, SIDE}}}};
}
