// No node cap: a loop that cannot fold gives a 3,000-box diagram, and it lays out and renders.
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "unfoldable_loop.hpp"

namespace nndna::diagram {
namespace {

TEST(LargeDiagram, UnfoldableLoopDrawsEveryIteration) {
  const Diagram d = buildDiagram(testing::traced("unfoldable_1000"));
  // unfoldable_loop.hpp: 1,000 iterations × (projection, inner loop, relu) boxes at inference,
  // plus the training side's loss line (its block is the first iteration's, shared).
  EXPECT_EQ(d.layerCount(), 3001u);
  std::size_t iterationClusters = 0, innerLoops = 0;
  for (const Cluster& c : d.clusters) {
    if (c.kind != Cluster::Kind::loop) continue;
    if (c.label.starts_with("iteration ")) {
      ++iterationClusters;
    } else {
      ++innerLoops;
    }
  }
  EXPECT_EQ(iterationClusters, 1000u);
  EXPECT_NE(std::find_if(d.clusters.begin(), d.clusters.end(),
                         [](const Cluster& c) { return c.label == "iteration 1000 of 1000 (inference)"; }),
            d.clusters.end());
  // Inner loops fold wherever the repeat count is 2 or 3 (one-line loops, beyond the seed).
  int expectedInner = 0;
  for (int i = 0; i < 1000; ++i) expectedInner += unfoldable::repeats(i) >= 2 ? 1 : 0;
  EXPECT_EQ(innerLoops, static_cast<std::size_t>(expectedInner));

  const std::string svg = renderSvg(d);
  EXPECT_EQ(testing::count(svg, "class=\"node"), d.nodes.size());
}

}  // namespace
}  // namespace nndna::diagram
