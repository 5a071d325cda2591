// A generative adversarial network: an MLP generator maps noise to images, an MLP discriminator
// scores real and generated images. One training step computes both non-saturating losses; the
// discriminator's loss sees the generated images detached, so only the generator's loss trains the
// generator through them.
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

constexpr int B = 64;                        // images per batch
constexpr int CHANNELS = 1;                  // image channels
constexpr int SIDE = 28;                     // image height and width
constexpr int PIXELS = CHANNELS * SIDE * SIDE;  // values per image
constexpr int NOISE = 100;                   // generator input (latent noise)
constexpr int HIDDEN = 256;                  // width of both networks

struct Generator : Module {
  Linear l1{"l1", NOISE, HIDDEN};
  Linear l2{"l2", HIDDEN, HIDDEN};
  Linear out{"out", HIDDEN, PIXELS};
};

struct Discriminator : Module {
  Linear l1{"l1", PIXELS, HIDDEN};
  Linear l2{"l2", HIDDEN, HIDDEN};
  Linear out{"out", HIDDEN, 1};
};

struct Gan : Module {
  Generator generator = child<Generator>("generator");
  Discriminator discriminator = child<Discriminator>("discriminator");
};

Tensor generate(const Generator& g, Tensor noise) {
  return tanh(g.out(relu(g.l2(relu(g.l1(noise))))));  // [B, PIXELS] in [-1, 1]
}

Tensor score(const Discriminator& d, Tensor images) {  // [B, 1] logits: real > 0
  return d.out(leakyRelu(d.l2(leakyRelu(d.l1(images), 0.2)), 0.2));
}

Tensor lossFn(Gan& m, const Inputs& in) {
  Tensor real = reshape(in["images"], {B, PIXELS});
  Tensor fake = generate(m.generator, in["noise"]);
  // Discriminator: real scored high, generated low (the generated images detached).
  Tensor dLoss = add(softplus(neg(score(m.discriminator, real))),
                     softplus(score(m.discriminator, stopGradient(fake))));
  // Generator: its images scored high.
  Tensor gLoss = softplus(neg(score(m.discriminator, fake)));
  return add(mean(dLoss), mean(gLoss));
}

Tensor predictFn(Gan& m, const Inputs& in) {
  return reshape(generate(m.generator, in["noise"]), {B, CHANNELS, SIDE, SIDE});
}

}  // namespace

NNDNA_SPEC(Gan) {
  return {
      .label = "GAN: generator and discriminator",
      .description =
          "A GAN for 28×28 grey images: a generator of two 256-unit ReLU layers maps 100-d "
          "noise to tanh pixels, a discriminator of two 256-unit leaky-ReLU layers scores images. "
          "Both non-saturating losses in one step, batches of 64, Adam at 2e-4 with beta1 0.5.",
      .loss = lossFn,
      .inputs = {{"images", {B, CHANNELS, SIDE, SIDE}}, {"noise", {B, NOISE}}},
      .optimizer = Adam{.lr = 2e-4, .beta1 = 0.5},
      .predict = predictFn,
      .predictInputs = {{"noise", {B, NOISE}}},
      .dims = {{B, "B", "batch"}, {SIDE, "S", "image side"}, {PIXELS, "P", "pixels"}, {NOISE, "Z", "noise"},
               {HIDDEN, "H", "hidden"}},
  };
}
