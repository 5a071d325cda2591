// Layout + SVG of a diagram: in one piece up to a size, in stacked bands beyond it.
#include "diagram/bands.hpp"
#include "nndna/diagram.hpp"
#include "render/stacked_bands.hpp"
#include "render/svg_render.hpp"

namespace nndna::diagram {
namespace {

// Boxes + clusters above which the diagram is laid out in bands. Graphviz's cost on a tall graph
// with many clusters grows with (clusters × ranks), which no speed setting bounds: on the
// unfoldable loop of tests/diagram/specs, 2,834 boxes + clusters took 1.0 s of CPU in one piece
// and 11,334 took 17 s (with the DOT's nslimit settings); in bands, 0.45 s and 1.9 s. Below this
// size the one-piece layout is fast and keeps Graphviz's global placement.
constexpr std::size_t kBandedAbove = 1000;
// Boxes + clusters per band, small enough to lay out at full quality (no speed settings). Measured
// on the same loop (CPU s at 2,834 / 11,334 items): 100 -> 0.45 / 1.8, 250 -> 0.49 / 2.2,
// 400 -> 0.56 / 2.3, 1,000 -> 0.86 / 3.6; smaller bands only add seams.
constexpr std::size_t kBandBudget = 200;

}  // namespace

std::string renderSvg(const Diagram& diagram) {
  // The DOT itself carries a large diagram's speed settings (nslimit, nslimit1, newrank, mclimit:
  // see assemble.cpp), so no layout option is set here.
  const render::LayoutOptions opts{};
  if (diagram.nodes.size() + diagram.clusters.size() <= kBandedAbove) {
    return render::renderInlineSvg(diagram.dot, opts);
  }
  const detail::Bands bands = detail::cutIntoBands(diagram.dot, kBandBudget);
  return render::renderStackedBands(bands.dots, bands.crossEdges, opts);
}

}  // namespace nndna::diagram
