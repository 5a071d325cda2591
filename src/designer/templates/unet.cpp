// A U-Net for image segmentation: an encoder of double-conv levels that halve the image and
// double the channels, a bottleneck, and a decoder whose 2×2 transposed convolutions double the
// image and halve the channels, joining each level's skip connection by channel concatenation;
// a 1×1 conv gives per-pixel class logits.
#include <nndna/nndna.hpp>

#include <string>

using namespace nndna;

namespace {

constexpr int B = 8;           // images per batch
constexpr int CHANNELS = 3;    // image channels
constexpr int SIDE = 64;       // image height and width (divisible by 2^DEPTH)
constexpr int WIDTH = 32;      // channels of the first level (doubled per level)
constexpr int DEPTH = 3;       // down-sampling levels
constexpr int CLASSES = 5;     // segmentation classes

// Two 3×3 convs with BatchNorm and ReLU, keeping the image size.
struct DoubleConv : Module {
  DoubleConv(int in, int out)
      : conv1{"conv1", in, out, 3, {.padding = 1, .bias = false}},
        bn1{"bn1", out},
        conv2{"conv2", out, out, 3, {.padding = 1, .bias = false}},
        bn2{"bn2", out} {}
  Conv2d conv1;
  BatchNorm2d bn1;
  Conv2d conv2;
  BatchNorm2d bn2;
};

// A decoder level: a 2×2 transposed conv (stride 2) doubles the side and halves the channels of
// the level below; joined with the skip, a double conv.
struct UpLevel : Module {
  UpLevel(int below, int out)
      : upConv{"up_conv", below, out, 2, {.stride = 2}}, conv(child<DoubleConv>("conv", 2 * out, out)) {}
  ConvTranspose2d upConv;
  DoubleConv conv;
};

struct UNet : Module {
  std::vector<DoubleConv> down;  // level l: WIDTH·2^l channels
  DoubleConv bottom;
  std::vector<UpLevel> up;       // deepest level first
  Conv2d head;

  UNet()
      : bottom(child<DoubleConv>("bottom", WIDTH << (DEPTH - 1), WIDTH << DEPTH)),
        head("head", WIDTH, CLASSES, 1) {
    for (int l = 0; l < DEPTH; ++l) {
      down.push_back(child<DoubleConv>("down" + std::to_string(l), l == 0 ? CHANNELS : WIDTH << (l - 1), WIDTH << l));
    }
    for (int l = DEPTH - 1; l >= 0; --l) {
      up.push_back(child<UpLevel>("up" + std::to_string(l), WIDTH << (l + 1), WIDTH << l));
    }
  }
};

Tensor doubleConv(const DoubleConv& c, Tensor x) {
  Tensor h = relu(c.bn1(c.conv1(x)));
  return relu(c.bn2(c.conv2(h)));
}

Tensor segment(const UNet& m, Tensor images) {
  std::vector<Tensor> skips;
  Tensor h = images;  // [B, CHANNELS, SIDE, SIDE]
  for (const DoubleConv& level : m.down) {
    h = doubleConv(level, h);
    skips.push_back(h);
    h = maxPool2d(h, 2);  // side halved
  }
  h = doubleConv(m.bottom, h);  // [B, WIDTH·2^DEPTH, SIDE/2^DEPTH, SIDE/2^DEPTH]
  for (std::size_t i = 0; i < m.up.size(); ++i) {
    Tensor skip = skips[skips.size() - 1 - i];
    const UpLevel& level = m.up[i];
    h = doubleConv(level.conv, concat({level.upConv(h), skip}, 1));  // side doubled
  }
  return m.head(h);  // [B, CLASSES, SIDE, SIDE]
}

// Per-pixel cross-entropy: classes moved last, pixels flattened.
Tensor lossFn(UNet& m, const Inputs& in) {
  Tensor logits = permute(segment(m, in["images"]), {0, 2, 3, 1});  // [B, SIDE, SIDE, CLASSES]
  return crossEntropy(reshape(logits, {-1, CLASSES}), reshape(in["masks"], {-1}));
}

Tensor predictFn(UNet& m, const Inputs& in) { return argmax(segment(m, in["images"]), 1); }

}  // namespace

NNDNA_SPEC(UNet) {
  return {
      .label = "U-Net segmentation",
      .description =
          "A U-Net with 3 levels (32, 64, 128 channels, bottleneck 256) segmenting 64×64 colour "
          "images into 5 classes: double 3×3 convs with BatchNorm, max pooling down, 2×2 "
          "transposed convolutions up, skip connections joined by channel concatenation. "
          "Per-pixel cross-entropy on batches of 8, Adam.",
      .loss = lossFn,
      .inputs = {{"images", {B, CHANNELS, SIDE, SIDE}}, {"masks", {B, SIDE, SIDE}, i32}},
      .optimizer = Adam{.lr = 1e-3},
      .predict = predictFn,
      .predictInputs = {{"images", {B, CHANNELS, SIDE, SIDE}}},
      .dims = {{B, "B", "batch"},
               {CHANNELS, "C", "image channels"},
               {SIDE, "S", "image side"},
               {WIDTH, "W", "first-level channels"},
               {CLASSES, "K", "classes"}},
  };
}
