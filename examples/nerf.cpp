// A NeRF-style coordinate network: Fourier-feature positional encoding of 2-D pixel coordinates
// followed by an MLP that outputs the pixel's colour (an implicit neural representation).
#include <nndna/nndna.hpp>

#include <numbers>

using namespace nndna;

// The examples are linked into one program: an anonymous namespace keeps each file's model types
// from colliding with another file's.
namespace {

constexpr int B = 1024;           // pixels per batch
constexpr int COORDS = 2;         // (x, y) in [-1, 1]
constexpr int FREQS = 10;         // frequencies 2^0·π ... 2^9·π, as NeRF
constexpr int ENC = COORDS + 2 * COORDS * FREQS;  // raw coordinates + sin and cos per frequency
constexpr int HIDDEN = 256;
constexpr int RGB = 3;

struct CoordinateMLP : Module {
  Linear in{"in", ENC, HIDDEN};
  Linear h1{"h1", HIDDEN, HIDDEN};
  Linear h2{"h2", HIDDEN, HIDDEN};
  Linear out{"out", HIDDEN, RGB};
};

// p [B, 2] -> [p, sin(2^k·π·p), cos(2^k·π·p)] [B, ENC]: lets a small MLP fit fine detail.
Tensor positionalEncoding(Tensor p) {
  Tensor freqs = mul(exp(mul(arange(FREQS, f32), std::numbers::ln2)), std::numbers::pi);  // [F]
  Tensor angles = mul(reshape(p, {B, COORDS, 1}), reshape(freqs, {1, 1, FREQS}));  // [B, 2, F]
  Tensor waves = concat({sin(angles), cos(angles)}, -1);  // [B, 2, 2F]
  return concat({p, reshape(waves, {B, -1})}, -1);        // [B, ENC]
}

// coordinates [B, 2] -> colours in [0, 1] [B, 3].
Tensor colourAt(const CoordinateMLP& m, Tensor coords) {
  Tensor h = relu(m.in(positionalEncoding(coords)));
  h = relu(m.h1(h));
  h = relu(m.h2(h));
  return sigmoid(m.out(h));
}

Tensor lossFn(CoordinateMLP& m, const Inputs& in) {
  return mean(square(sub(colourAt(m, in["coords"]), in["colours"])));
}

Tensor predictFn(CoordinateMLP& m, const Inputs& in) { return colourAt(m, in["coords"]); }

}  // namespace

NNDNA_SPEC(CoordinateMLP) {
  return {
      .label = "NeRF-style image fit",
      .description =
          "An implicit neural representation of an image: each pixel's (x, y) coordinate is "
          "expanded with NeRF's positional encoding (sin and cos at 10 octave-spaced "
          "frequencies, 42 features) and mapped by a 4-layer ReLU MLP of width 256 to an RGB "
          "colour. MSE on batches of 1024 random pixels, Adam at 5e-4.",
      .loss = lossFn,
      .inputs = {{"coords", {B, COORDS}}, {"colours", {B, RGB}}},
      .optimizer = Adam{.lr = 5e-4},
      .predict = predictFn,
      .predictInputs = {{"coords", {B, COORDS}}},
      .dims = {{B, "B", "pixels"},
               {COORDS, "C", "coordinates"},
               {FREQS, "F", "frequencies"},
               {2 * FREQS, "2F", "sin + cos"},
               {ENC, "E", "encoding"},
               {HIDDEN, "H", "hidden"},
               {RGB, "RGB", "colour"}},
  };
}
