// What the built-in layers share: checks that name the layer at the spec's line, and PyTorch's
// default initialisation.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <utility>

#include "nndna/nndna.hpp"

namespace nndna::layers {

// Each size positive, else an error naming the layer and the size.
void requirePositive(const Module& layer, std::string_view kind,
                     std::initializer_list<std::pair<std::string_view, std::int64_t>> sizes);

// A layer default-constructed and never assigned (`Linear fc;`) has no weight. Said at the call,
// where otherwise its first op would blame an undefined input.
void requireBuilt(const Tensor& weight, std::string_view kind);

// The input a layer takes, checked at its call so that the error names the layer and what it
// expects (`Conv2d: layer 'conv1': the input must be [N, 3, H, W], got [8, 1, 224, 224]`), not
// the op inside it. `ok` says whether `x` fits (false for an undefined tensor).
void requireInput(const Module& layer, std::string_view kind, const Tensor& x, bool ok, std::string_view expected);

// requireInput for a layer taking x [N, C, ...] of `rank` axes with C = `channels` (PyTorch's
// channels-first layout). An input of that rank whose last axis, not its second, is C — channels
// last, as TensorFlow's and an image file's pixels are — is told the permute that fixes it.
void requireChannelsFirst(const Module& layer, std::string_view kind, const Tensor& x, std::int64_t rank,
                          std::int64_t channels, std::string_view expected);

// PyTorch's default for a layer's weight and bias: uniform(±1/√fan_in).
Init fanInUniform(std::int64_t fanIn);

// The init a layer records in the IR: the user's, or else the layer's own default, so the IR
// says what a parameter starts as and no reader has to guess the layer from the graph.
Init orLayerDefault(const Init& given, const Init& layerDefault);

// `k` times `size`, keeping its name (4·H) when it has one.
Size timesSize(std::int64_t k, const Size& size);

}  // namespace nndna::layers
