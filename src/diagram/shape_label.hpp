// The shape text of a box. A box hands on one tensor, or several (a `split` line: "3 × [B, T, D]");
// a box folded over iterations whose shapes differ shows every distinct shape, compactly: axes that
// differ list their values in iteration order ("[B, 128|256|512, 28|14|7, 28|14|7]").
#pragma once

#include <string>
#include <vector>

#include "diagram/dims.hpp"
#include "nndna/ir.hpp"

namespace nndna::diagram::detail {

// What a box hands on: one shape per output, in op order.
using BoxShape = std::vector<DrawnShape>;

// "[B, T, D]", "3 × [B, T, D]", "[B, T, D], 2 × [B, T, Dkv]" (dims resolved).
std::string plainBoxShape(const DimResolver& dims, const BoxShape& shape);

// The shape row of a box's Graphviz HTML-like label, for its distinct shapes (over sides and
// folded iterations, in order). Single outputs of one rank are merged axis by axis; axes with
// more than kListedValues values show the first two, "…" and the last. Anything else lists the
// shapes side by side.
inline constexpr std::size_t kListedValues = 4;
std::string htmlBoxShapes(const DimResolver& dims, const std::vector<BoxShape>& shapes);

}  // namespace nndna::diagram::detail
