// A residual network (ResNet, torchvision's layout): a 7×7 stem, four stages of residual blocks
// whose first block halves the image and widens the channels, global average pooling, a linear
// head. Basic blocks are two 3×3 convs; bottleneck blocks are 1×1, 3×3, 1×1 with 4× expansion.
#include <nndna/nndna.hpp>

#include <string>

using namespace nndna;

namespace {

constexpr int B = 32;                    // images per batch
constexpr int CHANNELS = 3;              // image channels
constexpr int SIDE = 224;                // image height and width
constexpr int WIDTH = 64;                // channels of the stem and the first stage
constexpr int BLOCKS[] = {2, 2, 2, 2};   // residual blocks per stage
constexpr int EXPANSION = 1;             // a block's output channels per inner channel  //[!bottleneck]
//[bottleneck] constexpr int EXPANSION = 4;             // a block's output channels per inner channel
constexpr int CLASSES = 1000;

const Conv2dLayerOptions NO_BIAS{.bias = false};

// One residual block. `in` channels come in, `inner * EXPANSION` go out; `stride` 2 halves the
// image. When the shape changes, the shortcut is a strided 1×1 conv with BatchNorm (a list of
// at most one: a layer that some blocks have and others do not).
struct ResidualBlock : Module {
  ResidualBlock(int in, int inner, int stride)
      : conv1{"conv1", in, inner, 3, {.stride = stride, .padding = 1, .bias = false}},  //[!bottleneck]
        bn1{"bn1", inner},  //[!bottleneck]
        conv2{"conv2", inner, inner, 3, {.padding = 1, .bias = false}},  //[!bottleneck]
        bn2{"bn2", inner},  //[!bottleneck]
        //[bottleneck] : conv1{"conv1", in, inner, 1, NO_BIAS},
        //[bottleneck]   bn1{"bn1", inner},
        //[bottleneck]   conv2{"conv2", inner, inner, 3, {.stride = stride, .padding = 1, .bias = false}},
        //[bottleneck]   bn2{"bn2", inner},
        //[bottleneck]   conv3{"conv3", inner, inner * EXPANSION, 1, NO_BIAS},
        //[bottleneck]   bn3{"bn3", inner * EXPANSION},
        down(list<Conv2d>("down", stride != 1 || in != inner * EXPANSION ? 1 : 0, in, inner * EXPANSION, 1,
                          Conv2dLayerOptions{.stride = stride, .bias = false})),
        downBn(list<BatchNorm2d>("down_bn", down.size(), inner * EXPANSION)) {}

  Conv2d conv1;
  BatchNorm2d bn1;
  Conv2d conv2;
  BatchNorm2d bn2;
  //[bottleneck] Conv2d conv3;
  //[bottleneck] BatchNorm2d bn3;
  std::vector<Conv2d> down;
  std::vector<BatchNorm2d> downBn;
};

// A stage: `blocks` residual blocks, the first one strided.
struct Stage : Module {
  Stage(int in, int inner, int blocks, int stride) {
    for (int i = 0; i < blocks; ++i) {
      layers.push_back(child<ResidualBlock>(std::to_string(i), i == 0 ? in : inner * EXPANSION, inner,
                                            i == 0 ? stride : 1));
    }
  }
  std::vector<ResidualBlock> layers;
};

struct ResNet : Module {
  Conv2d stem{"stem", CHANNELS, WIDTH, 7, {.stride = 2, .padding = 3, .bias = false}};
  BatchNorm2d stemBn{"stem_bn", WIDTH};
  std::vector<Stage> stages;
  Linear fc{"fc", WIDTH * 8 * EXPANSION, CLASSES};

  ResNet() {
    for (int s = 0; s < 4; ++s) {
      const int in = s == 0 ? WIDTH : (WIDTH << (s - 1)) * EXPANSION;
      stages.push_back(child<Stage>("layer" + std::to_string(s + 1), in, WIDTH << s, BLOCKS[s], s == 0 ? 1 : 2));
    }
  }
};

Tensor residual(const ResidualBlock& b, Tensor x) {
  Tensor h = relu(b.bn1(b.conv1(x)));
  h = b.bn2(b.conv2(h));  //[!bottleneck]
  //[bottleneck] h = relu(b.bn2(b.conv2(h)));
  //[bottleneck] h = b.bn3(b.conv3(h));
  Tensor shortcut = b.down.empty() ? x : b.downBn[0](b.down[0](x));
  return relu(add(h, shortcut));
}

Tensor classify(const ResNet& m, Tensor images) {
  Tensor h = relu(m.stemBn(m.stem(images)));               // [B, WIDTH, SIDE/2, SIDE/2]
  h = maxPool2d(h, 3, {.stride = 2, .padding = 1});         // [B, WIDTH, SIDE/4, SIDE/4]
  for (const Stage& stage : m.stages) {
    for (const ResidualBlock& block : stage.layers) h = residual(block, h);
  }
  Tensor pooled = adaptiveAvgPool2d(h, 1);                  // global average pooling
  return m.fc(reshape(pooled, {B, -1}));                    // [B, CLASSES]
}

Tensor lossFn(ResNet& m, const Inputs& in) { return crossEntropy(classify(m, in["images"]), in["labels"]); }

Tensor predictFn(ResNet& m, const Inputs& in) { return classify(m, in["images"]); }

}  // namespace

NNDNA_SPEC(ResNet) {
  return {
      .label = "ResNet-18 image classifier",
      .description =
          "A residual network of 4 stages of basic blocks (2, 2, 2, 2), 64 to 512 channels, "
          "after a 7×7 stem and max pooling; global average pooling and a 1000-way head. "
          "224×224 colour images in batches of 32, SGD with momentum.",
      .loss = lossFn,
      .inputs = {{"images", {B, CHANNELS, SIDE, SIDE}}, {"labels", {B}, i32}},
      .optimizer = SGD{.lr = 0.1, .momentum = 0.9},
      .predict = predictFn,
      .predictInputs = {{"images", {B, CHANNELS, SIDE, SIDE}}},
      .dims = {{B, "B", "batch"},
               {CHANNELS, "C", "image channels"},
               {SIDE, "S", "image side"},
               {WIDTH, "W", "stem channels"},
               {CLASSES, "K", "classes"}},
  };
}
