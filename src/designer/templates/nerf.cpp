// A NeRF-style coordinate network: 3-D points encoded by sines and cosines of octave
// frequencies, an MLP of equal-width ReLU layers, and a head giving colour and density.
#include <nndna/nndna.hpp>

#include <numbers>

using namespace nndna;

namespace {

constexpr int B = 4096;                   // sample points per batch
constexpr int FREQS = 10;                 // octave frequencies of the positional encoding
constexpr int ENC = 3 + 3 * 2 * FREQS;    // encoded point: xyz, then sin and cos per frequency
constexpr int HIDDEN = 256;               // MLP width
constexpr int N_LAYERS = 6;               // Linear layers in all (input, hidden ones, head)

struct RadianceField : Module {
  Linear input{"input", ENC, HIDDEN};
  std::vector<Linear> hidden = list<Linear>("hidden", N_LAYERS - 2, HIDDEN, HIDDEN);
  Linear head{"head", HIDDEN, 4};  // RGB and density
};

// xyz [B, 3] -> [B, ENC]: the point, then sin and cos of 2^k·π·xyz for k < FREQS.
Tensor encode(Tensor xyz) {
  Tensor freqs = mul(exp(mul(arange(FREQS, f32), std::numbers::ln2)), std::numbers::pi);  // [FREQS]
  Tensor angles = reshape(mul(reshape(xyz, {B, 3, 1}), reshape(freqs, {1, 1, FREQS})), {B, 3 * FREQS});
  return concat({xyz, sin(angles), cos(angles)}, -1);
}

Tensor field(const RadianceField& m, Tensor xyz) {
  Tensor h = relu(m.input(encode(xyz)));
  for (const Linear& layer : m.hidden) h = relu(layer(h));
  std::vector<Tensor> out = split(m.head(h), {3, 1}, -1);
  return concat({sigmoid(out[0]), relu(out[1])}, -1);  // [B, 4]: colour in [0, 1], density >= 0
}

Tensor lossFn(RadianceField& m, const Inputs& in) {
  return mean(square(sub(field(m, in["xyz"]), in["rgbSigma"])));
}

Tensor predictFn(RadianceField& m, const Inputs& in) { return field(m, in["xyz"]); }

}  // namespace

NNDNA_SPEC(RadianceField) {
  return {
      .label = "NeRF coordinate network",
      .description =
          "A NeRF-style MLP: 3-D points encoded with sines and cosines of 10 octave frequencies "
          "(63 values), 6 Linear layers of 256 ReLU units, a head to colour (sigmoid) and density "
          "(ReLU). MSE on batches of 4,096 points, Adam at 5e-4.",
      .loss = lossFn,
      .inputs = {{"xyz", {B, 3}}, {"rgbSigma", {B, 4}}},
      .optimizer = Adam{.lr = 5e-4},
      .predict = predictFn,
      .predictInputs = {{"xyz", {B, 3}}},
      .dims = {{B, "B", "points"}, {FREQS, "L", "frequencies"}, {ENC, "E", "encoding"}, {HIDDEN, "H", "hidden"}},
  };
}
