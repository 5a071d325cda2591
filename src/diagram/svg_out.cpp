// Layout + SVG of a diagram: in one piece up to a size, in stacked bands beyond it.
#include <fmt/format.h>

#include <cstdlib>

#include "diagram/assemble.hpp"
#include "diagram/bands.hpp"
#include "diagram/layout_plan.hpp"
#include "diagram/text.hpp"
#include "diagram/warm_up.hpp"
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
// Graphviz's virtual nodes (assemble.hpp) above which even a smaller diagram is laid out in bands:
// Graphviz 2.42's x-placement grows about quadratically with them, whatever nslimit says. An input
// added after each of 450 activations (901 boxes, about 200,000 virtual nodes) took 127 s in one
// piece; 150 of them (22,651) 0.71 s. A band holds only its own edges' virtual nodes (edges
// between bands are nndna's), and keeps the speed settings.
constexpr std::size_t kBandedAboveVirtualNodes = 30000;

// A standalone SVG (written to a file, pasted into a document) fades what only inference draws,
// as the page's training view does. The page's own rules win over this one (their selectors are
// more specific), so its Training/Inference toggle still decides there. Graphviz writes no
// <style> element, so it goes right after the root's start tag.
constexpr std::string_view kStandaloneStyle =
    "<style>svg .only-infer { opacity: 0.18; }</style>\n";

std::string withStandaloneStyle(std::string svg) {
  const auto root = svg.find("<svg");
  const auto rootEnd = root == std::string::npos ? root : svg.find('>', root);
  if (rootEnd == std::string::npos) return svg;
  svg.insert(rootEnd + 1, "\n" + std::string(kStandaloneStyle));
  return svg;
}

// A standalone SVG is the training view, so a wrapper pair's cluster (one call seen from both
// sides) shows the training side's label. Laid out with the longer of the two labels, centred;
// pinned to its left edge (10pt Courier: 6 units per character), the training label reads from
// where the cluster's label starts, and so does the other side's when the page swaps it in.
void showTrainingLabels(std::string& svg, const Diagram& diagram) {
  for (const Cluster& c : diagram.clusters) {
    if (!c.trainLabel) continue;
    const auto group = svg.find(fmt::format("<g id=\"c{}\" ", c.id));
    if (group == std::string::npos) continue;
    const auto text = svg.find("<text text-anchor=\"middle\" x=\"", group);
    const auto groupEnd = svg.find("</g>", group);
    if (text == std::string::npos || text > groupEnd) continue;
    const auto xStart = text + std::string_view("<text text-anchor=\"middle\" x=\"").size();
    const auto xEnd = svg.find('"', xStart);
    const auto tagEnd = xEnd == std::string::npos ? xEnd : svg.find('>', xEnd);
    if (tagEnd == std::string::npos) continue;
    const auto contentStart = tagEnd + 1;
    const auto contentEnd = svg.find("</text>", contentStart);
    if (contentEnd == std::string::npos || contentEnd > groupEnd) continue;
    const double x = std::strtod(svg.c_str() + xStart, nullptr) - 3.0 * static_cast<double>(detail::characterCount(c.label));
    svg.replace(contentStart, contentEnd - contentStart, detail::escapeXml(*c.trainLabel));
    svg.replace(text, xEnd - text, fmt::format("<text text-anchor=\"start\" x=\"{}", x));
  }
}

}  // namespace

std::string standaloneDot(const Diagram& diagram) {
  std::string dot = diagram.dot;
  for (const Cluster& c : diagram.clusters) {
    if (!c.trainLabel || *c.trainLabel == c.label) continue;
    // assemble() writes a cluster's id, then its label on the next line.
    const std::string head = fmt::format("id=\"c{}\"\n", c.id);
    const auto at = dot.find(head);
    if (at == std::string::npos) continue;
    const std::string laidOut = fmt::format("label=\"{}\"", detail::escapeDotString(c.label));
    const auto label = dot.find(laidOut, at + head.size());
    if (label == std::string::npos || dot.find('\n', at + head.size()) < label) continue;
    dot.replace(label, laidOut.size(), fmt::format("label=\"{}\"", detail::escapeDotString(*c.trainLabel)));
  }
  return dot;
}

namespace detail {

LayoutPlan planLayout(const Diagram& diagram) {
  const bool longEdges = virtualNodeEstimate(diagram) > kBandedAboveVirtualNodes;
  if (diagram.nodes.size() + diagram.clusters.size() <= kBandedAbove && !longEdges) return {{diagram.dot}, {}, false};
  Bands bands = cutIntoBands(diagram.dot, kBandBudget, longEdges);
  return {std::move(bands.dots), std::move(bands.crossEdges), true};
}

std::string layOut(const LayoutPlan& plan) {
  // The DOT itself carries a large diagram's speed settings (nslimit, nslimit1, newrank, mclimit:
  // see assemble.cpp), so no layout option is set here.
  const render::LayoutOptions opts{};
  if (plan.banded) return render::renderStackedBands(plan.dots, plan.crossEdges, opts);
  if (plan.dots.size() != 1) throw render::RenderError("a layout plan without bands holds one graph");
  return render::renderInlineSvg(plan.dots.front(), opts);
}

std::string finishedSvg(std::string svg, const Diagram& diagram) {
  showTrainingLabels(svg, diagram);
  return withStandaloneStyle(std::move(svg));
}

}  // namespace detail

std::string renderSvg(const Diagram& diagram) {
  return detail::finishedSvg(detail::layOut(detail::planLayout(diagram)), diagram);
}

void warmUpRenderer() noexcept {
  try {
    (void)render::renderInlineSvg(detail::warmUpDot(), {});
  } catch (...) {
    // Graphviz missing a plugin, out of memory: the real layout meets it again and says so.
  }
}

}  // namespace nndna::diagram
