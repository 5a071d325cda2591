// Merging the sides into one diagram model and writing its DOT.
//
// One side model draws that side alone. Two merge by key: anything only one side draws gets an
// `only-<side>` class for the page to fade; a shared node takes the path with more loops, so a
// model the sampler repeats shows its ×N. Each side's wrapper around the same shared nodes is one
// call seen from two sides: the pair draws as one cluster whose label the page swaps.
#pragma once

#include <string>
#include <vector>

#include "diagram/dims.hpp"
#include "diagram/side_model.hpp"
#include "nndna/diagram.hpp"

namespace nndna::diagram::detail {

// Fills nodes, clusters, edges, collisions and dot of `out` from one or two side models.
void assemble(const std::vector<SideModel>& models, const DimResolver& dims, Diagram& out);

// The virtual nodes Graphviz's dot adds for `d`'s edges (an edge spanning k ranks adds k - 1),
// each box ranked at the longest path of edges into it. They count towards the size at which the
// DOT asks for a faster, bounded layout.
std::size_t virtualNodeEstimate(const Diagram& d);

// A two-box DOT in the diagrams' styles (their fonts, label forms and cluster kinds): what
// warmUpRenderer (warm_up.hpp) lays out.
std::string warmUpDot();

}  // namespace nndna::diagram::detail
