#include "ir/attrs_interner.hpp"

#include <cmath>
#include <utility>

namespace nndna::ir {

bool identicalAttrs(const OpAttrs& a, const OpAttrs& b) {
  return a == b && std::signbit(a.scalar) == std::signbit(b.scalar) &&
         std::signbit(a.scalar2) == std::signbit(b.scalar2);
}

const OpAttrsBox* OpAttrsInterner::find(OpKind kind, const OpAttrs& attrs) const {
  for (const OpAttrsBox& seen : recent_[static_cast<std::size_t>(kind)].boxes) {
    if (seen.any() && identicalAttrs(*seen, attrs)) return &seen;
  }
  return nullptr;
}

void OpAttrsInterner::remember(OpKind kind, const OpAttrsBox& box) {
  if (std::isnan(box->scalar) || std::isnan(box->scalar2)) return;  // would never match
  Recent& recent = recent_[static_cast<std::size_t>(kind)];
  recent.boxes[recent.next] = box;
  recent.next = static_cast<std::uint8_t>((recent.next + 1) % kPerKind);
}

OpAttrsBox OpAttrsInterner::intern(OpKind kind, OpAttrsBox attrs) {
  attrs.dropIfDefaults();
  if (!attrs.any()) return attrs;
  if (const OpAttrsBox* seen = find(kind, *attrs)) return *seen;
  remember(kind, attrs);
  return attrs;
}

OpAttrsBox OpAttrsInterner::intern(OpKind kind, OpAttrs&& attrs) {
  if (const OpAttrsBox* seen = find(kind, attrs)) return *seen;
  OpAttrsBox box(std::move(attrs));  // none when all are defaults
  if (box.any()) remember(kind, box);
  return box;
}

}  // namespace nndna::ir
