// Reading DOT text into a Graphviz graph whose clusters are drawn in the order the text gives.
//
// Graphviz's own reader (agmemread) numbers every named object by the address of its interned
// name, and keeps a graph's subgraphs sorted by that number. Where malloc places those names
// depends on the heap's history, so the same DOT drew its clusters in a different order from one
// run to the next (same geometry, other bytes: GPT-2 small's page differed in 3 of 3 runs). This
// reader numbers names in the order they first appear, so the same DOT gives the same SVG.
// Internal to nndna_render.
#pragma once

#include <graphviz/cgraph.h>

#include <string>

namespace nndna::render::detail {

// Parses `dot`, which Graphviz reads as NUL-terminated text. Returns nullptr when Graphviz rejects
// it (its message goes to the error callback, as with agmemread). The graph is closed with
// agclose. Call with the process-wide Graphviz lock held.
Agraph_t* readDot(const std::string& dot);

}  // namespace nndna::render::detail
