// ResNet building blocks as torchvision names them (`layer2.0.downsample`), for the diagram's
// stage/block tests: a stage is a holder module with its blocks; a block's first instance in a
// stage may downsample (a strided 1×1 convolution and a batch norm on the shortcut).
#pragma once

#include <nndna/nndna.hpp>

#include <optional>
#include <string>
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

inline Tensor bottleneck(const Bottleneck& b, Tensor x) {
  Tensor h = relu(b.bn1(b.conv1(x)));
  h = relu(b.bn2(b.conv2(h)));
  h = b.bn3(b.conv3(h));
  return relu(add(h, shortcut(b.downsample, x)));
}

inline Tensor basicBlock(const BasicBlock& b, Tensor x) {
  Tensor h = relu(b.bn1(b.conv1(x)));
  h = b.bn2(b.conv2(h));
  return relu(add(h, shortcut(b.downsample, x)));
}

}  // namespace resnet
