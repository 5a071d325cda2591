// renderStackedBands: bands laid out apart and stacked, edges between them drawn by hand.
#include "render/stacked_bands.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cerrno>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

using nndna::render::BandEdge;
using nndna::render::LayoutOptions;
using nndna::render::RenderError;
using nndna::render::renderStackedBands;

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

// A fixed-size box: 72 × 36 points. With Graphviz's default pad of 4 points a band holding one
// such box is 80 × 44 points, the box spanning y = 4 … 40 and centred at x = 40.
std::string oneBox(const std::string& name) {
  return "digraph { " + name + " [shape=box width=1 height=0.5 fixedsize=true] }";
}

// The cross edge <g> element whose title is tail->head.
std::string crossEdge(const std::string& svg, const std::string& tail, const std::string& head) {
  const auto title = svg.find("<title>" + tail + "-&gt;" + head + "</title>");
  if (title == std::string::npos) return "";
  const auto start = svg.rfind("<g ", title);
  return svg.substr(start, svg.find("</g>", title) - start);
}

TEST(StackedBands, StacksBandsWithAGapAndJoinsThemBottomToTop) {
  const std::vector<std::string> bands = {oneBox("a"), oneBox("b")};
  const std::vector<BandEdge> edges = {{"a", "b", "#1f77b4", "ti-1 ti-2", false, false}};
  const std::string svg = renderStackedBands(bands, edges);

  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  // Height: 44 + the 16-point gap + 44.
  EXPECT_NE(svg.find("viewBox=\"0.00 0.00 80.00 104.00\""), std::string::npos) << svg.substr(0, 200);
  EXPECT_NE(svg.find("id=\"band1\" transform=\"translate(0.00 60.00)\""), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"node\""), 2u);

  const std::string edge = crossEdge(svg, "a", "b");
  ASSERT_FALSE(edge.empty()) << svg;
  EXPECT_NE(edge.find("class=\"edge ti-1 ti-2\""), std::string::npos) << edge;
  // From a's bottom (y 40) to the arrow's base 10 points above b's top (60 + 4 = 64).
  EXPECT_NE(edge.find("d=\"M40.00,40.00C40.00,47.00 40.00,47.00 40.00,54.00\""), std::string::npos) << edge;
  EXPECT_NE(edge.find("stroke=\"#1f77b4\""), std::string::npos);
  EXPECT_EQ(edge.find("stroke-dasharray"), std::string::npos);
  // The arrowhead's tip touches b's top.
  EXPECT_NE(edge.find("points=\"43.50,54.00 40.00,64.00 36.50,54.00 43.50,54.00\""), std::string::npos) << edge;
}

// Two such boxes side by side (Graphviz's default nodesep, 18 points, between them): 170 × 44
// points, centres at x = 40 and x = 130.
std::string twoBoxes(const std::string& left, const std::string& right) {
  return "digraph { " + left + " [shape=box width=1 height=0.5 fixedsize=true]; " + right +
         " [shape=box width=1 height=0.5 fixedsize=true] }";
}

TEST(StackedBands, ABandSitsUnderTheEdgeThatEntersIt) {
  // b (x 130) -> c: the one-box band moves right by 130 - 40 so the edge runs straight down.
  const std::vector<std::string> bands = {twoBoxes("a", "b"), oneBox("c")};
  const std::vector<BandEdge> edges = {{"b", "c", "#000000", "", false, false}, {"a", "c", "#000000", "", false, false}};
  const std::string svg = renderStackedBands(bands, edges);
  EXPECT_NE(svg.find("id=\"band1\" transform=\"translate(90.00 60.00)\""), std::string::npos) << svg;
  EXPECT_NE(crossEdge(svg, "b", "c").find("d=\"M130.00,40.00C130.00,47.00 130.00,47.00 130.00,54.00\""),
            std::string::npos);

  // Within the drawing's width: the narrow first band is centred ((170 - 80) / 2 = 45); c -> e
  // (x 130 in its band) would put the wide band at 45 + 40 - 130 = -45, so it stays at 0.
  const std::vector<std::string> other = {oneBox("c"), twoBoxes("d", "e")};
  const std::vector<BandEdge> into = {{"c", "e", "#000000", "", false, false}};
  const std::string clamped = renderStackedBands(other, into);
  EXPECT_NE(clamped.find("id=\"band0\" transform=\"translate(45.00 0.00)\""), std::string::npos) << clamped;
  EXPECT_NE(clamped.find("id=\"band1\" transform=\"translate(0.00 60.00)\""), std::string::npos);
}

TEST(StackedBands, EdgesSkippingABandOrGoingUpRunAlongALane) {
  const std::vector<std::string> bands = {oneBox("a"), oneBox("b"), oneBox("c")};
  const std::vector<BandEdge> edges = {{"a", "c", "#000000", "", true, false},
                                       {"c", "a", "#000000", "", true, true}};
  const std::string svg = renderStackedBands(bands, edges);
  // Two lanes right of the 80-point drawing: at 80 + 14 and 80 + 14 + 8.
  EXPECT_NE(svg.find("viewBox=\"0.00 0.00 110.00 164.00\""), std::string::npos) << svg.substr(0, 200);
  const std::string down = crossEdge(svg, "a", "c");
  EXPECT_NE(down.find("L94.00,"), std::string::npos) << down;
  EXPECT_NE(down.find("stroke-dasharray=\"5,2\""), std::string::npos);
  // c's top is 2 × (44 + 16) + 4 = 124.
  EXPECT_NE(down.find(" 40.00,124.00 "), std::string::npos) << down;
  const std::string up = crossEdge(svg, "c", "a");
  EXPECT_NE(up.find("L102.00,"), std::string::npos) << up;
  // Upwards: leaves c's top (124), the vee's tip touches a's bottom (40).
  EXPECT_NE(up.find("d=\"M40.00,124.00"), std::string::npos) << up;
  EXPECT_NE(up.find(" 40.00,40.00 "), std::string::npos) << up;
}

TEST(StackedBands, GraphvizAutomaticIdsAreUniqueAcrossBands) {
  const std::vector<std::string> bands = {"digraph { x -> y; subgraph cluster_a { x } }",
                                          "digraph { u -> v [id=\"mine\"]; subgraph cluster_b { u } }"};
  const std::vector<BandEdge> edges = {{"y", "u", "#000000", "", false, false}};
  const std::string svg = renderStackedBands(bands, edges);
  std::multiset<std::string> ids;
  const std::regex id("id=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), id); it != std::sregex_iterator(); ++it) {
    ids.insert((*it)[1].str());
  }
  for (const std::string& i : ids) EXPECT_EQ(ids.count(i), 1u) << "duplicate id " << i;
  EXPECT_TRUE(ids.contains("mine"));
  EXPECT_TRUE(ids.contains("b0_edge1"));
  EXPECT_TRUE(ids.contains("b1_clust1"));
  EXPECT_EQ(count(svg, "class=\"edge"), 3u);
  EXPECT_EQ(count(svg, "class=\"cluster"), 2u);
}

TEST(StackedBands, AnEdgeToAMissingNodeOrABadBandIsAnError) {
  const std::vector<std::string> bands = {oneBox("a"), oneBox("b")};
  const std::vector<BandEdge> missing = {{"a", "zz", "#000000", "", false, false}};
  EXPECT_THROW(renderStackedBands(bands, missing), RenderError);
  const std::vector<std::string> broken = {oneBox("a"), "digraph { a -> ; }"};
  EXPECT_THROW(renderStackedBands(broken, {}), RenderError);
}

// True when this process has no child left, running or a zombie: the layout processes are reaped.
bool noChildLeft() { return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

// Bands laid out in forked processes come back in order, whatever the number of processes, and
// the document is byte for byte the one a single process draws.
TEST(StackedBands, BandsLaidOutInSeveralProcessesDrawTheSameDocument) {
  std::vector<std::string> bands;
  std::vector<BandEdge> edges;
  for (int i = 0; i < 7; ++i) {
    bands.push_back("digraph { subgraph cluster_" + std::to_string(i) + " { label=<<B>band " + std::to_string(i) +
                    "</B>> n" + std::to_string(i) + " [shape=box label=\"box " + std::to_string(i) + "\"] } }");
    if (i > 0) edges.push_back({"n" + std::to_string(i - 1), "n" + std::to_string(i), "#1f77b4", "", i % 2 == 0, false});
  }
  edges.push_back({"n0", "n6", "#ff7f0e", "", false, true});  // along a lane
  const std::string alone = renderStackedBands(bands, edges, LayoutOptions{.processes = 1});
  EXPECT_EQ(count(alone, "class=\"node\""), 7u);
  for (const unsigned processes : {2u, 3u, 7u, 8u, 0u}) {
    EXPECT_EQ(renderStackedBands(bands, edges, LayoutOptions{.processes = processes}), alone) << processes << " processes";
    EXPECT_TRUE(noChildLeft()) << processes << " processes";
  }
}

// A band that does not lay out is an error wherever it was laid out, with Graphviz's message,
// and the first such band in order is the one reported.
TEST(StackedBands, ABadBandIsTheSameErrorInAnyProcess) {
  const std::string bad = "digraph { a -> ; }";
  const std::string worse = "digraph { b -> -> c }";  // another message: "near '->'"
  for (const auto& bands : {std::vector<std::string>{oneBox("a"), oneBox("b"), oneBox("c"), bad},
                            std::vector<std::string>{bad, oneBox("b"), oneBox("c"), worse},
                            std::vector<std::string>{oneBox("a"), bad, oneBox("c"), worse}}) {
    std::string alone;
    try {
      renderStackedBands(bands, {}, LayoutOptions{.processes = 1});
      ADD_FAILURE() << "no error in one process";
    } catch (const RenderError& e) {
      alone = e.what();
    }
    EXPECT_NE(alone.find("syntax error"), std::string::npos) << alone;
    for (const unsigned processes : {2u, 4u}) {
      try {
        renderStackedBands(bands, {}, LayoutOptions{.processes = processes});
        ADD_FAILURE() << "no error in " << processes << " processes";
      } catch (const RenderError& e) {
        EXPECT_EQ(std::string(e.what()), alone) << processes << " processes";
      }
      EXPECT_TRUE(noChildLeft());
    }
  }
}

TEST(StackedBands, UserTextInEdgeClassesIsEscaped) {
  const std::vector<std::string> bands = {oneBox("a"), oneBox("b")};
  const std::vector<BandEdge> edges = {{"a", "b", "#000000", "x\"><script>", false, false}};
  const std::string svg = renderStackedBands(bands, edges);
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_NE(svg.find("x&quot;&gt;&lt;script&gt;"), std::string::npos);
}

}  // namespace
