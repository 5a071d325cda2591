#include "diagram/group_tree.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace nndna::diagram::detail {
namespace {

using ir::OpKind;

// Leaf-like kinds each get a leaf of their own: without this every input would collapse into one
// leaf with no source line at the top of the diagram.
bool neverMerges(OpKind kind) { return ir::isLeafKind(kind); }

std::span<const ir::FrameId> chainOf(const ir::Graph& graph, const ir::Op& op) {
  if (op.site == ir::kNone) return {};
  return graph.sites.chains.at(static_cast<std::size_t>(op.site));
}

LineRef lineOf(const ir::Graph& graph, ir::FrameId id) {
  const ir::Frame& f = graph.sites.frames.at(static_cast<std::size_t>(id));
  return {f.file, f.line};
}

// Per active cluster: which sub-call line was seen first since it became active, and whether a
// different line has been seen since. A first line that returns after a deviation starts a new
// invocation (the seed's first-seen-deviated heuristic).
struct Tracker {
  std::optional<LineRef> firstChildLine;
  bool deviated = false;
};

}  // namespace

std::vector<char> forwardReachable(const ir::Graph& graph) {
  std::vector<char> opMask(graph.ops.size(), 0);
  std::vector<char> seen(graph.tensors.size(), 0);
  std::vector<ir::TensorId> stack(graph.outputs.begin(), graph.outputs.end());
  while (!stack.empty()) {
    const ir::TensorId tid = stack.back();
    stack.pop_back();
    auto& s = seen.at(static_cast<std::size_t>(tid));
    if (s) continue;
    s = 1;
    const ir::OpId src = graph.tensor(tid).source;
    if (src == ir::kNone) continue;
    const ir::Op& op = graph.op(src);
    if (op.phase != ir::Phase::forward) continue;
    opMask[static_cast<std::size_t>(src)] = 1;
    for (ir::TensorId in : op.inputs) stack.push_back(in);
  }
  return opMask;
}

GroupTree buildGroupTree(const ir::Graph& graph, const std::vector<char>& included) {
  GroupTree tree;
  tree.graph = &graph;
  tree.nodes.emplace_back();  // root
  std::vector<int> stack{GroupTree::kRoot};
  std::unordered_map<int, Tracker> trackers{{GroupTree::kRoot, {}}};

  for (std::size_t opIdx = 0; opIdx < graph.ops.size(); ++opIdx) {
    if (!included[opIdx]) continue;
    const ir::Op& op = graph.ops[opIdx];
    const auto chain = chainOf(graph, op);
    // chain[0 .. n-2] are call sites (one cluster each); chain[n-1] is the op's own line.
    const std::size_t clusterFrames = chain.empty() ? 0 : chain.size() - 1;

    std::size_t matchDepth = 0;
    while (matchDepth < clusterFrames && matchDepth + 1 < stack.size()) {
      const TreeNode& existing = tree.nodes[static_cast<std::size_t>(stack[matchDepth + 1])];
      const LineRef want = lineOf(graph, chain[matchDepth]);
      if (!(existing.where == want)) break;
      const Tracker& t = trackers[stack[matchDepth]];
      if (t.firstChildLine == want && t.deviated) break;  // a new invocation
      ++matchDepth;
    }
    while (stack.size() > matchDepth + 1) {
      trackers.erase(stack.back());
      stack.pop_back();
    }
    while (stack.size() - 1 < clusterFrames) {
      const std::size_t depth = stack.size() - 1;
      const int parent = stack[depth];
      const LineRef where = lineOf(graph, chain[depth]);
      Tracker& t = trackers[parent];
      if (!t.firstChildLine) {
        t.firstChildLine = where;
      } else if (!(*t.firstChildLine == where)) {
        t.deviated = true;
      } else if (t.deviated) {
        t.deviated = false;  // the first line returned: a fresh invocation under the parent
      }
      TreeNode cluster;
      cluster.frame = chain[depth];
      cluster.where = where;
      const int idx = static_cast<int>(tree.nodes.size());
      tree.nodes.push_back(std::move(cluster));
      tree.nodes[static_cast<std::size_t>(parent)].children.push_back(idx);
      stack.push_back(idx);
      trackers[idx] = {};
    }

    // Add the op as a leaf, merging with the previous leaf when it is the same source line.
    const int inner = stack.back();
    const ir::FrameId leafFrame = chain.empty() ? tree.nodes[static_cast<std::size_t>(inner)].frame
                                                : chain.back();
    const LineRef leafWhere = chain.empty() ? tree.nodes[static_cast<std::size_t>(inner)].where
                                            : lineOf(graph, chain.back());
    const std::uint64_t address =
        chain.empty() ? 0 : graph.sites.frames[static_cast<std::size_t>(chain.back())].address;
    auto& siblings = tree.nodes[static_cast<std::size_t>(inner)].children;
    bool repeatSplit = false;
    if (!neverMerges(op.kind) && !siblings.empty()) {
      TreeNode& last = tree.nodes[static_cast<std::size_t>(siblings.back())];
      if (last.leaf && last.where == leafWhere && !neverMerges(graph.op(last.ops.back()).kind)) {
        // Beyond the seed: the same call instruction running again after another one on this
        // line means the line itself is a loop body. Start a new leaf so the loop shows its depth.
        const bool recurred = address != 0 && address != last.addresses.back() &&
                              std::find(last.addresses.begin(), last.addresses.end(), address) !=
                                  last.addresses.end();
        if (!recurred) {
          last.ops.push_back(static_cast<ir::OpId>(opIdx));
          last.output = op.out;
          if (address != last.addresses.back()) last.addresses.push_back(address);
          continue;
        }
        repeatSplit = true;
      }
    }
    TreeNode leaf;
    leaf.leaf = true;
    leaf.frame = leafFrame;
    leaf.where = leafWhere;
    leaf.chain = chain;
    leaf.ops = {static_cast<ir::OpId>(opIdx)};
    leaf.output = op.out;
    leaf.addresses = {address};
    leaf.repeatSplit = repeatSplit;
    const int idx = static_cast<int>(tree.nodes.size());
    tree.nodes.push_back(std::move(leaf));
    tree.nodes[static_cast<std::size_t>(inner)].children.push_back(idx);
  }
  return tree;
}

void collectLeaves(const GroupTree& tree, int cluster, std::size_t begin, std::size_t end,
                   std::vector<int>& out) {
  const auto& children = tree.at(cluster).children;
  for (std::size_t i = begin; i < end; ++i) {
    const int c = children[i];
    if (tree.at(c).leaf) {
      out.push_back(c);
    } else {
      collectLeaves(tree, c, 0, tree.at(c).children.size(), out);
    }
  }
}

std::vector<int> allLeaves(const GroupTree& tree) {
  std::vector<int> out;
  collectLeaves(tree, GroupTree::kRoot, 0, tree.at(GroupTree::kRoot).children.size(), out);
  return out;
}

std::vector<DagNode> buildDag(const GroupTree& tree, std::span<const int> leaves) {
  const ir::Graph& graph = *tree.graph;
  std::vector<char> consumed(graph.tensors.size(), 0);
  for (int l : leaves) {
    for (ir::OpId o : tree.at(l).ops) {
      for (ir::TensorId t : graph.op(o).inputs) consumed[static_cast<std::size_t>(t)] = 1;
    }
  }
  std::vector<DagNode> nodes;
  std::vector<char> built(graph.tensors.size(), 0);
  // Data inputs are the sources at the top, before every leaf.
  for (const ir::Op& op : graph.ops) {
    if (op.kind == ir::OpKind::tensor_input && consumed[static_cast<std::size_t>(op.out)]) {
      nodes.push_back({op.out, -1, {}});
      built[static_cast<std::size_t>(op.out)] = 1;
    }
  }
  for (int l : leaves) {
    nodes.push_back({tree.at(l).output, l, {}});
    built[static_cast<std::size_t>(tree.at(l).output)] = 1;
  }
  // Inputs of a leaf: drawn tensors its ops read that its own ops did not produce.
  std::vector<char> internal(graph.tensors.size(), 0);
  std::vector<char> seen(graph.tensors.size(), 0);
  for (DagNode& node : nodes) {
    if (node.leaf < 0) continue;
    const TreeNode& leaf = tree.at(node.leaf);
    for (ir::OpId o : leaf.ops) internal[static_cast<std::size_t>(graph.op(o).out)] = 1;
    for (ir::OpId o : leaf.ops) {
      for (ir::TensorId t : graph.op(o).inputs) {
        const auto ti = static_cast<std::size_t>(t);
        if (seen[ti] || internal[ti] || !built[ti]) continue;
        seen[ti] = 1;
        node.inputs.push_back(t);
      }
    }
    for (ir::OpId o : leaf.ops) internal[static_cast<std::size_t>(graph.op(o).out)] = 0;
    for (ir::TensorId t : node.inputs) seen[static_cast<std::size_t>(t)] = 0;
  }
  return nodes;
}

}  // namespace nndna::diagram::detail
