// The built-in layers: Linear, LayerNorm, RMSNorm, Embedding, Conv2d, Conv1d, ConvTranspose2d,
// Dropout, BatchNorm2d, GroupNorm, InstanceNorm2d (MultiheadAttention: attention_layer.cpp; LSTM and GRU:
// recurrent_layers.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "nndna/nndna.hpp"
#include "nn/layer_support.hpp"
#include "ops/norm_ops.hpp"
#include "ops/op_builder.hpp"
#include "trace/tracer.hpp"

namespace nndna {

namespace {
using layers::fanInUniform;
using layers::orLayerDefault;
using layers::requireBuilt;
using layers::requireInput;
using layers::requirePositive;

// A convolution layer's sizes: channels, kernel and groups positive, both channel counts
// divisible by groups.
void requireConvSizes(const Module& layer, std::string_view kind, std::int64_t in, std::int64_t out,
                      std::initializer_list<std::pair<std::string_view, std::int64_t>> kernel,
                      std::int64_t groups) {
  requirePositive(layer, kind, {{"inChannels", in}, {"outChannels", out}});
  requirePositive(layer, kind, kernel);
  requirePositive(layer, kind, {{"groups", groups}});
  if (in % groups != 0 || out % groups != 0) {
    tracing::failAtUserLine(kind, fmt::format("layer '{}': channels {} -> {} must be divisible by groups = {}",
                                              layer.path(), in, out, groups));
  }
}

// Batch statistics while training (their running averages updated by the training step), unless
// frozen; the running statistics otherwise. x is NCHW.
Tensor batchNorm(bool training, const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& runningMean,
                 const Tensor& runningVar, const BatchNorm2dOptions& options) {
  if (training && !options.frozen) return ops::batchNorm2d(x, weight, bias, options.eps, options.momentum);
  return ops::batchNorm2dInference(x, weight, bias, runningMean, runningVar, options.eps);
}

// Channels per group: the channel count itself (and its name) when there is one group.
Size perGroup(const Size& channels, std::int64_t groups) {
  return groups == 1 ? channels : Size(channels.value() / groups);
}
}  // namespace

Linear::Linear(std::string_view name, Size in, Size out, LinearOptions options)
    : Module(name) {
  requirePositive(*this, "Linear", {{"in", in}, {"out", out}});
  weight = param("weight", {in, out},
                 {orLayerDefault(options.init, fanInUniform(in)), options.decay.value_or(true)});
  if (options.bias) bias = param("bias", {out}, {fanInUniform(in), false});
}

namespace {
// When the last axes of `shape`, from axis 1 on or later, hold exactly `features` values, the
// flatten that the input is missing (a CNN's feature map into its classifier): `flatten(x, 1)`.
std::string flattenHint(const Shape& shape, std::int64_t features) {
  std::int64_t values = 1;
  std::string product;
  for (std::size_t axis = shape.size(); axis-- > 1;) {
    if (__builtin_mul_overflow(values, shape[axis], &values)) return {};
    product = product.empty() ? std::to_string(shape[axis]) : fmt::format("{}·{}", shape[axis], product);
    if (values == features && axis + 1 < shape.size()) {
      return fmt::format(": its last {} axes hold {} = {} values, which flatten to the layer's features: "
                         "`flatten(x, {})` first (nn.Flatten)",
                         shape.size() - axis, product, values, axis);
    }
    if (values > features) return {};
  }
  return {};
}
}  // namespace

Tensor Linear::operator()(Tensor x) const {
  requireBuilt(weight, "Linear");
  // Checked here so that the message names the layer and its size, not the matmul inside it.
  if (x.defined() && x.rank() >= 1 && x.dim(-1) != weight.dim(0)) {
    tracing::failAtUserLine("Linear", fmt::format("layer '{}': the input's last axis is {}, but the layer takes {} "
                                                  "features (input {}){}",
                                                  path(), x.dim(-1), weight.dim(0), ir::formatShape(x.shape()),
                                                  flattenHint(x.shape(), weight.dim(0))));
  }
  Tensor y = matmul(x, weight);
  return bias.defined() ? add(y, bias) : y;
}

LayerNorm::LayerNorm(std::string_view name, Size dim, LayerNormOptions options)
    : Module(name), eps(options.eps) {
  requirePositive(*this, "LayerNorm", {{"dim", dim}});
  const bool decay = options.decay.value_or(false);
  weight = param("weight", {dim}, {init::ones(), decay});
  if (options.bias) bias = param("bias", {dim}, {init::zeros(), decay});
}

LayerNorm::LayerNorm(std::string_view name, std::initializer_list<Size> normalizedShape, LayerNormOptions options)
    : LayerNorm(name, Sizes(normalizedShape), options) {}

LayerNorm::LayerNorm(std::string_view name, Sizes normalizedShape, LayerNormOptions options)
    : Module(name), eps(options.eps) {
  if (normalizedShape.all().empty()) {
    tracing::failAtUserLine("LayerNorm", fmt::format("layer '{}': the normalized shape is empty (give at least one axis)", path()));
  }
  for (const Size& dim : normalizedShape.all()) requirePositive(*this, "LayerNorm", {{"normalizedShape", dim}});
  const bool decay = options.decay.value_or(false);
  weight = param("weight", normalizedShape, {init::ones(), decay});
  if (options.bias) bias = param("bias", normalizedShape, {init::zeros(), decay});
}

Tensor LayerNorm::operator()(Tensor x) const {
  requireBuilt(weight, "LayerNorm");
  const std::int64_t axes = weight.rank();
  if (axes == 1) return ops::layerNorm(x, weight, bias, eps);
  // Over several axes: the same statistics as over their product, so the input's last axes and the
  // weights are flattened into one, normalized, and the input's shape restored.
  const Shape normalized = weight.shape();
  const bool fits = x.defined() && x.rank() >= axes &&
                    std::equal(normalized.begin(), normalized.end(), x.shape().end() - axes);
  if (!fits) {
    tracing::failAtUserLine("LayerNorm", fmt::format("layer '{}': the input's last {} axes must be {}, got {}", path(), axes,
                                                     ir::formatShape(normalized),
                                                     x.defined() ? ir::formatShape(x.shape()) : "an undefined tensor"));
  }
  const Tensor y = ops::layerNorm(flatten(x, x.rank() - axes, -1), flatten(weight, 0, -1),
                                  bias.defined() ? flatten(bias, 0, -1) : bias, eps);
  return ops::reshapeLike("LayerNorm", y, x);
}

RMSNorm::RMSNorm(std::string_view name, Size dim, RMSNormOptions options)
    : Module(name), eps(options.eps) {
  requirePositive(*this, "RMSNorm", {{"dim", dim}});
  weight = param("weight", {dim}, {init::ones(), options.decay.value_or(false)});
}

Tensor RMSNorm::operator()(Tensor x) const {
  requireBuilt(weight, "RMSNorm");
  return ops::rmsNorm(x, weight, eps);
}

Embedding::Embedding(std::string_view name, Size vocab, Size dim,
                     EmbeddingOptions options)
    : Module(name) {
  requirePositive(*this, "Embedding", {{"vocab", vocab}, {"dim", dim}});
  // Said at the declaration, as nn.Embedding says it at construction.
  if (const std::int64_t rows = vocab; options.paddingIdx && (*options.paddingIdx < -rows || *options.paddingIdx >= rows)) {
    tracing::failAtUserLine("Embedding", fmt::format("layer '{}': paddingIdx {} must be within the {} rows ([-{}, {}))",
                                                     path(), *options.paddingIdx, rows, rows, rows));
  }
  // nn.Embedding's default: normal(0, 1).
  weight = param("weight", {vocab, dim},
                 {orLayerDefault(options.init, init::normal(1.0)), options.decay.value_or(true)});
  paddingIdx = options.paddingIdx;
}

Tensor Embedding::operator()(Tensor indices) const {
  requireBuilt(weight, "Embedding");
  if (indices.defined() && indices.dtype() != DType::i32) {
    tracing::failAtUserLine("Embedding", fmt::format("layer '{}': the indices must be i32 (token ids), got {} {}", path(),
                                                     ir::formatShape(indices.shape()), ir::dtypeName(indices.dtype())));
  }
  return embedding(weight, indices, paddingIdx);
}

Conv2d::Conv2d(std::string_view name, Size inChannels, Size outChannels,
               Hw kernel, Conv2dLayerOptions options)
    : Module(name),
      conv{.stride = options.stride, .padding = options.padding, .groups = options.groups, .dilation = options.dilation} {
  requireConvSizes(*this, "Conv2d", inChannels, outChannels,
                   {{"kernel height", kernel.h}, {"kernel width", kernel.w}}, options.groups);
  const std::int64_t fanIn = inChannels / options.groups * kernel.h * kernel.w;
  weight = param("weight", {outChannels, perGroup(inChannels, options.groups), kernel.h, kernel.w},
                 {orLayerDefault(options.init, fanInUniform(fanIn)), options.decay.value_or(true)});
  if (options.bias) bias = param("bias", {outChannels}, {fanInUniform(fanIn), false});
}

Tensor Conv2d::operator()(Tensor x) const {
  requireBuilt(weight, "Conv2d");
  const std::int64_t channels = weight.dim(1) * conv.groups;
  layers::requireChannelsFirst(*this, "Conv2d", x, 4, channels, fmt::format("[N, {}, H, W]", channels));
  Tensor y = conv2d(x, weight, conv);
  if (!bias.defined()) return y;
  // [outC] -> [outC, 1, 1] broadcasts over [N, outC, H, W].
  return add(y, reshape(bias, {bias.dim(0), 1, 1}));
}

Conv1d::Conv1d(std::string_view name, Size inChannels, Size outChannels,
               std::int64_t kernel, Conv1dLayerOptions options)
    : Module(name),
      conv{.stride = options.stride, .padding = options.padding, .groups = options.groups, .dilation = options.dilation} {
  requireConvSizes(*this, "Conv1d", inChannels, outChannels, {{"kernel", kernel}}, options.groups);
  const std::int64_t fanIn = inChannels / options.groups * kernel;
  weight = param("weight", {outChannels, perGroup(inChannels, options.groups), kernel},
                 {orLayerDefault(options.init, fanInUniform(fanIn)), options.decay.value_or(true)});
  if (options.bias) bias = param("bias", {outChannels}, {fanInUniform(fanIn), false});
}

Tensor Conv1d::operator()(Tensor x) const {
  requireBuilt(weight, "Conv1d");
  const std::int64_t channels = weight.dim(1) * conv.groups;
  layers::requireChannelsFirst(*this, "Conv1d", x, 3, channels, fmt::format("[N, {}, L]", channels));
  Tensor y = conv1d(x, weight, conv);
  if (!bias.defined()) return y;
  // [outC] -> [outC, 1] broadcasts over [N, outC, L].
  return add(y, reshape(bias, {bias.dim(0), 1}));
}

ConvTranspose2d::ConvTranspose2d(std::string_view name, Size inChannels, Size outChannels,
                                 Hw kernel,
                                 ConvTranspose2dLayerOptions options)
    : Module(name), conv{options.stride, options.padding, options.outputPadding, options.groups} {
  requireConvSizes(*this, "ConvTranspose2d", inChannels, outChannels,
                   {{"kernel height", kernel.h}, {"kernel width", kernel.w}}, options.groups);
  // Said where the layer is declared, not at its first call.
  const Hw& pad = options.outputPadding;
  const Hw& stride = options.stride;
  if (pad.h < 0 || pad.w < 0 || pad.h >= stride.h || pad.w >= stride.w) {
    tracing::failAtUserLine("ConvTranspose2d", fmt::format("layer '{}': outputPadding ({}, {}) must be >= 0 and smaller "
                                                           "than the stride ({}, {})",
                                                           path(), pad.h, pad.w, stride.h, stride.w));
  }
  // PyTorch computes the fan-in from the weight's axis 1: outC/groups · kH · kW.
  const std::int64_t fanIn = outChannels / options.groups * kernel.h * kernel.w;
  weight = param("weight", {inChannels, perGroup(outChannels, options.groups), kernel.h, kernel.w},
                 {orLayerDefault(options.init, fanInUniform(fanIn)), options.decay.value_or(true)});
  if (options.bias) bias = param("bias", {outChannels}, {fanInUniform(fanIn), false});
}

Tensor ConvTranspose2d::operator()(Tensor x) const {
  requireBuilt(weight, "ConvTranspose2d");
  const std::int64_t channels = weight.dim(0);
  layers::requireChannelsFirst(*this, "ConvTranspose2d", x, 4, channels, fmt::format("[N, {}, H, W]", channels));
  Tensor y = convTranspose2d(x, weight, conv);
  if (!bias.defined()) return y;
  return add(y, reshape(bias, {bias.dim(0), 1, 1}));
}

Dropout::Dropout(std::string_view name, double p_) : Module(name), p(p_) {
  // Said where the layer is declared (the dropout op, at the call, only runs in training).
  if (!(p >= 0.0 && p < 1.0)) {
    tracing::failAtUserLine("Dropout", fmt::format("layer '{}': p must be in [0, 1), got {}", path(), p));
  }
}

Tensor Dropout::operator()(Tensor x) const { return isTraining() ? dropout(x, p) : x; }

BatchNorm2d::BatchNorm2d(std::string_view name, Size channels, BatchNorm2dOptions opts)
    : Module(name), options(opts) {
  requirePositive(*this, "BatchNorm2d", {{"channels", channels}});
  weight = param("weight", {channels}, {init::ones(), false});
  bias = param("bias", {channels}, {init::zeros(), false});
  runningMean = state("running_mean", {channels}, init::zeros());
  runningVar = state("running_var", {channels}, init::ones());
}

Tensor BatchNorm2d::operator()(Tensor x) const {
  requireBuilt(weight, "BatchNorm2d");
  const std::int64_t channels = weight.dim(0);
  layers::requireChannelsFirst(
      *this, "BatchNorm2d", x, 4, channels,
      fmt::format("[N, {}, H, W]{}", channels,
                  x.defined() && (x.rank() == 2 || x.rank() == 3) ? " (BatchNorm1d takes [N, C] and [N, C, L])" : ""));
  return batchNorm(isTraining(), x, weight, bias, runningMean, runningVar, options);
}

BatchNorm1d::BatchNorm1d(std::string_view name, Size features, BatchNorm1dOptions opts)
    : Module(name), options(opts) {
  requirePositive(*this, "BatchNorm1d", {{"features", features}});
  weight = param("weight", {features}, {init::ones(), false});
  bias = param("bias", {features}, {init::zeros(), false});
  runningMean = state("running_mean", {features}, init::zeros());
  runningVar = state("running_var", {features}, init::ones());
}

Tensor BatchNorm1d::operator()(Tensor x) const {
  requireBuilt(weight, "BatchNorm1d");
  const std::int64_t features = weight.dim(0);
  requireInput(*this, "BatchNorm1d", x, x.defined() && (x.rank() == 2 || x.rank() == 3) && x.dim(1) == features,
               fmt::format("[N, {0}] or [N, {0}, L]", features));
  // [N, C] and [N, C, L] are NCHW with H = L (or 1) and W = 1: the same statistics per channel.
  const Shape shape = x.shape();
  const Tensor nchw = ops::reshapeAs("BatchNorm1d", x, Shape{shape[0], shape[1], x.rank() == 3 ? shape[2] : 1, 1});
  const Tensor y = batchNorm(isTraining(), nchw, weight, bias, runningMean, runningVar, options);
  return ops::reshapeAs("BatchNorm1d", y, shape);
}

GroupNorm::GroupNorm(std::string_view name, std::int64_t numGroups_, Size numChannels,
                     GroupNormOptions options)
    : Module(name), numGroups(numGroups_), eps(options.eps) {
  requirePositive(*this, "GroupNorm", {{"numGroups", numGroups}, {"numChannels", numChannels}});
  if (numChannels % numGroups != 0) {
    tracing::failAtUserLine("GroupNorm", fmt::format(
        "layer '{}': numChannels {} must be divisible by numGroups = {}", path(), numChannels.value(),
        numGroups));
  }
  if (!options.affine) return;
  const bool decay = options.decay.value_or(false);
  weight = param("weight", {numChannels}, {init::ones(), decay});
  bias = param("bias", {numChannels}, {init::zeros(), decay});
}

Tensor GroupNorm::operator()(Tensor x) const { return groupNorm(x, numGroups, weight, bias, eps); }

InstanceNorm2d::InstanceNorm2d(std::string_view name, Size channels_, InstanceNormOptions options)
    : Module(name), channels(channels_), eps(options.eps) {
  requirePositive(*this, "InstanceNorm2d", {{"channels", channels_}});
  if (!options.affine) return;
  weight = param("weight", {channels_}, {init::ones(), options.decay.value_or(false)});
  bias = param("bias", {channels_}, {init::zeros(), options.decay.value_or(false)});
}

Tensor InstanceNorm2d::operator()(Tensor x) const {
  if (channels <= 0) requireBuilt(Tensor(), "InstanceNorm2d");  // default-constructed, never assigned
  layers::requireChannelsFirst(*this, "InstanceNorm2d", x, 4, channels.value(), fmt::format("[N, {}, H, W]", channels.value()));
  return groupNorm(x, channels, weight, bias, eps);
}

}  // namespace nndna
