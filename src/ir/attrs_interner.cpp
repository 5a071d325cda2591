#include "ir/attrs_interner.hpp"

#include <bit>
#include <cmath>
#include <functional>
#include <string_view>
#include <utility>

namespace nndna::ir {

bool identicalAttrs(const OpAttrs& a, const OpAttrs& b) {
  return a == b && std::signbit(a.scalar) == std::signbit(b.scalar) &&
         std::signbit(a.scalar2) == std::signbit(b.scalar2);
}

namespace {

// Each field's value in turn; doubles by their bits, so zeros of either sign differ as
// identicalAttrs says they do.
std::uint64_t hashOf(const OpAttrs& a) {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL;
  auto mix = [&h](std::uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  auto mixText = [&mix](std::string_view text) { mix(std::hash<std::string_view>{}(text)); };
  mixText(a.name);
  mix(a.dims.size());
  for (std::int64_t d : a.dims) mix(static_cast<std::uint64_t>(d));
  mix(a.names.size());
  for (const std::string& n : a.names) mixText(n);
  for (std::int64_t v : {a.axis, a.start, a.count, a.groups, a.kernel[0], a.kernel[1], a.stride[0],
                         a.stride[1], a.padding[0], a.padding[1]}) {
    mix(static_cast<std::uint64_t>(v));
  }
  mix(std::bit_cast<std::uint64_t>(a.scalar));
  mix(std::bit_cast<std::uint64_t>(a.scalar2));
  mix(a.seed);
  mix((a.allAxes ? 1U : 0U) | (a.keepDims ? 2U : 0U) | (a.scalarOperand ? 4U : 0U) |
      (a.scalarLeft ? 8U : 0U) | (a.approximate ? 16U : 0U));
  mix(static_cast<std::uint64_t>(a.dtype));
  mix(static_cast<std::uint64_t>(a.reduction));
  return h;
}

}  // namespace

OpAttrsBox OpAttrsInterner::intern(OpAttrsBox box) {
  box.dropIfDefaults();
  if (!box.any()) return box;
  const std::uint64_t hash = hashOf(*box);
  auto [begin, end] = seen_.equal_range(hash);
  for (auto it = begin; it != end; ++it) {
    if (identicalAttrs(*it->second, *box)) return it->second;
  }
  if (seen_.size() < kCapacity) seen_.emplace(hash, box);
  return box;
}

}  // namespace nndna::ir
