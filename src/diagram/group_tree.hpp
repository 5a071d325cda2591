// The group tree of one side's forward graph, and the DAG of its leaves.
//
// Each op's user-frame chain is walked into a tree: interior nodes are call clusters (the call
// site of a sub-call), leaves are runs of consecutive ops issued by one source line. Clusters are
// visual wrappers only; each leaf is one box of the diagram.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nndna/ir.hpp"

namespace nndna::diagram::detail {

// A source position of the tree: the frame of a cluster's call or of a leaf's line. The root has
// no frame.
struct LineRef {
  std::int32_t file = ir::kNone;
  std::int32_t line = 0;
  friend bool operator==(const LineRef&, const LineRef&) = default;
};

struct TreeNode {
  bool leaf = false;
  ir::FrameId frame = ir::kNone;  // cluster: its call frame; leaf: its line's frame
  LineRef where;
  // Leaf: the full user-frame chain of its first op (empty when the op had none).
  std::span<const ir::FrameId> chain;
  std::vector<ir::OpId> ops;              // leaf
  ir::TensorId output = ir::kNone;        // leaf: the tensor of its last op (the box's tensor)
  std::vector<std::uint64_t> addresses;   // leaf: call addresses of its line seen so far
  // Leaf started because its line's call address recurred: the line ran again in a loop whose
  // body is that one line (`for (...) h = relu(layer(h));`). Such leaves may form period-1 loops.
  bool repeatSplit = false;
  std::vector<int> children;              // cluster: tree node indices in trace order
};

struct GroupTree {
  const ir::Graph* graph = nullptr;
  std::vector<TreeNode> nodes;  // nodes[0] is the root cluster
  static constexpr int kRoot = 0;

  const TreeNode& at(int i) const { return nodes[static_cast<std::size_t>(i)]; }
  const ir::Frame& frame(ir::FrameId id) const {
    return graph->sites.frames[static_cast<std::size_t>(id)];
  }
  // The function a frame of a leaf's chain belongs to ("" past the chain's end).
  std::string_view chainFunction(const TreeNode& leaf, std::size_t depth) const {
    return depth < leaf.chain.size() ? std::string_view(frame(leaf.chain[depth]).function)
                                     : std::string_view();
  }
};

// Forward ops reachable from the graph's outputs (the seed's forwardReachable), as a mask.
std::vector<char> forwardReachable(const ir::Graph& graph);

// The tree of the included ops (the diagram includes every forward op but parameters, inputs and
// state, which are never boxes of their own).
GroupTree buildGroupTree(const ir::Graph& graph, const std::vector<char>& included);

// Leaves under children[begin, end) of cluster `cluster`, in order.
void collectLeaves(const GroupTree& tree, int cluster, std::size_t begin, std::size_t end,
                   std::vector<int>& out);
std::vector<int> allLeaves(const GroupTree& tree);

struct DagNode {
  ir::TensorId tensor = ir::kNone;
  int leaf = -1;  // tree node, or -1 for a data input drawn as a source node
  std::vector<ir::TensorId> inputs;  // drawn tensors it reads from outside its own ops
};

// Data inputs the leaves read (graph order), then one node per leaf (tree order).
std::vector<DagNode> buildDag(const GroupTree& tree, std::span<const int> leaves);

}  // namespace nndna::diagram::detail
