// One side (training or inference) of the diagram, extracted as data: nodes with cross-side keys
// and the cluster path each sits in, and edges with loop-carried ones marked.
//
// Keys: a node matches across sides by its frame chain from the first function both forwards
// call, so the lossFn/predictFn wrappers drop out of the key. Frame keys a side has more than once
// (one helper run on two sets of weights) are told apart by the parameter scope their call reads.
#pragma once

#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "diagram/group_tree.hpp"
#include "diagram/loops.hpp"
#include "diagram/shape_label.hpp"
#include "nndna/diagram.hpp"

namespace nndna::diagram::detail {

struct PathStep {
  std::string key;
  bool loop = false;
  std::string label;
  bool exclusive = false;  // a user cluster no frame of which lies in a function both sides call
};

struct SideNode {
  std::string key;
  bool isInput = false;
  std::string label;
  std::string file;
  int line = 0;
  std::string color;
  std::vector<PathStep> path;
  // Its shape in each iteration folded into it, distinct values in iteration order.
  std::vector<BoxShape> shapes;
  // What its ops compute, short: layer calls by their module's name, other ops by kind ("ln1",
  // "add", "conv1 · bn1 · relu").
  std::string computes;
  std::int64_t flops = 0;            // over every iteration folded into it
  std::set<std::string> paramNames;  // parameters its ops read (by name: comparable across sides)
};

struct SideEdge {
  std::string src, dst;
  // Its endpoints lie in different iterations of one loop (an edge from one loop into another
  // is an ordinary forward edge).
  bool carried = false;
  // A carried edge into (or out of) a folded loop's drawn iteration closes a cycle: it is kept out
  // of ranking. Between two drawn iterations of a loop that cannot fold it ranks like any edge,
  // so the iterations stack instead of lining up side by side.
  bool backEdge = false;
  std::string color;
};

struct SideModel {
  Side side = Side::train;
  const ir::Graph* graph = nullptr;
  std::vector<SideNode> nodes;
  std::vector<SideEdge> edges;
};

struct Keying {
  std::unordered_set<std::string> shared;     // functions both forwards call
  std::unordered_set<std::string> ambiguous;  // frame keys a side has more than once
};

Keying keyingFor(const GroupTree& train, const GroupTree* infer);

SideModel extractSide(Side side, const GroupTree& tree, LoopFinder& loops, const Dag& dag,
                      const Keying& keying);

// The seed's colour of a box: hashed from its source line, or from the input's name.
std::string colorForKey(std::string_view key);

}  // namespace nndna::diagram::detail
