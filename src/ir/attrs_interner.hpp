// One shared block for the attributes that ops of a kind repeat (ir.hpp, OpAttrsBox): what the IR
// reader and autodiff hand the ops they make. Exported for the tests.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "nndna/export.hpp"
#include "nndna/ir.hpp"

namespace nndna::ir {

// The same values, the sign of a zero included (a `mul(x, -0.0)` is not a `mul(x, 0.0)`).
NNDNA_API bool identicalAttrs(const OpAttrs& a, const OpAttrs& b);

// Hands an op the block of the same kind's op with identical attributes, if that is one of the
// `kPerKind` distinct sets of its kind it remembers (the latest first seen; a hit does not
// refresh): every iteration of a loop repeats its body's attributes (the 200,000 `mul(h, 0.5)`s
// of a graph read from a file, and their gradients, hold one block). A few per kind keeps it a
// few comparisons and no allocation of its own; a body that repeats more distinct sets of one
// kind, always in the same order, shares none of that kind across iterations (each is forgotten
// just before it comes round again). The tracer does not use it: the comparisons made tracing
// 7-23% slower (bench_trace), for a graph the spec program writes out and drops. Sets holding a NaN are
// never identical, and are not remembered.
class NNDNA_API OpAttrsInterner {
 public:
  static constexpr std::size_t kPerKind = 4;
  // `attrs` itself, or a box sharing a recent identical block; none when all are defaults.
  OpAttrsBox intern(OpKind kind, OpAttrsBox attrs);
  // The same for attributes not yet in a block: a block is made only when none is shared.
  OpAttrsBox intern(OpKind kind, OpAttrs&& attrs);

 private:
  const OpAttrsBox* find(OpKind kind, const OpAttrs& attrs) const;
  void remember(OpKind kind, const OpAttrsBox& box);

  struct Recent {
    std::array<OpAttrsBox, kPerKind> boxes;
    std::uint8_t next = 0;  // the slot the next new set takes
  };
  std::array<Recent, kOpKindCount> recent_;
};

}  // namespace nndna::ir
