#include "render/text_measure_cache.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "render/stacked_bands.hpp"
#include "render/svg_render.hpp"

namespace {

using nndna::render::renderSvg;
using nndna::render::detail::textMeasureCounts;

// The width of the node with id `id` in Graphviz's SVG (its polygon's first two x coordinates).
double boxWidth(const std::string& svg, const std::string& id) {
  const auto at = svg.find("id=\"" + id + "\"");
  EXPECT_NE(at, std::string::npos) << id;
  std::smatch m;
  const std::string rest = svg.substr(at);
  EXPECT_TRUE(std::regex_search(rest, m, std::regex(R"re(points="(-?[\d.]+),[-\d.]+ (-?[\d.]+),)re")));
  return std::stod(m[1]) - std::stod(m[2]);
}

// Labels no other test of this process measures, so the counts below are exact.
const std::string kDot = R"(digraph measured {
  node [shape=box fontname="Courier" fontsize=11]
  a [id="a" label="measure-cache alpha wide wide label"]
  b [id="b" label="measure-cache alpha wide wide label"]
  c [id="c" label="measure-cache alpha wide wide label" fontsize=22]
  d [id="d" label="measure-cache beta" fontname="sans-serif"]
  a -> b -> c -> d
})";

TEST(TextMeasureCache, RepeatsAreAnsweredFromMemoryWithPangosSizes) {
  renderSvg("digraph { warm }");  // the first render creates the context and installs the cache
  const auto before = textMeasureCounts();
  if (before.hits + before.misses == 0) GTEST_SKIP() << "Graphviz's pango plugin is not installed";

  const std::string cold = renderSvg(kDot);
  const auto afterCold = textMeasureCounts();
  // Three distinct (text, font, size): a and b share one; c differs by size, d by text and font.
  EXPECT_EQ(afterCold.misses - before.misses, 3u);
  EXPECT_EQ(afterCold.hits - before.hits, 1u);  // b

  const std::string warm = renderSvg(kDot);
  const auto afterWarm = textMeasureCounts();
  EXPECT_EQ(afterWarm.misses, afterCold.misses);
  EXPECT_EQ(afterWarm.hits - afterCold.hits, 4u);
  // Remembered sizes are pango's: the drawing does not change.
  EXPECT_EQ(warm, cold);

  // Same text, same font: same box; twice the font size: a wider box (the key holds the size).
  EXPECT_DOUBLE_EQ(boxWidth(cold, "a"), boxWidth(cold, "b"));
  EXPECT_GT(boxWidth(cold, "c"), 1.8 * boxWidth(cold, "a") - 20);
}

// A band laid out in a forked process (band_layout.cpp) measures its labels there; the process
// hands the measurements back, so the next layout of those labels here asks pango for none.
TEST(TextMeasureCache, WhatALayoutProcessMeasuredIsRemembered) {
  renderSvg("digraph { warm }");
  if (textMeasureCounts().hits + textMeasureCounts().misses == 0) GTEST_SKIP() << "Graphviz's pango plugin is not installed";
  const std::string second = R"(digraph { x [label="measured in a child, gamma"] y [label="measured in a child, delta"] })";
  const std::vector<std::string> bands = {"digraph { w }", second};
  nndna::render::renderStackedBands(bands, {}, {.processes = 2});
  const auto afterChild = textMeasureCounts();
  const std::vector<std::string> alone = {second};
  nndna::render::renderStackedBands(alone, {}, {.processes = 1});
  const auto afterHere = textMeasureCounts();
  EXPECT_EQ(afterHere.misses, afterChild.misses);
  EXPECT_EQ(afterHere.hits - afterChild.hits, 2u);
}

}  // namespace
