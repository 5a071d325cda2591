#include "ir/attrs_interner.hpp"

#include <cmath>
#include <utility>

namespace nndna::ir {

bool identicalAttrs(const OpAttrs& a, const OpAttrs& b) {
  return a == b && std::signbit(a.scalar) == std::signbit(b.scalar) &&
         std::signbit(a.scalar2) == std::signbit(b.scalar2);
}

OpAttrsBox OpAttrsInterner::intern(OpKind kind, OpAttrsBox attrs) {
  attrs.dropIfDefaults();
  if (!attrs.any()) return attrs;
  Recent& recent = recent_[static_cast<std::size_t>(kind)];
  for (const OpAttrsBox& seen : recent.boxes) {
    if (seen.any() && identicalAttrs(*seen, *attrs)) return seen;
  }
  recent.boxes[recent.next] = attrs;
  recent.next = static_cast<std::uint8_t>((recent.next + 1) % kPerKind);
  return attrs;
}

}  // namespace nndna::ir
