// Cutting a large diagram's DOT into bands that Graphviz lays out one by one (see
// render/stacked_bands.hpp for why): the picture stays the same top-to-bottom flow, and the
// layout time grows linearly with the diagram instead of quadratically.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "render/stacked_bands.hpp"

namespace nndna::diagram::detail {

struct Bands {
  std::vector<std::string> dots;              // one complete DOT graph per band, top to bottom
  std::vector<render::BandEdge> crossEdges;   // edges whose ends lie in different bands
};

// Cuts `dot`, as assemble() writes it (one statement per line; clusters as `subgraph cluster_N {`
// … `}`; edges at top level after the boxes), into bands of at most about `budget` boxes +
// clusters each, in drawing order. A cluster that fits in a band is never cut; a larger one is
// cut between its children, and its later pieces repeat its style with the label marked
// "(continued)" and the id `c<N>-<piece>`. The bands drop the large-diagram speed settings
// (nslimit, nslimit1, mclimit, newrank): each is small enough to lay out at full quality, unless
// `keepSpeedSettings` (bands of a diagram whose long edges make even a band costly).
Bands cutIntoBands(std::string_view dot, std::size_t budget, bool keepSpeedSettings = false);

}  // namespace nndna::diagram::detail
