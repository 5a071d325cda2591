// A variational autoencoder: an MLP encoder to the mean and log-variance of a Gaussian latent,
// a sample by the reparameterisation trick, an MLP decoder to pixel logits; the loss is the
// Bernoulli reconstruction error plus the KL divergence to the standard normal prior.
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

constexpr int B = 128;                       // images per batch
constexpr int CHANNELS = 1;                  // image channels
constexpr int SIDE = 28;                     // image height and width
constexpr int PIXELS = CHANNELS * SIDE * SIDE;  // values per image
constexpr int HIDDEN = 400;                  // encoder and decoder width
constexpr int LATENT = 20;                   // latent dimensions

struct Vae : Module {
  Linear enc{"enc", PIXELS, HIDDEN};
  Linear mu{"mu", HIDDEN, LATENT};
  Linear logVar{"log_var", HIDDEN, LATENT};
  Linear dec1{"dec1", LATENT, HIDDEN};
  Linear dec2{"dec2", HIDDEN, PIXELS};
};

Tensor decode(const Vae& m, Tensor z) { return m.dec2(relu(m.dec1(z))); }  // [B, PIXELS] logits

Tensor lossFn(Vae& m, const Inputs& in) {
  Tensor x = reshape(in["images"], {B, PIXELS});
  Tensor h = relu(m.enc(x));
  Tensor mu = m.mu(h);                                             // [B, LATENT]
  Tensor logVar = m.logVar(h);
  Tensor z = add(mu, mul(exp(mul(logVar, 0.5)), randn({B, LATENT})));  // reparameterisation
  Tensor logits = decode(m, z);
  // Bernoulli negative log-likelihood from logits: softplus(l) - x·l, summed over pixels.
  Tensor reconstruction = sum(sub(softplus(logits), mul(x, logits)), -1);
  Tensor kl = mul(sum(sub(sub(add(logVar, 1.0), square(mu)), exp(logVar)), -1), -0.5);
  return mean(add(reconstruction, kl));
}

// Samples from the prior, decoded to images.
Tensor predictFn(Vae& m, const Inputs& in) {
  return reshape(sigmoid(decode(m, in["z"])), {B, CHANNELS, SIDE, SIDE});
}

}  // namespace

NNDNA_SPEC(Vae) {
  return {
      .label = "Variational autoencoder",
      .description =
          "A VAE on 28×28 grey images: an encoder of 400 ReLU units gives the mean and "
          "log-variance of a 20-d Gaussian latent, sampled by the reparameterisation trick and "
          "decoded by 400 units to pixel logits. Bernoulli reconstruction loss plus the KL term, "
          "batches of 128, Adam; inference decodes prior samples.",
      .loss = lossFn,
      .inputs = {{"images", {B, CHANNELS, SIDE, SIDE}}},
      .optimizer = Adam{.lr = 1e-3},
      .predict = predictFn,
      .predictInputs = {{"z", {B, LATENT}}},
      .dims = {{B, "B", "batch"}, {SIDE, "S", "image side"}, {PIXELS, "P", "pixels"}, {HIDDEN, "H", "hidden"},
               {LATENT, "Z", "latent"}},
  };
}
