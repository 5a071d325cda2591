// A diagram's layout split into what needs Graphviz and what does not, so that the Graphviz part
// can run in another process (the server's layout workers, src/server/layout_workers.hpp):
// planLayout (which DOT graphs to lay out: one, or the bands of a large diagram) and
// finishedSvg (the standalone SVG's touches) run where the Diagram is; layOut, given only the
// plan, anywhere. renderSvg(diagram) is the three in a row.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nndna/diagram.hpp"
#include "render/stacked_bands.hpp"

namespace nndna::diagram::detail {

struct LayoutPlan {
  std::vector<std::string> dots;             // one DOT graph, or the bands top to bottom
  std::vector<render::BandEdge> crossEdges;  // edges between bands
  bool banded = false;                       // stack the bands (renderStackedBands)
  friend bool operator==(const LayoutPlan&, const LayoutPlan&) = default;
};

LayoutPlan planLayout(const Diagram& diagram);
// Graphviz's SVG of the plan (inline: no XML prolog). Throws render::RenderError.
std::string layOut(const LayoutPlan& plan);
// The standalone SVG's touches on layOut's result: the training side's cluster labels, and the
// style that fades what only inference draws.
std::string finishedSvg(std::string svg, const Diagram& diagram);

// The plan as JSON, and back; planFromJson throws std::invalid_argument on anything else.
std::string planToJson(const LayoutPlan& plan);
LayoutPlan planFromJson(std::string_view json);

}  // namespace nndna::diagram::detail
