#include "nndna/op_kind.hpp"

namespace nndna::ir {

std::optional<OpKind> opKindFromName(std::string_view name) {
  for (std::size_t i = 0; i < kOpTable.size(); ++i) {
    if (kOpTable[i].name == name) return opKindAt(i);
  }
  return std::nullopt;
}

}  // namespace nndna::ir
