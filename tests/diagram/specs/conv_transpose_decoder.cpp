// A DCGAN-style decoder: a code z [B, 16] to a 64×4×4 map by a linear layer, then three
// transposed convolutions doubling the side each (4 → 8 → 16 → 32), the last one to RGB with a
// sigmoid; trained to reconstruct target images by mean squared error.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 2;   // codes per batch
constexpr int Z = 16;  // code width

struct Decoder : Module {
  Linear fc{"fc", Z, 64 * 4 * 4};
  // (4 - 1)·2 - 2·1 + 4 = 8
  ConvTranspose2d up1{"up1", 64, 32, 4, {.stride = 2, .padding = 1}};
  // (8 - 1)·2 - 2·1 + 3 + 1 = 16
  ConvTranspose2d up2{"up2", 32, 16, 3, {.stride = 2, .padding = 1, .outputPadding = 1}};
  // (16 - 1)·2 + 2 = 32
  ConvTranspose2d up3{"up3", 16, 3, 2, {.stride = 2, .bias = false}};
};

Tensor decode(const Decoder& m, Tensor z) {
  Tensor h = reshape(m.fc(z), {B, 64, 4, 4});
  h = relu(m.up1(h));       // [B, 32, 8, 8]
  h = relu(m.up2(h));       // [B, 16, 16, 16]
  return sigmoid(m.up3(h)); // [B, 3, 32, 32]
}

Tensor lossFn(Decoder& m, const Inputs& in) {
  return mean(square(sub(decode(m, in["z"]), in["target"])));
}
Tensor predictFn(Decoder& m, const Inputs& in) { return decode(m, in["z"]); }

}  // namespace

NNDNA_SPEC(Decoder) {
  return {.label = "Transposed-convolution decoder",
          .description = "A linear layer to 64×4×4, then three ConvTranspose2d up to 3×32×32.",
          .loss = lossFn,
          .inputs = {{"z", {B, Z}}, {"target", {B, 3, 32, 32}}},
          .optimizer = Adam{.lr = 2e-4},
          .predict = predictFn,
          .predictInputs = {{"z", {B, Z}}},
          .dims = {{B, "B", "batch"}}};
}
