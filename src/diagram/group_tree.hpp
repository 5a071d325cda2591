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
#include <unordered_set>
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
  // Leaf: the user-frame chain of its first op, without the frame of an inlined helper's line
  // (empty when the op had none).
  std::span<const ir::FrameId> chain;
  std::vector<ir::OpId> ops;              // leaf
  ir::TensorId output = ir::kNone;        // leaf: the tensor of its last op (the box's tensor)
  std::vector<std::uint64_t> addresses;   // leaf: call addresses of its line seen so far
  // Leaf: the list elements whose parameters its ops read, one per (element's place in its
  // list, call address): `fcs.#.weight` read as `fcs.0.weight` from the call at this address.
  struct ListRead {
    int place = -1;     // the parameter's name with its numbers as '#', interned
    int element = -1;   // its numbers, interned
    std::uint64_t address = 0;
  };
  std::vector<ListRead> listReads;
  // Leaf: its first op that read a parameter, which input that was, and the call address it came
  // from (ir::kNone when none of its ops read one).
  struct ParamRead {
    ir::OpId op = ir::kNone;
    std::size_t input = 0;
    std::uint64_t address = 0;
  };
  ParamRead firstParamRead;
  // Leaf started because its line ran again in a loop whose body is that one line: its call
  // address recurred after another (`for (...) h = relu(layer(h));`), the one call on it read
  // the next element of a list (`for (const Linear& l : m.fcs) h = l(h);`), or it began as the
  // leaf's first parameter read did (`for (...) h = m.layer(h);`). Such leaves may form
  // period-1 loops.
  bool repeatSplit = false;
  // The first line of the enclosing cluster ran again after other lines: a new call of the
  // cluster's function begins here. Consecutive calls made from one line share one cluster (the
  // seed's rule), so this is where one call ends and the next begins; loops there must not cut
  // a call in two (loops.hpp).
  bool invocationStart = false;
  // Cluster: its children's call starts were read from their lines going back (a first call that
  // skipped the function's first line), so each call is a whole unit: a loop's iterations end
  // where a call ends, not only begin there.
  bool callsAreWhole = false;
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

// The ops a side draws: forward ops its outputs need, without parameters, inputs and state
// (never boxes of their own) and without captures, which name a tensor and compute nothing.
std::vector<char> drawnOps(const ir::Graph& graph);

// The tensor a drawn op reads in place of `t`: a capture's output stands for its input.
ir::TensorId throughCaptures(const ir::Graph& graph, ir::TensorId t);

// Functions whose ops are drawn within the line that called them: a helper of one source line
// that calls no other user function and that only one side runs (a training-only dropout
// wrapper). As a cluster of its own it would add a faded frame around one box at every call;
// drawn in its caller's box, a block keeps the shape of its code, and the caller's line is the
// same box on both sides. Empty unless both sides are given.
std::unordered_set<std::string> sideOnlyOneLineHelpers(const ir::Graph& train,
                                                       const std::vector<char>& trainOps,
                                                       const ir::Graph* infer,
                                                       const std::vector<char>* inferOps);

// The tree of the included ops. Ops issued by a helper of `inlined` count as ops of the line
// that called it.
GroupTree buildGroupTree(const ir::Graph& graph, const std::vector<char>& included,
                         const std::unordered_set<std::string>& inlined = {});

// Leaves under children[begin, end) of cluster `cluster`, in order.
void collectLeaves(const GroupTree& tree, int cluster, std::size_t begin, std::size_t end,
                   std::vector<int>& out);
std::vector<int> allLeaves(const GroupTree& tree);

// One box of the DAG: a data input, or a leaf.
struct DagNode {
  ir::TensorId tensor = ir::kNone;  // the data input, or the leaf's last op's output
  int leaf = -1;  // tree node, or -1 for a data input drawn as a source node
  // What the box hands on: the tensors of its ops that another box reads or that the graph
  // returns, in op order (a `split` line hands on every piece). A data input: itself.
  std::vector<ir::TensorId> outputs;
  std::vector<int> inputs;  // DAG nodes whose tensors its ops read, in first-read order
};

struct Dag {
  std::vector<DagNode> nodes;  // data inputs the leaves read (graph order), then one per leaf
  std::vector<int> nodeOfTensor;  // per tensor: the node whose ops made it (or the input), or -1
  std::vector<int> nodeOfLeaf;    // per tree node: its DAG node, or -1
};

Dag buildDag(const GroupTree& tree, std::span<const int> leaves);

}  // namespace nndna::diagram::detail
