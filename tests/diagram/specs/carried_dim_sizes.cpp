// A DCGAN-style discriminator's first layers written with one named dim, the batch (64, the
// DCGAN default), and every channel count and image side a plain 64 or 32. The batch `Dim` names
// each axis that is the batch; the other 64s are not the batch and are drawn as numbers.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr Dim B{"B", 64, "batch"};

struct Discriminator : Module {
  Conv2d conv1{"conv1", 3, 64, 4, {.stride = 2, .padding = 1}};   // 64 -> 32
  Conv2d conv2{"conv2", 64, 128, 4, {.stride = 2, .padding = 1}};  // 32 -> 16
  Linear head{"head", 128 * 16 * 16, 1};
};

Tensor logitsOf(const Discriminator& m, Tensor images) {
  Tensor h = leakyRelu(m.conv1(images), 0.2);
  h = leakyRelu(m.conv2(h), 0.2);
  return m.head(reshape(h, {B, 128 * 16 * 16}));
}

Tensor lossFn(Discriminator& m, const Inputs& in) {
  return mean(square(sub(logitsOf(m, in["images"]), in["targets"])));
}

}  // namespace

NNDNA_SPEC(Discriminator) {
  return {
      .label = "Discriminator with a named batch",
      .loss = lossFn,
      .inputs = {{"images", {B, 3, 64, 64}}, {"targets", {B, 1}}},
      .optimizer = Adam{},
  };
}
