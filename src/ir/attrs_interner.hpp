// One shared block for each distinct set of op attributes (ir.hpp, OpAttrsBox): what the tracer,
// the IR reader and autodiff hand the ops they make. Exported for the tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "nndna/export.hpp"
#include "nndna/ir.hpp"

namespace nndna::ir {

// The same values, the sign of a zero included (a `mul(x, -0.0)` is not a `mul(x, 0.0)`).
NNDNA_API bool identicalAttrs(const OpAttrs& a, const OpAttrs& b);

// Hands out one block for attributes seen before, so a graph holds each distinct set of
// attributes once. It remembers the first `kCapacity` distinct sets: a loop's repeats come early
// and often, and a graph whose attributes never repeat costs no more than a bounded table.
class NNDNA_API OpAttrsInterner {
 public:
  static constexpr std::size_t kCapacity = 4096;
  // `attrs` itself, or a box sharing an earlier identical block; none when all are defaults.
  OpAttrsBox intern(OpAttrsBox attrs);
  std::size_t size() const { return seen_.size(); }

 private:
  std::unordered_multimap<std::uint64_t, OpAttrsBox> seen_;  // keyed by their hash
};

}  // namespace nndna::ir
