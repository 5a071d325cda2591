// ResNets as torchvision builds and names them (`layer2.0.downsample.conv`), for the diagram's
// stage/block tests: a stage is a holder module with its blocks; a stage's first block may
// downsample (a strided 1×1 convolution and a batch norm on the shortcut). ImageNet-sized: B = 32
// images of 224×224, 1000 classes.
#pragma once

#include <nndna/nndna.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace resnet {

using namespace nndna;

inline Conv2dLayerOptions convOptions(std::int64_t stride, std::int64_t padding) {
  return {.stride = stride, .padding = padding, .bias = false};
}

// The shortcut's projection, present when a block changes the width or the resolution.
struct Downsample : Module {
  Downsample(std::int64_t in, std::int64_t out, std::int64_t stride)
      : conv{"conv", in, out, 1, convOptions(stride, 0)}, bn{"bn", out} {}
  Conv2d conv;
  BatchNorm2d bn;
};

// 1×1 reduce, 3×3 (strided in a stage's first block), 1×1 expand ×4.
struct Bottleneck : Module {
  static constexpr std::int64_t kExpansion = 4;
  Bottleneck(std::int64_t in, std::int64_t width, std::int64_t stride)
      : conv1{"conv1", in, width, 1, convOptions(1, 0)},
        bn1{"bn1", width},
        conv2{"conv2", width, width, 3, convOptions(stride, 1)},
        bn2{"bn2", width},
        conv3{"conv3", width, width * kExpansion, 1, convOptions(1, 0)},
        bn3{"bn3", width * kExpansion} {
    if (stride != 1 || in != width * kExpansion) {
      downsample.emplace(child<Downsample>("downsample", in, width * kExpansion, stride));
    }
  }
  Conv2d conv1;
  BatchNorm2d bn1;
  Conv2d conv2;
  BatchNorm2d bn2;
  Conv2d conv3;
  BatchNorm2d bn3;
  std::optional<Downsample> downsample;
};

// Two 3×3 convolutions (ResNet-18/34).
struct BasicBlock : Module {
  static constexpr std::int64_t kExpansion = 1;
  BasicBlock(std::int64_t in, std::int64_t width, std::int64_t stride)
      : conv1{"conv1", in, width, 3, convOptions(stride, 1)},
        bn1{"bn1", width},
        conv2{"conv2", width, width, 3, convOptions(1, 1)},
        bn2{"bn2", width} {
    if (stride != 1 || in != width) downsample.emplace(child<Downsample>("downsample", in, width, stride));
  }
  Conv2d conv1;
  BatchNorm2d bn1;
  Conv2d conv2;
  BatchNorm2d bn2;
  std::optional<Downsample> downsample;
};

// A stage: `count` blocks named "0", "1", ...; the first takes the stage's input width and
// stride.
template <class Block>
struct Stage : Module {
  Stage(std::int64_t in, std::int64_t width, int count, std::int64_t stride) {
    for (int i = 0; i < count; ++i) {
      blocks.push_back(child<Block>(std::to_string(i), i == 0 ? in : width * Block::kExpansion,
                                    width, i == 0 ? stride : 1));
    }
  }
  std::vector<Block> blocks;
};

inline Tensor shortcut(const std::optional<Downsample>& d, Tensor x) {
  return d ? d->bn(d->conv(x)) : x;
}

// One overloaded name for both kinds of block, so a model template calls it directly.
inline Tensor residualBlock(const Bottleneck& b, Tensor x) {
  Tensor h = relu(b.bn1(b.conv1(x)));
  h = relu(b.bn2(b.conv2(h)));
  h = b.bn3(b.conv3(h));
  return relu(add(h, shortcut(b.downsample, x)));
}

inline Tensor residualBlock(const BasicBlock& b, Tensor x) {
  Tensor h = relu(b.bn1(b.conv1(x)));
  h = b.bn2(b.conv2(h));
  return relu(add(h, shortcut(b.downsample, x)));
}


constexpr int kBatch = 32;     // images per batch
constexpr int kSide = 224;     // image side
constexpr int kClasses = 1000;

// A ResNet with [N1, N2, N3, N4] blocks per stage at widths 64, 128, 256, 512, written the
// natural way: a list of stages, each a list of blocks.
template <class Block, int N1, int N2, int N3, int N4>
struct NestedResNet : Module {
  using BlockStage = Stage<Block>;
  static constexpr std::int64_t kOut = 512 * Block::kExpansion;
  Conv2d conv1{"conv1", 3, 64, 7, convOptions(2, 3)};
  BatchNorm2d bn1{"bn1", 64};
  std::vector<BlockStage> stages = [this] {
    constexpr std::int64_t e = Block::kExpansion;
    std::vector<BlockStage> s;
    s.push_back(child<BlockStage>("layer1", 64, 64, N1, 1));
    s.push_back(child<BlockStage>("layer2", 64 * e, 128, N2, 2));
    s.push_back(child<BlockStage>("layer3", 128 * e, 256, N3, 2));
    s.push_back(child<BlockStage>("layer4", 256 * e, 512, N4, 2));
    return s;
  }();
  Linear fc{"fc", kOut, kClasses};
};

template <class Model>
Tensor classifyNested(const Model& m, Tensor images) {
  Tensor x = maxPool2d(relu(m.bn1(m.conv1(images))), 3, {.stride = 2, .padding = 1});
  for (const auto& stage : m.stages) {
    for (const auto& block : stage.blocks) x = residualBlock(block, x);
  }
  return m.fc(mean(mean(x, -1), -1));
}

// The spec of a ResNet model type whose forward is `classify`: cross-entropy in training, the
// arg max at inference, SGD with momentum.
template <class Model, Tensor (*classify)(const Model&, Tensor)>
Tensor imageNetLoss(Model& m, const Inputs& in) {
  return crossEntropy(classify(m, in["images"]), in["labels"]);
}

template <class Model, Tensor (*classify)(const Model&, Tensor)>
Tensor imageNetPredict(Model& m, const Inputs& in) {
  return argmax(classify(m, in["images"]), -1);
}

template <class Model, Tensor (*classify)(const Model&, Tensor)>
Spec<Model> imageNetSpec(std::string_view label, std::string_view description) {
  return {
      .label = std::string(label),
      .description = std::string(description),
      .loss = &imageNetLoss<Model, classify>,
      .inputs = {{"images", {kBatch, 3, kSide, kSide}}, {"labels", {kBatch}, i32}},
      .optimizer = SGD{.lr = 0.1, .momentum = 0.9},
      .predict = &imageNetPredict<Model, classify>,
      .predictInputs = {{"images", {kBatch, 3, kSide, kSide}}},
      .dims = {{kBatch, "B", "batch"}, {kSide, "S", "image side"}, {kClasses, "K", "classes"}},
  };
}

}  // namespace resnet
