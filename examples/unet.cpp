// A two-level U-Net for semantic segmentation: conv encoder, nearest-neighbour upsampling
// decoder, and skip connections joined by channel concatenation.
#include <nndna/nndna.hpp>

using namespace nndna;

// The examples are linked into one program: an anonymous namespace keeps each file's model types
// from colliding with another file's.
namespace {

constexpr int B = 8;         // images per batch
constexpr int SIDE = 80;     // image height and width
constexpr int IN_C = 3;      // RGB
constexpr int C1 = 32;       // channels at full resolution
constexpr int C2 = 64;       // channels at 1/2 resolution
constexpr int C3 = 128;      // channels at the 1/4-resolution bottleneck
constexpr int CLASSES = 5;   // segmentation classes

const Conv2dLayerOptions SAME{.padding = 1};  // 3×3, size-preserving

// Two 3×3 conv + ReLU layers: U-Net's unit at every level.
struct DoubleConv : Module {
  Conv2d c1;
  Conv2d c2;
  DoubleConv(int in, int out) : c1("c1", in, out, 3, SAME), c2("c2", out, out, 3, SAME) {}
};

struct UNet : Module {
  DoubleConv enc1 = child<DoubleConv>("enc1", IN_C, C1);
  DoubleConv enc2 = child<DoubleConv>("enc2", C1, C2);
  DoubleConv mid = child<DoubleConv>("mid", C2, C3);
  DoubleConv dec2 = child<DoubleConv>("dec2", C3 + C2, C2);
  DoubleConv dec1 = child<DoubleConv>("dec1", C2 + C1, C1);
  Conv2d head{"head", C1, CLASSES, 1};
};

Tensor doubleConv(const DoubleConv& d, Tensor x) { return relu(d.c2(relu(d.c1(x)))); }

// Upsamples the coarser map and joins it with the skip connection along channels.
Tensor upAndJoin(Tensor coarse, Tensor skip) {
  return concat({nearestUpsample2d(coarse, 2), skip}, 1);
}

// images [B, 3, S, S] -> per-pixel class logits [B, CLASSES, S, S].
Tensor segment(const UNet& m, Tensor images) {
  Tensor s1 = doubleConv(m.enc1, images);               // [B, C1, S, S]
  Tensor s2 = doubleConv(m.enc2, maxPool2d(s1, 2));     // [B, C2, S/2, S/2]
  Tensor bottom = doubleConv(m.mid, maxPool2d(s2, 2));  // [B, C3, S/4, S/4]
  Tensor u2 = doubleConv(m.dec2, upAndJoin(bottom, s2));  // [B, C2, S/2, S/2]
  Tensor u1 = doubleConv(m.dec1, upAndJoin(u2, s1));      // [B, C1, S, S]
  return m.head(u1);                                      // [B, CLASSES, S, S]
}

Tensor lossFn(UNet& m, const Inputs& in) {
  Tensor logits = permute(segment(m, in["images"]), {0, 2, 3, 1});  // [B, S, S, CLASSES]
  return crossEntropy(reshape(logits, {-1, CLASSES}), reshape(in["masks"], {-1}));
}

// The most likely class of every pixel.
Tensor predictFn(UNet& m, const Inputs& in) { return argmax(segment(m, in["images"]), 1); }

}  // namespace

NNDNA_SPEC(UNet) {
  return {
      .label = "U-Net segmentation",
      .description =
          "A two-level U-Net labelling every pixel of 80×80 RGB images with one of 5 classes. "
          "The encoder doubles channels (32, 64, 128) while max pooling halves the resolution; "
          "the decoder upsamples by nearest neighbour and concatenates the encoder's features "
          "at the same scale (skip connections). Per-pixel cross-entropy, Adam, batches of 8.",
      .loss = lossFn,
      .inputs = {{"images", {B, IN_C, SIDE, SIDE}}, {"masks", {B, SIDE, SIDE}, i32}},
      .optimizer = Adam{.lr = 1e-3},
      .predict = predictFn,
      .predictInputs = {{"images", {B, IN_C, SIDE, SIDE}}},
      .dims = {{B, "B", "batch"},
               {SIDE, "S", "image side"},
               {SIDE / 2, "S/2", "half side"},
               {SIDE / 4, "S/4", "quarter side"},
               {IN_C, "RGB", "colour channels"},
               {C1, "C1", "level-1 channels"},
               {C2, "C2", "level-2 channels"},
               {C3, "C3", "bottleneck channels"},
               {CLASSES, "K", "classes"}},
  };
}
