// Cutting a diagram's DOT into bands (src/diagram/bands.cpp), and the banded rendering of a
// large diagram end to end.
#include "diagram/bands.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <string>

#include "diagram/assemble.hpp"
#include "diagram/layout_plan.hpp"
#include "render/graphviz_session.hpp"
#include "render/stacked_bands.hpp"
#include "render/svg_numbers.hpp"
#include "nndna/diagram.hpp"
#include "nndna/trace.hpp"

namespace {

using nndna::diagram::detail::Bands;
using nndna::diagram::detail::cutIntoBands;

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

// The shape of assemble()'s DOT: header, speed settings, clusters with their attribute lines,
// boxes, then every edge at top level.
std::string cluster(int id, const std::string& inner, const std::string& indent = "  ") {
  return indent + "subgraph cluster_" + std::to_string(id) + " {\n" + indent + "  id=\"c" + std::to_string(id) +
         "\"\n" + indent + "  label=\"iteration " + std::to_string(id) + "\"\n" + indent +
         "  style=\"dashed\" margin=14\n" + inner + indent + "}\n";
}
std::string box(int id, const std::string& indent = "    ") {
  return indent + "\"n" + std::to_string(id) + "\" [id=\"n" + std::to_string(id) + "\" label=<<B>x</B>> color=\"#98df8a\"]\n";
}
const std::string kHeader = "digraph G {\n  rankdir=TB\n  nslimit=0.5 nslimit1=0.5 newrank=true\n  nodesep=0.25\n";

TEST(DiagramBands, TopLevelClustersStayWholeAndEdgesBetweenBandsKeepTheirStyle) {
  // Three clusters of two boxes each (weight 3 each), budget 4: one cluster per band.
  std::string dot = kHeader + box(0, "  ");
  dot += cluster(1, box(1) + box(2)) + cluster(2, box(3) + box(4)) + cluster(3, box(5) + box(6));
  dot += "  \"n0\" -> \"n1\" [color=\"#c49c94\" class=\"ti-0 ti-1\"]\n";
  dot += "  \"n1\" -> \"n2\" [color=\"#ffbb78\" class=\"ti-1 ti-2\"]\n";
  dot += "  \"n2\" -> \"n3\" [color=\"#98df8a\" class=\"ti-2 ti-3 only-infer\" style=\"dashed\" arrowhead=vee]\n";
  dot += "  \"n6\" -> \"n3\" [color=\"#98df8a\" class=\"ti-6 ti-3\" style=\"dashed\" constraint=false arrowhead=vee]\n";
  dot += "}\n";
  const Bands bands = cutIntoBands(dot, 4);
  ASSERT_EQ(bands.dots.size(), 3u);
  // The input box (weight 1) joins the first cluster (weight 3).
  EXPECT_NE(bands.dots[0].find("\"n0\" [id"), std::string::npos);
  EXPECT_NE(bands.dots[0].find("\"n0\" -> \"n1\""), std::string::npos);
  EXPECT_NE(bands.dots[0].find("\"n1\" -> \"n2\""), std::string::npos);
  for (const std::string& band : bands.dots) {
    EXPECT_EQ(band.rfind("digraph G {\n  rankdir=TB\n  nodesep=0.25\n", 0), 0u) << band;
    EXPECT_EQ(band.find("nslimit"), std::string::npos);
    EXPECT_EQ(count(band, "subgraph cluster_"), 1u);
    EXPECT_EQ(count(band, "{"), count(band, "}"));
    EXPECT_NE(nndna::render::renderSvg(band).find("<svg"), std::string::npos);
  }
  ASSERT_EQ(bands.crossEdges.size(), 2u);
  const auto& down = bands.crossEdges[0];
  EXPECT_EQ(down.tail, "n2");
  EXPECT_EQ(down.head, "n3");
  EXPECT_EQ(down.color, "#98df8a");
  EXPECT_EQ(down.cssClass, "ti-2 ti-3 only-infer");
  EXPECT_TRUE(down.dashed);
  EXPECT_TRUE(down.veeArrow);
  EXPECT_EQ(bands.crossEdges[1].tail, "n6");
  EXPECT_EQ(bands.crossEdges[1].head, "n3");
}

TEST(DiagramBands, AClusterLargerThanABandIsCutBetweenItsChildren) {
  // One wrapper cluster around four iteration clusters of one box each (weight 2 each).
  std::string inner;
  for (int i = 1; i <= 4; ++i) inner += cluster(i, box(i, "      "), "    ");
  const std::string dot = kHeader + cluster(0, inner) + "  \"n1\" -> \"n2\" [color=\"#000000\" class=\"ti-1 ti-2\"]\n}\n";
  const Bands bands = cutIntoBands(dot, 4);
  ASSERT_EQ(bands.dots.size(), 2u);
  // The wrapper's first piece keeps its id and label; the second is marked as continued.
  EXPECT_NE(bands.dots[0].find("id=\"c0\"\n"), std::string::npos) << bands.dots[0];
  EXPECT_NE(bands.dots[0].find("label=\"iteration 0\"\n"), std::string::npos);
  EXPECT_NE(bands.dots[1].find("id=\"c0-1\"\n"), std::string::npos) << bands.dots[1];
  EXPECT_NE(bands.dots[1].find("label=\"iteration 0 (continued)\"\n"), std::string::npos);
  EXPECT_NE(bands.dots[1].find("style=\"dashed\" margin=14"), std::string::npos);
  // Every box in exactly one band.
  for (int i = 1; i <= 4; ++i) {
    const std::string decl = "\"n" + std::to_string(i) + "\" [id";
    EXPECT_EQ(count(bands.dots[0], decl) + count(bands.dots[1], decl), 1u) << i;
  }
  EXPECT_NE(bands.dots[0].find("\"n1\" -> \"n2\""), std::string::npos);
  EXPECT_TRUE(bands.crossEdges.empty());
  for (const std::string& band : bands.dots) EXPECT_NE(nndna::render::renderSvg(band).find("<svg"), std::string::npos);
}

TEST(DiagramBands, AnEdgeToAnUndeclaredBoxIsAnError) {
  const std::string dot = kHeader + box(1, "  ") + "  \"n1\" -> \"n9\" [color=\"#000000\"]\n}\n";
  EXPECT_THROW(cutIntoBands(dot, 4), std::logic_error);
}

// The 1,500-box unfoldable loop is drawn in bands: every box, cluster and edge exactly once.
TEST(DiagramBands, LargeDiagramRendersEveryBoxClusterAndEdgeOnce) {
  const nndna::RegisteredSpec* spec = nndna::findSpec("unfoldable_500");
  ASSERT_NE(spec, nullptr);
  const auto d = nndna::diagram::buildDiagram(nndna::traceModel(nndna::loadSpec(*spec)));
  const std::string svg = nndna::diagram::renderSvg(d);
  EXPECT_NE(svg.find("class=\"graph stacked-bands\""), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"node"), d.nodes.size());
  EXPECT_EQ(count(svg, "class=\"cluster"), d.clusters.size());
  EXPECT_EQ(count(svg, "class=\"edge"), d.edges.size());
  std::set<std::string> ids;
  const std::regex id("id=\"([^\"]*)\"");
  std::size_t total = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), id); it != std::sregex_iterator(); ++it, ++total) {
    ids.insert((*it)[1].str());
  }
  EXPECT_EQ(ids.size(), total) << "duplicate ids";
  for (const auto& n : d.nodes) EXPECT_TRUE(ids.contains("n" + std::to_string(n.id))) << n.id;
  for (const auto& c : d.clusters) EXPECT_TRUE(ids.contains("c" + std::to_string(c.id))) << c.id;
}

// 501 boxes whose edges from one input reach down the whole chain: small enough for one piece,
// but Graphviz's x-placement grows with the virtual nodes of long edges (about 63,000 here:
// minutes), so it is drawn in bands that keep the speed settings, each with only its own edges.
TEST(DiagramBands, LongEdgesAreDrawnInBandsAtAnySize) {
  const nndna::RegisteredSpec* spec = nndna::findSpec("fan_out_reads_250");
  ASSERT_NE(spec, nullptr);
  const auto d = nndna::diagram::buildDiagram(nndna::traceModel(nndna::loadSpec(*spec)));
  EXPECT_LT(d.nodes.size() + d.clusters.size(), 1000u);
  // Edge into add k from bias: 2k virtual nodes (ranks as in the 40-line golden), k = 1 … 250.
  EXPECT_EQ(nndna::diagram::detail::virtualNodeEstimate(d), 2u * (250u * 251u / 2u));
  const std::string svg = nndna::diagram::renderSvg(d);
  EXPECT_NE(svg.find("class=\"graph stacked-bands\""), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"node"), d.nodes.size());
  EXPECT_EQ(count(svg, "class=\"edge"), d.edges.size());
  const Bands bands = cutIntoBands(d.dot, 200, /*keepSpeedSettings=*/true);
  ASSERT_GE(bands.dots.size(), 3u);
  // The whole counts as huge (its virtual nodes): every band keeps the tighter settings.
  for (const std::string& band : bands.dots) EXPECT_NE(band.find("nslimit=0.2 nslimit1=0.2 mclimit=0.2 newrank=true"), std::string::npos);
}

// The 1,500-box loop's 15 bands laid out in one, two and four processes: the same document.
TEST(DiagramBands, ALargeDiagramIsTheSameLaidOutInSeveralProcesses) {
  const nndna::RegisteredSpec* spec = nndna::findSpec("unfoldable_500");
  ASSERT_NE(spec, nullptr);
  const auto d = nndna::diagram::buildDiagram(nndna::traceModel(nndna::loadSpec(*spec)));
  const auto plan = nndna::diagram::detail::planLayout(d);
  ASSERT_TRUE(plan.banded);
  ASSERT_GE(plan.dots.size(), 10u);
  using nndna::render::LayoutOptions;
  const std::string alone = nndna::render::renderStackedBands(plan.dots, plan.crossEdges, LayoutOptions{.processes = 1});
  EXPECT_EQ(count(alone, "class=\"node"), d.nodes.size());
  EXPECT_EQ(nndna::render::renderStackedBands(plan.dots, plan.crossEdges, LayoutOptions{.processes = 2}), alone);
  EXPECT_EQ(nndna::render::renderStackedBands(plan.dots, plan.crossEdges, LayoutOptions{.processes = 4}), alone);
}

// nndna's gvprintdouble (src/render/svg_numbers.hpp) writes the very characters Graphviz's own
// does, over every coordinate of a large diagram: clusters (dashed and rounded), HTML labels in
// two fonts, curved edges and arrowheads.
TEST(DiagramBands, NndnasSvgNumbersAreGraphvizsOwn) {
  ASSERT_TRUE(nndna::render::detail::svgNumbersAreNndnas());
  const nndna::RegisteredSpec* spec = nndna::findSpec("unfoldable_500");
  ASSERT_NE(spec, nullptr);
  const auto d = nndna::diagram::buildDiagram(nndna::traceModel(nndna::loadSpec(*spec)));
  const auto plan = nndna::diagram::detail::planLayout(d);
  const std::string nndnas = nndna::diagram::detail::layOut(plan);
  {
    const auto lock = nndna::render::detail::lockGraphviz();
    ASSERT_TRUE(nndna::render::detail::useGraphvizOwnSvgNumbers(true));
  }
  const std::string graphvizs = nndna::diagram::detail::layOut(plan);
  {
    const auto lock = nndna::render::detail::lockGraphviz();
    EXPECT_FALSE(nndna::render::detail::useGraphvizOwnSvgNumbers(false));
  }
  EXPECT_GT(count(nndnas, "<path"), 1000u);
  // The first difference and its surroundings (a whole-document diff of 2.8 MB takes gtest a minute).
  const auto differ = std::mismatch(nndnas.begin(), nndnas.end(), graphvizs.begin(), graphvizs.end());
  const auto at = static_cast<std::size_t>(differ.first - nndnas.begin());
  EXPECT_TRUE(nndnas.size() == graphvizs.size() && at == nndnas.size())
      << "differ at " << at << ": nndna's \"" << nndnas.substr(at > 60 ? at - 60 : 0, 120) << "\", Graphviz's \""
      << graphvizs.substr(at > 60 ? at - 60 : 0, 120) << "\"";
}

}  // namespace
