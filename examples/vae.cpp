// A variational autoencoder for 28×28 images, trained with the reparameterisation trick.
#include <nndna/nndna.hpp>

#include <utility>

using namespace nndna;

// The examples are linked into one program: an anonymous namespace keeps each file's model types
// from colliding with another file's.
namespace {

constexpr int B = 128;      // images per batch
constexpr int PIXELS = 784;  // 28×28, flattened
constexpr int HIDDEN = 400;
constexpr int LATENT = 20;

struct VAE : Module {
  Linear enc{"enc", PIXELS, HIDDEN};
  Linear mu{"mu", HIDDEN, LATENT};
  Linear logVar{"log_var", HIDDEN, LATENT};
  Linear dec1{"dec1", LATENT, HIDDEN};
  Linear dec2{"dec2", HIDDEN, PIXELS};
};

// images [B, PIXELS] -> the mean and log-variance of q(z | x), each [B, LATENT].
std::pair<Tensor, Tensor> encode(const VAE& m, Tensor x) {
  Tensor h = relu(m.enc(x));
  return {m.mu(h), m.logVar(h)};
}

// Reparameterisation: z = mu + sigma·eps keeps the sample differentiable in mu and sigma.
Tensor sampleLatent(Tensor mu, Tensor logVar) {
  Tensor eps = randn({B, LATENT});
  return add(mu, mul(exp(mul(logVar, 0.5)), eps));
}

// latent [B, LATENT] -> pixel logits [B, PIXELS].
Tensor decode(const VAE& m, Tensor z) { return m.dec2(relu(m.dec1(z))); }

Tensor lossFn(VAE& m, const Inputs& in) {
  Tensor x = in["images"];  // [B, PIXELS], values in [0, 1]
  auto [mu, logVar] = encode(m, x);
  Tensor logits = decode(m, sampleLatent(mu, logVar));
  // Bernoulli reconstruction term, binary cross-entropy on logits: softplus(l) - x·l.
  Tensor recon = sum(sub(softplus(logits), mul(x, logits)));
  // KL(q(z|x) || N(0, I)) = -1/2 · Σ (1 + log σ² - μ² - σ²).
  Tensor kl = mul(sum(sub(sub(add(logVar, 1.0), square(mu)), exp(logVar))), -0.5);
  return div(add(recon, kl), B);  // the negative ELBO per image
}

// Generation: decode latent samples from the prior into pixel probabilities.
Tensor predictFn(VAE& m, const Inputs& in) { return sigmoid(decode(m, in["z"])); }

}  // namespace

NNDNA_SPEC(VAE) {
  return {
      .label = "Variational autoencoder (MNIST)",
      .description =
          "An MLP encoder (784 -> 400) outputs the mean and log-variance of a 20-d Gaussian "
          "latent; a sample drawn with the reparameterisation trick (mu + exp(logvar/2)·eps) is "
          "decoded back to 784 pixel logits. The loss is the negative ELBO: Bernoulli "
          "reconstruction plus the KL divergence to N(0, I). Inference decodes prior samples.",
      .loss = lossFn,
      .inputs = {{"images", {B, PIXELS}}},
      .optimizer = Adam{.lr = 1e-3},
      .predict = predictFn,
      .predictInputs = {{"z", {B, LATENT}}},
      .dims = {{B, "B", "batch"},
               {PIXELS, "P", "pixels"},
               {HIDDEN, "H", "hidden"},
               {LATENT, "Z", "latent"}},
  };
}
