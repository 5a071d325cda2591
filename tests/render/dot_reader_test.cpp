// readDot: the same DOT gives the same graph, its clusters in the order the text writes them.
#include "render/dot_reader.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "render/svg_render.hpp"

namespace {

using nndna::render::renderSvg;
using nndna::render::detail::readDot;

// 40 sibling clusters written in the order 0, 17, 34, 11, 28, … (k = 17 i mod 40: 17 and 40 are
// coprime, so each k once), each holding one box, with the id c<k>.
std::vector<int> writtenOrder() {
  std::vector<int> order;
  for (int i = 0; i < 40; ++i) order.push_back(i * 17 % 40);
  return order;
}

std::string scrambledClusters() {
  std::string dot = "digraph G {\n";
  for (int k : writtenOrder()) {
    const std::string n = std::to_string(k);
    dot += "  subgraph cluster_" + n + " {\n    id=\"c" + n + "\"\n    \"n" + n + "\"\n  }\n";
  }
  return dot + "}\n";
}

// Leaves the heap with holes of many sizes, as a long-running process has: where a reader that
// numbers names by their address puts them then depends on which holes fit.
void churnTheHeap() {
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < 4000; ++i) blocks.push_back(std::make_unique<char[]>(static_cast<std::size_t>(8 + i * 7919 % 200)));
  for (std::size_t i = 0; i < blocks.size(); i += 2) blocks[i].reset();
}

// The k of each `<g id="c<k>" class="cluster">` in document order.
std::vector<int> clusterOrder(const std::string& svg) {
  std::vector<int> order;
  const std::string open = "<g id=\"c";
  for (auto at = svg.find(open); at != std::string::npos; at = svg.find(open, at + 1)) {
    order.push_back(std::stoi(svg.substr(at + open.size())));
  }
  return order;
}

TEST(DotReader, DrawsClustersInTheOrderTheDotWritesThem) {
  // A graph laid out and freed before leaves holes where the next graph's names land.
  renderSvg(scrambledClusters());
  churnTheHeap();
  const std::string svg = renderSvg(scrambledClusters());
  EXPECT_EQ(clusterOrder(svg), writtenOrder());
}

TEST(DotReader, TheSameDotGivesTheSameBytes) {
  const std::string first = renderSvg(scrambledClusters());
  churnTheHeap();
  const std::string second = renderSvg(scrambledClusters());
  EXPECT_EQ(first, second);
}

TEST(DotReader, NamesMapToObjectsAndBack) {
  Agraph_t* g = readDot("digraph top { subgraph cluster_x { a } a -> b; b -> a }");
  ASSERT_NE(g, nullptr);
  EXPECT_STREQ(agnameof(g), "top");
  Agnode_t* a = agnode(g, const_cast<char*>("a"), 0);
  Agnode_t* b = agnode(g, const_cast<char*>("b"), 0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_STREQ(agnameof(a), "a");
  EXPECT_STREQ(agnameof(b), "b");
  EXPECT_EQ(agnode(g, const_cast<char*>("missing"), 0), nullptr);
  Agraph_t* cluster = agsubg(g, const_cast<char*>("cluster_x"), 0);
  ASSERT_NE(cluster, nullptr);
  EXPECT_STREQ(agnameof(cluster), "cluster_x");
  EXPECT_EQ(agnnodes(cluster), 1);
  EXPECT_EQ(agnnodes(g), 2);
  // Two anonymous edges, one each way: distinct objects.
  EXPECT_EQ(agnedges(g), 2);
  EXPECT_NE(agedge(g, a, b, nullptr, 0), nullptr);
  EXPECT_NE(agedge(g, b, a, nullptr, 0), nullptr);
  agclose(g);
}

// A value longer than the lexer's buffer (a 100,000-character label) and thousands of small ones
// around it all keep their contents.
TEST(DotReader, LargeAndSmallValuesKeepTheirContents) {
  const std::string longLabel(100'000, 'w');
  std::string dot = "digraph { big [label=\"" + longLabel + "\"]\n";
  for (int i = 0; i < 2000; ++i) dot += "m" + std::to_string(i) + " [label=\"m" + std::to_string(i) + "\"]\n";
  dot += "huge [label=\"" + longLabel + "x\"] }";
  Agraph_t* g = readDot(dot);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(agnnodes(g), 2002);
  EXPECT_EQ(std::string(agget(agnode(g, const_cast<char*>("big"), 0), const_cast<char*>("label"))), longLabel);
  EXPECT_EQ(std::string(agget(agnode(g, const_cast<char*>("huge"), 0), const_cast<char*>("label"))), longLabel + "x");
  for (int i : {0, 999, 1999}) {
    const std::string name = "m" + std::to_string(i);
    Agnode_t* n = agnode(g, const_cast<char*>(name.c_str()), 0);
    ASSERT_NE(n, nullptr) << name;
    EXPECT_EQ(std::string(agget(n, const_cast<char*>("label"))), name);
  }
  agclose(g);
}

TEST(DotReader, RejectedDotGivesNull) {
  EXPECT_EQ(readDot("digraph { a -> ; }"), nullptr);
  // The parser recovers: the next graph reads.
  Agraph_t* g = readDot("digraph { x -> y }");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(agnnodes(g), 2);
  agclose(g);
}

}  // namespace
