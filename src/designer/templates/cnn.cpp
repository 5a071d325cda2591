// A convolutional image classifier: a stem convolution, a stack of conv blocks that each halve
// the image (3×3 conv, BatchNorm, ReLU, 2×2 max pooling), global average pooling and a linear head.
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

constexpr int B = 128;         // images per batch
constexpr int CHANNELS = 3;    // image channels (3: colour)
constexpr int SIDE = 32;       // image height and width
constexpr int WIDTH = 64;      // feature channels of every conv
constexpr int N_BLOCKS = 3;    // conv blocks (each halves the side)
constexpr int CLASSES = 10;

const Conv2dLayerOptions SAME_NO_BIAS{.padding = 1, .bias = false};

struct ConvBlock : Module {
  Conv2d conv{"conv", WIDTH, WIDTH, 3, SAME_NO_BIAS};
  BatchNorm2d bn{"bn", WIDTH};
};

struct ConvNet : Module {
  Conv2d stem{"stem", CHANNELS, WIDTH, 3, SAME_NO_BIAS};
  BatchNorm2d stemBn{"stem_bn", WIDTH};
  std::vector<ConvBlock> blocks = list<ConvBlock>("blocks", N_BLOCKS);
  Linear head{"head", WIDTH, CLASSES};
};

Tensor convBlock(const ConvBlock& b, Tensor x) { return maxPool2d(relu(b.bn(b.conv(x))), 2); }

Tensor classify(const ConvNet& m, Tensor images) {
  Tensor h = relu(m.stemBn(m.stem(images)));                    // [B, WIDTH, SIDE, SIDE]
  for (const ConvBlock& block : m.blocks) h = convBlock(block, h);  // side halved per block
  Tensor pooled = adaptiveAvgPool2d(h, 1);                       // [B, WIDTH, 1, 1]
  return m.head(reshape(pooled, {B, WIDTH}));                    // [B, CLASSES]
}

Tensor lossFn(ConvNet& m, const Inputs& in) { return crossEntropy(classify(m, in["images"]), in["labels"]); }

Tensor predictFn(ConvNet& m, const Inputs& in) { return classify(m, in["images"]); }

}  // namespace

NNDNA_SPEC(ConvNet) {
  return {
      .label = "CNN image classifier",
      .description =
          "A convolutional network for 32×32 colour images: a 3×3 stem and 3 conv blocks of 64 "
          "channels (3×3 conv, BatchNorm, ReLU, 2×2 max pooling), global average pooling and a "
          "10-way linear head. Cross-entropy on batches of 128, SGD with momentum.",
      .loss = lossFn,
      .inputs = {{"images", {B, CHANNELS, SIDE, SIDE}}, {"labels", {B}, i32}},
      .optimizer = SGD{.lr = 0.05, .momentum = 0.9},
      .predict = predictFn,
      .predictInputs = {{"images", {B, CHANNELS, SIDE, SIDE}}},
      .dims = {{B, "B", "batch"},
               {CHANNELS, "C", "image channels"},
               {SIDE, "S", "image side"},
               {WIDTH, "W", "conv channels"},
               {CLASSES, "K", "classes"}},
  };
}
