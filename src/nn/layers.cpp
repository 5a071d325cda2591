// The built-in layers: Linear, LayerNorm, RMSNorm, Embedding, Conv2d, BatchNorm2d.
#include <fmt/format.h>

#include <stdexcept>

#include "nndna/nndna.hpp"
#include "ops/norm_ops.hpp"

namespace nndna {

namespace {
void requirePositive(const Module& layer, std::string_view kind,
                     std::initializer_list<std::pair<std::string_view, std::int64_t>> sizes) {
  for (const auto& [what, size] : sizes) {
    if (size <= 0) {
      throw std::invalid_argument(
          fmt::format("{} '{}': {} must be positive, got {}", kind, layer.path(), what, size));
    }
  }
}
}  // namespace

Linear::Linear(std::string_view name, std::int64_t in, std::int64_t out, LinearOptions options)
    : Module(name) {
  requirePositive(*this, "Linear", {{"in", in}, {"out", out}});
  weight = param("weight", {in, out}, {options.init, options.decay.value_or(true)});
  if (options.bias) bias = param("bias", {out}, {Init{}, false});
}

Tensor Linear::operator()(Tensor x) const {
  Tensor y = matmul(x, weight);
  return bias.defined() ? add(y, bias) : y;
}

LayerNorm::LayerNorm(std::string_view name, std::int64_t dim, LayerNormOptions options)
    : Module(name), eps(options.eps) {
  requirePositive(*this, "LayerNorm", {{"dim", dim}});
  const bool decay = options.decay.value_or(false);
  weight = param("weight", {dim}, {init::ones(), decay});
  if (options.bias) bias = param("bias", {dim}, {init::zeros(), decay});
}

Tensor LayerNorm::operator()(Tensor x) const { return ops::layerNorm(x, weight, bias, eps); }

RMSNorm::RMSNorm(std::string_view name, std::int64_t dim, RMSNormOptions options)
    : Module(name), eps(options.eps) {
  requirePositive(*this, "RMSNorm", {{"dim", dim}});
  weight = param("weight", {dim}, {init::ones(), options.decay.value_or(false)});
}

Tensor RMSNorm::operator()(Tensor x) const { return ops::rmsNorm(x, weight, eps); }

Embedding::Embedding(std::string_view name, std::int64_t vocab, std::int64_t dim,
                     EmbeddingOptions options)
    : Module(name) {
  requirePositive(*this, "Embedding", {{"vocab", vocab}, {"dim", dim}});
  weight = param("weight", {vocab, dim}, {options.init, options.decay.value_or(true)});
}

Tensor Embedding::operator()(Tensor indices) const { return embedding(weight, indices); }

Conv2d::Conv2d(std::string_view name, std::int64_t inChannels, std::int64_t outChannels,
               Hw kernel, Conv2dLayerOptions options)
    : Module(name), conv{options.stride, options.padding, options.groups} {
  requirePositive(*this, "Conv2d",
                  {{"inChannels", inChannels},
                   {"outChannels", outChannels},
                   {"kernel height", kernel.h},
                   {"kernel width", kernel.w},
                   {"groups", options.groups}});
  if (inChannels % options.groups != 0 || outChannels % options.groups != 0) {
    throw std::invalid_argument(fmt::format(
        "Conv2d '{}': channels {} -> {} must be divisible by groups = {}", path(), inChannels,
        outChannels, options.groups));
  }
  weight = param("weight", {outChannels, inChannels / options.groups, kernel.h, kernel.w},
                 {options.init, options.decay.value_or(true)});
  if (options.bias) bias = param("bias", {outChannels}, {Init{}, false});
}

Tensor Conv2d::operator()(Tensor x) const {
  Tensor y = conv2d(x, weight, conv);
  if (!bias.defined()) return y;
  // [outC] -> [outC, 1, 1] broadcasts over [N, outC, H, W].
  return add(y, reshape(bias, {bias.dim(0), 1, 1}));
}

BatchNorm2d::BatchNorm2d(std::string_view name, std::int64_t channels, BatchNorm2dOptions opts)
    : Module(name), options(opts) {
  requirePositive(*this, "BatchNorm2d", {{"channels", channels}});
  weight = param("weight", {channels}, {init::ones(), false});
  bias = param("bias", {channels}, {init::zeros(), false});
  runningMean = state("running_mean", {channels}, init::zeros());
  runningVar = state("running_var", {channels}, init::ones());
}

Tensor BatchNorm2d::operator()(Tensor x) const {
  if (isTraining()) return ops::batchNorm2d(x, weight, bias, options.eps, options.momentum);
  return ops::batchNorm2dInference(x, weight, bias, runningMean, runningVar, options.eps);
}

}  // namespace nndna
