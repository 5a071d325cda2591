#include "nndna/op_kind.hpp"

#include <algorithm>
#include <utility>

namespace nndna::ir {

namespace {

// The table's names in sorted order with their rows, sorted by the compiler: the IR reader looks
// up every op's kind, and a linear scan of the table compared about sixty names per op.
constexpr auto kKindsByName = [] {
  std::array<std::pair<std::string_view, std::size_t>, kOpKindCount> sorted{};
  for (std::size_t i = 0; i < kOpKindCount; ++i) sorted[i] = {kOpTable[i].name, i};
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}();

}  // namespace

std::optional<OpKind> opKindFromName(std::string_view name) {
  const auto it = std::lower_bound(kKindsByName.begin(), kKindsByName.end(), name,
                                   [](const auto& entry, std::string_view n) { return entry.first < n; });
  if (it == kKindsByName.end() || it->first != name) return std::nullopt;
  return opKindAt(it->second);
}

}  // namespace nndna::ir
