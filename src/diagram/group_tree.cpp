#include "diagram/group_tree.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>

#include "diagram/text.hpp"
#include "ir/huge_pages.hpp"

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
  // Ops come after the ops that make their inputs (validateGraph), so one sweep from the last op
  // back sees every consumer of a tensor before its producer: no stack, memory read in order.
  std::vector<char> opMask(graph.ops.size(), 0);
  std::vector<char> needed(graph.tensors.size(), 0);
  for (ir::TensorId t : graph.outputs) needed.at(static_cast<std::size_t>(t)) = 1;
  for (std::size_t i = graph.ops.size(); i-- > 0;) {
    const ir::Op& op = graph.ops[i];
    if (!needed.at(static_cast<std::size_t>(op.out)) || op.phase != ir::Phase::forward) continue;
    opMask[i] = 1;
    for (ir::TensorId in : op.inputs) needed.at(static_cast<std::size_t>(in)) = 1;
  }
  return opMask;
}

std::vector<char> drawnOps(const ir::Graph& graph) {
  std::vector<char> drawn = forwardReachable(graph);
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    const ir::OpKind kind = graph.ops[i].kind;
    if (ir::isLeafKind(kind) || kind == OpKind::capture) drawn[i] = 0;
  }
  return drawn;
}

ir::TensorId throughCaptures(const ir::Graph& graph, ir::TensorId t) {
  while (true) {
    const ir::OpId src = graph.tensor(t).source;
    if (src == ir::kNone || graph.op(src).kind != OpKind::capture) return t;
    t = graph.op(src).inputs.at(0);
  }
}

namespace {

// How one side's drawn ops use a function: the lines of it that issue ops, whether it calls
// another user function, whether it is an entry (a chain's outermost frame with no caller).
struct FunctionUse {
  std::vector<LineRef> lines;
  bool calls = false;
  bool entry = false;
};

std::unordered_map<std::string, FunctionUse> functionUses(const ir::Graph& graph,
                                                          const std::vector<char>& ops) {
  std::vector<char> siteSeen(graph.sites.chains.size(), 0);
  std::unordered_map<std::string, FunctionUse> uses;
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    const ir::SiteId site = graph.ops[i].site;
    if (!ops[i] || site == ir::kNone || siteSeen[static_cast<std::size_t>(site)]) continue;
    siteSeen[static_cast<std::size_t>(site)] = 1;
    const auto chain = chainOf(graph, graph.ops[i]);
    if (chain.empty()) continue;
    for (std::size_t d = 0; d + 1 < chain.size(); ++d) {
      uses[graph.sites.frames[static_cast<std::size_t>(chain[d])].function].calls = true;
    }
    FunctionUse& use = uses[graph.sites.frames[static_cast<std::size_t>(chain.back())].function];
    const LineRef line = lineOf(graph, chain.back());
    if (std::find(use.lines.begin(), use.lines.end(), line) == use.lines.end()) use.lines.push_back(line);
    if (chain.size() == 1) use.entry = true;
  }
  return uses;
}

}  // namespace

std::unordered_set<std::string> sideOnlyOneLineHelpers(const ir::Graph& train,
                                                       const std::vector<char>& trainOps,
                                                       const ir::Graph* infer,
                                                       const std::vector<char>* inferOps) {
  std::unordered_set<std::string> helpers;
  if (infer == nullptr || inferOps == nullptr) return helpers;
  const auto trainUses = functionUses(train, trainOps);
  const auto inferUses = functionUses(*infer, *inferOps);
  for (const auto* side : {&trainUses, &inferUses}) {
    const auto& other = side == &trainUses ? inferUses : trainUses;
    for (const auto& [fn, use] : *side) {
      if (other.contains(fn) || use.calls || use.entry || use.lines.size() != 1) continue;
      helpers.insert(fn);
    }
  }
  return helpers;
}

namespace {

// Per parameter tensor, the list element it is a parameter of: `layers.3.attn.q.weight` has
// place `layers.#.attn.q.weight` and element `3`. Parameters whose names have no list index are
// not listed. Keyed by the parameters alone: a graph of a million tensors has few of them.
std::unordered_map<ir::TensorId, TreeNode::ListRead> listParamsOf(const ir::Graph& graph) {
  std::unordered_map<ir::TensorId, TreeNode::ListRead> ofTensor;
  std::unordered_map<std::string, int> places, elements;
  auto intern = [](std::unordered_map<std::string, int>& table, std::string key) {
    return table.emplace(std::move(key), static_cast<int>(table.size())).first->second;
  };
  for (const ir::Param& p : graph.params) {
    if (p.name.find_first_of("0123456789") == std::string::npos) continue;  // the common case, cheaply
    std::string place, element;
    for (std::string_view part : split(p.name, '.')) {
      const bool index = isListIndex(part);
      if (!place.empty()) place += '.';
      place += index ? std::string_view("#") : part;
      if (index) element.append(part).push_back('.');
    }
    if (!element.empty()) ofTensor[p.tensor] = {intern(places, place), intern(elements, element), 0};
  }
  return ofTensor;
}

// A call that runs only its first line, followed by calls that run more, leaves no deviation
// between the first two calls: `blk` of a ResNet-like stage whose first block has no residual add
// (`h = relu(b.conv(x)); if (b.useRes) h = add(x, h);`) gives conv, conv, add, conv, add, …,
// where only the third and fourth convs are marked as call starts. When every call from the first
// marked start on runs the first line exactly once, the first line's earlier repeats are call
// starts too, and not a one-line loop's next round. A function whose first line is a loop's
// one-line body runs it several times per call, so its calls are left as they are.
void markCallsOfOneLine(GroupTree& tree, const TreeNode& cluster) {
  const std::vector<int>& children = cluster.children;
  auto child = [&](std::size_t i) -> TreeNode& { return tree.nodes[static_cast<std::size_t>(children[i])]; };
  std::size_t firstStart = 0;
  while (firstStart < children.size() && !child(firstStart).invocationStart) ++firstStart;
  if (firstStart == children.size()) return;
  const LineRef first = child(0).where;
  std::size_t runsInCall = 0;
  for (std::size_t i = firstStart; i < children.size(); ++i) {
    if (child(i).invocationStart) {
      if (i != firstStart && runsInCall != 1) return;
      runsInCall = 0;
    }
    if (child(i).where == first) ++runsInCall;
  }
  if (runsInCall != 1) return;
  for (std::size_t i = 1; i < firstStart; ++i) {
    if (!(child(i).where == first)) continue;
    child(i).invocationStart = true;
    child(i).repeatSplit = false;  // a new call, not the line's one-line loop running again
  }
}

// A call whose first run skips the function's first line (`if (b.hasExpand) h = expand(h);` false
// in the first block only, as in MobileNetV2) makes the tracker take its second line for the
// function's first, so every call looks cut in two where that line runs. Within one function, the
// source lines only go back at a new call or at a loop's next round. When the cluster's children
// all lie in one function, every step back lands on one line S, and the first child comes after S
// in the source, the first call began past S and each step back is a call start: a single call
// with a loop inside would have reached S before the loop came round (its lines before the loop
// precede the loop's body). A function running a loop whose first line is skipped in its first
// round (`for (…) { if (i) a(); b(); }`) and nothing after it is marked at each round instead,
// which keeps the rounds whole as loops (loops.hpp) need. Returns whether it marked the calls.
bool markCallsThatSkipTheFirstLine(GroupTree& tree, const TreeNode& cluster) {
  const std::vector<int>& children = cluster.children;
  if (children.size() < 3) return false;
  auto child = [&](std::size_t i) -> TreeNode& { return tree.nodes[static_cast<std::size_t>(children[i])]; };
  auto functionOf = [&](const TreeNode& node) {
    return node.frame == ir::kNone ? std::string_view() : std::string_view(tree.frame(node.frame).function);
  };
  const LineRef first = child(0).where;
  const std::string_view function = functionOf(child(0));
  if (function.empty()) return false;
  std::optional<std::int32_t> landing;
  std::int32_t lastBefore = first.line;  // the last line seen before the last step back
  std::int32_t lastSeen = first.line;
  for (std::size_t i = 1; i < children.size(); ++i) {
    const LineRef where = child(i).where;
    if (where.file != first.file || functionOf(child(i)) != function) return false;
    if (where.line < child(i - 1).where.line) {
      if (landing && *landing != where.line) return false;
      landing = where.line;
      lastBefore = lastSeen;
    }
    lastSeen = std::max(lastSeen, where.line);
  }
  if (!landing || first.line <= *landing) return false;
  // Lines past all of the earlier ones after the last step back are code after a loop: one call
  // (`for (…) { if (i) x = pool(x); x = a(x); x = b(x); } return head(x);`), not the last of
  // several.
  if (lastSeen > lastBefore) return false;
  for (std::size_t i = 1; i < children.size(); ++i) {
    TreeNode& c = child(i);
    c.invocationStart = c.where.line < child(i - 1).where.line;
    if (c.invocationStart) c.repeatSplit = false;  // a new call, not the line's one-line loop running again
  }
  return true;
}

}  // namespace

GroupTree buildGroupTree(const ir::Graph& graph, const std::vector<char>& included,
                         const std::unordered_set<std::string>& inlined) {
  const std::unordered_map<ir::TensorId, TreeNode::ListRead> listParams = listParamsOf(graph);
  // The list elements an op reads at `address`, as its leaf records them.
  auto listReadsOf = [&](const ir::Op& op, std::uint64_t address) {
    std::vector<TreeNode::ListRead> reads;
    if (listParams.empty()) return reads;
    for (ir::TensorId in : op.inputs) {
      if (const auto it = listParams.find(in); it != listParams.end()) {
        reads.push_back({it->second.place, it->second.element, address});
      }
    }
    return reads;
  };
  // The one call at `address` reads another element of a list it read before in this leaf:
  // the line ran again, with the list's next layer.
  auto readsNextElement = [](const TreeNode& leaf, const std::vector<TreeNode::ListRead>& reads) {
    for (const TreeNode::ListRead& r : reads) {
      for (const TreeNode::ListRead& seen : leaf.listReads) {
        if (seen.address == r.address && seen.place == r.place && seen.element != r.element) return true;
      }
    }
    return false;
  };
  std::unordered_set<ir::TensorId> params;
  params.reserve(graph.params.size());
  for (const ir::Param& p : graph.params) params.insert(p.tensor);
  // The op's first input that is a parameter, as a leaf's first parameter read.
  auto paramReadOf = [&](const ir::Op& op, ir::OpId id, std::uint64_t address) {
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      if (params.contains(op.inputs[i])) return TreeNode::ParamRead{id, i, address};
    }
    return TreeNode::ParamRead{};
  };
  // The one call at `address` starts again: its op reads the leaf's first parameter as the
  // leaf's first read did, with the same kind and attributes. A layer shared by every iteration
  // (`for (...) h = m.layer(h);`) reads no new list element, so only its start repeating says
  // the line ran again. Within one call, a layer that reads a parameter again reads it
  // otherwise (attention's q, k and v blocks of in_proj_weight) or reads another one first (an
  // LSTM's weight_ih before each step's weight_hh).
  auto startsAgain = [&](const TreeNode& leaf, const ir::Op& op, std::uint64_t address) {
    const TreeNode::ParamRead& first = leaf.firstParamRead;
    if (first.op == ir::kNone || address == 0 || first.address != address) return false;
    const ir::Op& firstOp = graph.op(first.op);
    return firstOp.kind == op.kind && op.inputs.size() == firstOp.inputs.size() &&
           op.inputs[first.input] == firstOp.inputs[first.input] && *op.attrs == *firstOp.attrs;
  };
  GroupTree tree;
  tree.graph = &graph;
  // At most a leaf per included op, and usually fewer clusters than leaves.
  tree.nodes.reserve(static_cast<std::size_t>(std::count(included.begin(), included.end(), 1)) + 1);
  ir::adviseHugePages(tree.nodes);
  tree.nodes.emplace_back();  // root
  std::vector<int> stack{GroupTree::kRoot};
  // Per active cluster: `calls` decides when a sub-call starts a new cluster (over its sub-call
  // lines); `lines` marks where a new call of the cluster's own function begins (over every
  // child's line).
  // Indexed by tree node; only clusters on the stack are read.
  std::vector<Tracker> calls(1), lines(1);
  auto appendChild = [&](int parent, int child) {
    tree.nodes[static_cast<std::size_t>(parent)].children.push_back(child);
    Tracker& t = lines[static_cast<std::size_t>(parent)];
    const LineRef where = tree.nodes[static_cast<std::size_t>(child)].where;
    if (!t.firstChildLine) {
      t.firstChildLine = where;
    } else if (!(*t.firstChildLine == where)) {
      t.deviated = true;
    } else if (t.deviated) {
      t.deviated = false;
      tree.nodes[static_cast<std::size_t>(child)].invocationStart = true;
    }
  };

  // Per frame: whether its function is an inlined helper (looked up once, not once per op).
  std::vector<char> inlinedFrame(graph.sites.frames.size(), 0);
  for (std::size_t f = 0; f < graph.sites.frames.size(); ++f) {
    inlinedFrame[f] = inlined.contains(graph.sites.frames[f].function) ? 1 : 0;
  }

  for (std::size_t opIdx = 0; opIdx < graph.ops.size(); ++opIdx) {
    if (!included[opIdx]) continue;
    const ir::Op& op = graph.ops[opIdx];
    auto chain = chainOf(graph, op);
    if (chain.size() >= 2 && inlinedFrame.at(static_cast<std::size_t>(chain.back()))) {
      chain = chain.first(chain.size() - 1);  // the helper's op is drawn in its caller's line
    }
    // chain[0 .. n-2] are call sites (one cluster each); chain[n-1] is the op's own line.
    const std::size_t clusterFrames = chain.empty() ? 0 : chain.size() - 1;

    std::size_t matchDepth = 0;
    while (matchDepth < clusterFrames && matchDepth + 1 < stack.size()) {
      const TreeNode& existing = tree.nodes[static_cast<std::size_t>(stack[matchDepth + 1])];
      const LineRef want = lineOf(graph, chain[matchDepth]);
      if (!(existing.where == want)) break;
      const Tracker& t = calls[static_cast<std::size_t>(stack[matchDepth])];
      if (t.firstChildLine == want && t.deviated) break;  // a new invocation
      ++matchDepth;
    }
    while (stack.size() > matchDepth + 1) stack.pop_back();  // a popped cluster is never pushed again
    while (stack.size() - 1 < clusterFrames) {
      const std::size_t depth = stack.size() - 1;
      const int parent = stack[depth];
      const LineRef where = lineOf(graph, chain[depth]);
      Tracker& t = calls[static_cast<std::size_t>(parent)];
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
      calls.resize(tree.nodes.size());
      lines.resize(tree.nodes.size());
      appendChild(parent, idx);
      stack.push_back(idx);
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
        std::vector<TreeNode::ListRead> reads = address != 0 ? listReadsOf(op, address) : std::vector<TreeNode::ListRead>{};
        if (!recurred && !readsNextElement(last, reads) && !startsAgain(last, op, address)) {
          if (last.firstParamRead.op == ir::kNone) {
            last.firstParamRead = paramReadOf(op, static_cast<ir::OpId>(opIdx), address);
          }
          last.ops.push_back(static_cast<ir::OpId>(opIdx));
          last.output = op.out;
          if (address != last.addresses.back()) last.addresses.push_back(address);
          for (const TreeNode::ListRead& r : reads) {
            // Kept once each: a loop over steps that reads one layer's weights stays small.
            const bool known = std::any_of(last.listReads.begin(), last.listReads.end(), [&](const TreeNode::ListRead& seen) {
              return seen.address == r.address && seen.place == r.place && seen.element == r.element;
            });
            if (!known) last.listReads.push_back(r);
          }
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
    if (address != 0) leaf.listReads = listReadsOf(op, address);
    leaf.firstParamRead = paramReadOf(op, static_cast<ir::OpId>(opIdx), address);
    leaf.repeatSplit = repeatSplit;
    const int idx = static_cast<int>(tree.nodes.size());
    tree.nodes.push_back(std::move(leaf));
    calls.resize(tree.nodes.size());
    lines.resize(tree.nodes.size());
    appendChild(inner, idx);
  }
  for (TreeNode& node : tree.nodes) {
    if (node.leaf) continue;
    node.callsAreWhole = markCallsThatSkipTheFirstLine(tree, node);
    markCallsOfOneLine(tree, node);
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

Dag buildDag(const GroupTree& tree, std::span<const int> leaves) {
  const ir::Graph& graph = *tree.graph;
  Dag dag;
  dag.nodeOfTensor.assign(graph.tensors.size(), -1);
  dag.nodeOfLeaf.assign(tree.nodes.size(), -1);
  auto at = [](auto& v, auto i) -> decltype(auto) { return v[static_cast<std::size_t>(i)]; };
  dag.nodes.reserve(leaves.size() + graph.inputs.size());
  ir::adviseHugePages(dag.nodes);
  std::vector<char> consumed(graph.tensors.size(), 0);
  for (int l : leaves) {
    for (ir::OpId o : tree.at(l).ops) {
      for (ir::TensorId t : graph.op(o).inputs) at(consumed, throughCaptures(graph, t)) = 1;
    }
  }
  // Data inputs are the sources at the top, before every leaf.
  for (const ir::Op& op : graph.ops) {
    if (op.kind == OpKind::tensor_input && at(consumed, op.out)) {
      at(dag.nodeOfTensor, op.out) = static_cast<int>(dag.nodes.size());
      dag.nodes.push_back({op.out, -1, {op.out}, {}});
    }
  }
  for (int l : leaves) {
    const int idx = static_cast<int>(dag.nodes.size());
    at(dag.nodeOfLeaf, l) = idx;
    for (ir::OpId o : tree.at(l).ops) at(dag.nodeOfTensor, graph.op(o).out) = idx;
    dag.nodes.push_back({tree.at(l).output, l, {}, {}});
  }
  // A leaf's inputs: the nodes that made the tensors its ops read. What a node hands on: the
  // tensors other nodes read, and what the graph returns.
  std::vector<char> handedOn(graph.tensors.size(), 0);
  for (ir::TensorId t : graph.outputs) at(handedOn, throughCaptures(graph, t)) = 1;
  std::vector<int> seenBy(dag.nodes.size(), -1);
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    DagNode& node = dag.nodes[i];
    if (node.leaf < 0) continue;
    const int self = static_cast<int>(i);
    for (ir::OpId o : tree.at(node.leaf).ops) {
      for (ir::TensorId read : graph.op(o).inputs) {
        const ir::TensorId t = throughCaptures(graph, read);
        const int src = at(dag.nodeOfTensor, t);
        if (src < 0 || src == self) continue;
        at(handedOn, t) = 1;
        if (at(seenBy, src) == self) continue;
        at(seenBy, src) = self;
        node.inputs.push_back(src);
      }
    }
  }
  for (DagNode& node : dag.nodes) {
    if (node.leaf < 0) continue;
    for (ir::OpId o : tree.at(node.leaf).ops) {
      const ir::TensorId out = graph.op(o).out;
      if (at(handedOn, out) || out == node.tensor) node.outputs.push_back(out);
    }
  }
  return dag;
}

}  // namespace nndna::diagram::detail
