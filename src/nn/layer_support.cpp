#include "nn/layer_support.hpp"

#include <fmt/format.h>

#include <cmath>

#include "trace/tracer.hpp"

namespace nndna::layers {

void requirePositive(const Module& layer, std::string_view kind,
                     std::initializer_list<std::pair<std::string_view, std::int64_t>> sizes) {
  for (const auto& [what, size] : sizes) {
    if (size <= 0) {
      tracing::failAtUserLine(
          kind, fmt::format("layer '{}': {} must be positive, got {}", layer.path(), what, size));
    }
  }
}

void requireBuilt(const Tensor& weight, std::string_view kind) {
  if (weight.defined()) return;
  tracing::failAtUserLine(kind, fmt::format("this {0} was never built: a default-constructed layer has no "
                                            "weights (declare it with a name and sizes, `{0} fc{{\"fc\", ...}};`)",
                                            kind));
}

void requireInput(const Module& layer, std::string_view kind, const Tensor& x, bool ok, std::string_view expected) {
  if (ok && x.defined()) return;
  tracing::failAtUserLine(kind, fmt::format("layer '{}': the input must be {}, got {}", layer.path(), expected,
                                            x.defined() ? ir::formatShape(x.shape()) : "an undefined tensor"));
}

void requireChannelsFirst(const Module& layer, std::string_view kind, const Tensor& x, std::int64_t rank,
                          std::int64_t channels, std::string_view expected) {
  if (x.defined() && x.rank() == rank && x.dim(1) == channels) return;
  if (!x.defined() || x.rank() != rank || x.dim(-1) != channels) {
    requireInput(layer, kind, x, false, expected);
  }
  // [N, ..., C] -> [N, C, ...]: axis 0, the last, then the middle ones.
  std::string axes = fmt::format("0, {}", rank - 1);
  for (std::int64_t i = 1; i + 1 < rank; ++i) axes += fmt::format(", {}", i);
  tracing::failAtUserLine(kind, fmt::format("layer '{}': the input must be {}, got {}: its last axis is the {} "
                                            "channels, as in a channels-last (NHWC) tensor; PyTorch's layers, and "
                                            "nndna's, take channels first: `permute(x, {{{}}})`",
                                            layer.path(), expected, ir::formatShape(x.shape()), channels, axes));
}

Init fanInUniform(std::int64_t fanIn) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(fanIn));
  return init::uniform(-bound, bound);
}

Init orLayerDefault(const Init& given, const Init& layerDefault) {
  return given.kind == Init::Kind::automatic ? layerDefault : given;
}

Size timesSize(std::int64_t k, const Size& size) {
  if (size.expr().factorCount() > 0) return Size(size.expr() * k);
  return Size(k * size.value());
}

}  // namespace nndna::layers
