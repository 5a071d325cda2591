#include "diagram/side_model.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <optional>
#include <unordered_map>

#include "diagram/metrics.hpp"
#include "diagram/text.hpp"

namespace nndna::diagram::detail {
namespace {

constexpr std::array<std::string_view, 15> kTensorPalette = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22",
    "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94"};

// "fn@line" per frame, joined by '>', from the first frame in a shared function; a key with no
// shared frame is prefixed by its side, so it never matches the other side.
std::string frameKey(const GroupTree& tree, std::span<const ir::FrameId> frames, Side side,
                     const std::unordered_set<std::string>& shared) {
  std::size_t start = 0;
  bool found = false;
  for (; start < frames.size(); ++start) {
    if (shared.contains(tree.frame(frames[start]).function)) {
      found = true;
      break;
    }
  }
  if (!found) start = 0;
  std::string key;
  for (std::size_t i = start; i < frames.size(); ++i) {
    const ir::Frame& f = tree.frame(frames[i]);
    if (i > start) key += '>';
    key += f.function;
    key += '@';
    if (f.file > 0) key += "f" + std::to_string(f.file) + ":";
    key += std::to_string(f.line);
  }
  return found ? key : std::string(sideName(side)) + ":" + key;
}

// The lines of one wrapped statement a box's label shows at most (a lambda's body is not drawn
// whole).
constexpr std::size_t kMostStatementLines = 4;

// The source text of a frame's line, trimmed, with the lines it continues on when a statement is
// wrapped; "file:line" when the text is unknown.
class SourceLines {
 public:
  explicit SourceLines(const ir::Graph& graph) : graph_(graph) {
    for (const auto& file : graph.sites.files) {
      std::vector<std::string_view> lines;
      std::string_view text = file.text;
      while (!text.empty()) {
        const auto nl = text.find('\n');
        lines.push_back(text.substr(0, nl));
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
      }
      files_.push_back(std::move(lines));
    }
  }
  std::string text(ir::FrameId id) const {
    if (id == ir::kNone) return "<spec>";
    const ir::Frame& f = graph_.sites.frames.at(static_cast<std::size_t>(id));
    if (f.file >= 0 && static_cast<std::size_t>(f.file) < files_.size()) {
      const auto& lines = files_[static_cast<std::size_t>(f.file)];
      if (f.line >= 1 && static_cast<std::size_t>(f.line) <= lines.size()) {
        const std::string t = statementAt(lines, static_cast<std::size_t>(f.line - 1), kMostStatementLines);
        if (!t.empty()) return t;
      }
    }
    return fileName(f.file) + ":" + std::to_string(f.line);
  }
  std::string fileName(std::int32_t file) const {
    if (file < 0 || static_cast<std::size_t>(file) >= graph_.sites.files.size()) return "<spec>";
    const std::string& path = graph_.sites.files[static_cast<std::size_t>(file)].path;
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  }

 private:
  const ir::Graph& graph_;
  std::vector<std::vector<std::string_view>> files_;
};

// One level of a box's iteration path: which loop (an id unique to the side) and which iteration.
struct IterStep {
  int loop = 0;
  int iteration = 0;
};

// Endpoints in different iterations of one loop make a loop-carried edge. Compared from the
// outermost loop: the first level where the paths part decides. Different loops there (one loop
// feeding the next, a ResNet's stage into the following stage) make an ordinary forward edge,
// and a shorter path (a box outside the loop) an entry edge.
bool crossesIteration(const std::vector<IterStep>& a, const std::vector<IterStep>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i].loop != b[i].loop) return false;
    if (a[i].iteration != b[i].iteration) return true;
  }
  return false;
}

// The module name a parameter's op calls ("ln1" for "layers.3.ln1.weight"), list indices skipped.
std::string_view callName(std::string_view param) {
  std::vector<std::string_view> parts = split(param, '.');
  parts.pop_back();  // the parameter itself
  while (!parts.empty() && isListIndex(parts.back())) parts.pop_back();
  return parts.empty() ? param : parts.back();
}

// The parameter an op reads, directly or through a view of it (a conv bias reshaped to
// [C, 1, 1]), or null.
const ir::Op* paramRead(const ir::Graph& g, const ir::Op& op) {
  for (ir::TensorId t : op.inputs) {
    const ir::Op* src = &g.producer(t);
    while (ir::isViewKind(src->kind) && !src->inputs.empty()) src = &g.producer(src->inputs[0]);
    if (src->kind == ir::OpKind::param_input) return src;
  }
  return nullptr;
}

// What a leaf's ops compute, short enough for a subtitle: layer calls by their module's name,
// other ops by kind, in order, repeats merged; views are skipped unless nothing else is there.
std::string computesOf(const ir::Graph& g, const TreeNode& leaf) {
  std::vector<std::string> parts;
  auto push = [&](std::string_view part) {
    if (parts.empty() || parts.back() != part) parts.emplace_back(part);
  };
  for (ir::OpId o : leaf.ops) {
    const ir::Op& op = g.op(o);
    if (ir::isViewKind(op.kind)) continue;
    const ir::Op* param = paramRead(g, op);
    push(param ? callName(param->attrs->name) : ir::opKindName(op.kind));
  }
  if (parts.empty() && !leaf.ops.empty()) push(ir::opKindName(g.op(leaf.ops.front()).kind));
  constexpr std::size_t kShown = 4;
  std::string out;
  for (std::size_t i = 0; i < parts.size() && i < kShown; ++i) {
    if (i) out += " · ";
    out += parts[i];
  }
  if (parts.size() > kShown) out += " · …";
  return out;
}

class SideExtractor {
 public:
  SideExtractor(Side side, const GroupTree& tree, LoopFinder& loops, const Dag& dag,
                const Keying& keying)
      : side_(side), tree_(tree), g_(*tree.graph), loops_(loops), dag_(dag), keying_(keying),
        lines_(g_), canon_(dag.nodes.size()), iters_(dag.nodes.size()),
        drawnAs_(dag.nodes.size(), kNotDrawn) {
    for (std::size_t i = 0; i < canon_.size(); ++i) canon_[i] = static_cast<int>(i);
  }

  SideModel run() {
    const int root = GroupTree::kRoot;
    populateFold(root, 0, tree_.at(root).children.size(), {});
    SideModel model;
    model.side = side_;
    model.graph = &g_;
    nodes_ = &model.nodes;
    for (std::size_t i = 0; i < dag_.nodes.size(); ++i) {
      const DagNode& dn = dag_.nodes[i];
      if (dn.leaf >= 0) continue;
      const std::string& name = g_.producer(dn.tensor).attrs->name;
      SideNode node;
      node.key = "in:" + name;
      node.isInput = true;
      node.label = "input: " + name;
      node.color = colorForKey("tensor_input:" + name);
      drawnAs_[i] = model.nodes.size();
      model.nodes.push_back(std::move(node));
    }
    walk(root, 0, tree_.at(root).children.size(), root, {}, {}, "");
    addFoldedIterations(model);
    addEdges(model);
    return model;
  }

 private:
  static constexpr std::size_t kNotDrawn = SIZE_MAX;

  int dagOf(int leaf) const { return dag_.nodeOfLeaf[static_cast<std::size_t>(leaf)]; }
  int canonOf(int node) const { return canon_[static_cast<std::size_t>(node)]; }
  const std::vector<IterStep>& itersOf(int node) const { return iters_[static_cast<std::size_t>(node)]; }
  std::vector<int> leavesOf(int cluster, std::size_t begin, std::size_t end) const {
    std::vector<int> out;
    collectLeaves(tree_, cluster, begin, end, out);
    return out;
  }
  BoxShape shapeOf(const DagNode& node) const {
    BoxShape shape;
    for (ir::TensorId t : node.outputs) shape.push_back({g_.tensor(t).shape, g_.tensor(t).names});
    return shape;
  }

  // The fold map: every leaf gets the iteration path of its enclosing loops and, when it sits in
  // an iteration that is not drawn, its twin in the drawn one.
  void populateFold(int cluster, std::size_t begin, std::size_t end, const std::vector<IterStep>& iters) {
    const std::vector<LoopRun> loops = loops_.loops(cluster, begin, end);
    const auto& children = tree_.at(cluster).children;
    for (const LoopRun& loop : loops) {
      const int id = nextLoopId_++;
      auto sliceStart = [&](std::size_t it) { return loop.start + it * loop.period; };
      auto pathAt = [&](std::size_t it) {
        std::vector<IterStep> path = iters;
        path.push_back({id, static_cast<int>(it)});
        return path;
      };
      if (!loop.foldable) {
        for (std::size_t it = 0; it < loop.iterations; ++it) {
          const std::vector<IterStep> path = pathAt(it);
          for (int leaf : leavesOf(cluster, sliceStart(it), sliceStart(it) + loop.period)) {
            iters_[static_cast<std::size_t>(dagOf(leaf))] = path;
          }
          populateFold(cluster, sliceStart(it), sliceStart(it) + loop.period, path);
        }
        continue;
      }
      // The drawn iteration first, so its leaves carry their final (deeper) paths before the
      // others are paired with them.
      const std::vector<int> drawn = leavesOf(cluster, loop.start, loop.start + loop.period);
      const std::vector<IterStep> path0 = pathAt(0);
      for (int leaf : drawn) iters_[static_cast<std::size_t>(dagOf(leaf))] = path0;
      populateFold(cluster, loop.start, loop.start + loop.period, path0);
      for (std::size_t it = 1; it < loop.iterations; ++it) {
        const std::vector<int> cur = leavesOf(cluster, sliceStart(it), sliceStart(it) + loop.period);
        for (std::size_t j = 0; j < cur.size(); ++j) {
          const int twin = dagOf(drawn[j]);
          const int mine = dagOf(cur[j]);
          canon_[static_cast<std::size_t>(mine)] = canonOf(twin);
          std::vector<IterStep> path = itersOf(twin);  // the twin's path, but this loop's level
          path[iters.size()].iteration = static_cast<int>(it);
          iters_[static_cast<std::size_t>(mine)] = std::move(path);
        }
      }
    }
    std::vector<char> covered(end - begin, 0);
    for (const LoopRun& loop : loops) {
      for (std::size_t k = loop.start; k < loop.start + loop.period * loop.iterations; ++k) {
        covered[k - begin] = 1;
      }
    }
    for (std::size_t k = begin; k < end; ++k) {
      if (covered[k - begin]) continue;
      const int c = children[k];
      if (!tree_.at(c).leaf) populateFold(c, 0, tree_.at(c).children.size(), iters);
    }
  }
  std::string nextKey(const std::string& base, bool take) {
    int& n = occurrences_[base];
    const std::string key = base + "#" + std::to_string(n);
    if (take) ++n;
    return key;
  }

  // The module some leaves run on: the longest common module path of the parameters they read.
  std::string paramScope(const std::vector<int>& leaves) const {
    std::optional<std::vector<std::string_view>> scope;
    for (int l : leaves) {
      for (ir::OpId o : tree_.at(l).ops) {
        for (ir::TensorId t : g_.op(o).inputs) {
          const ir::Op& src = g_.producer(t);
          if (src.kind != ir::OpKind::param_input) continue;
          std::vector<std::string_view> module = split(src.attrs->name, '.');
          if (!module.empty()) module.pop_back();
          if (!scope) {
            scope = std::move(module);
          } else {
            std::size_t n = 0;
            while (n < scope->size() && n < module.size() && (*scope)[n] == module[n]) ++n;
            scope->resize(n);
          }
        }
      }
    }
    std::string out;
    if (scope) {
      for (std::size_t i = 0; i < scope->size(); ++i) {
        if (i) out += '.';
        out += (*scope)[i];
      }
    }
    return out;
  }

  std::string clusterParams(int cluster) {
    auto it = clusterScopes_.find(cluster);
    if (it != clusterScopes_.end()) return it->second;
    return clusterScopes_[cluster] = paramScope(leavesOf(cluster, 0, tree_.at(cluster).children.size()));
  }

  // A leaf's invocation: the leaves under its innermost call cluster in the same function (not the
  // whole cluster: one line can call two functions, `decode(p, encode(p, src))`).
  std::string invocationParams(int owner, std::size_t depth, const TreeNode& leaf) {
    const std::string fn(tree_.chainFunction(leaf, depth));
    const std::string memo = std::to_string(owner) + ":" + std::to_string(depth) + ":" + fn;
    auto it = invocationScopes_.find(memo);
    if (it != invocationScopes_.end()) return it->second;
    std::vector<int> leaves;
    for (int l : leavesOf(owner, 0, tree_.at(owner).children.size())) {
      if (tree_.chainFunction(tree_.at(l), depth) == fn) leaves.push_back(l);
    }
    return invocationScopes_[memo] = paramScope(leaves);
  }

  std::string leafKey(int leaf, bool take, int owner, std::size_t depth) {
    const TreeNode& n = tree_.at(leaf);
    std::string base = frameKey(tree_, n.chain, side_, keying_.shared);
    if (keying_.ambiguous.contains(base)) base += "~" + invocationParams(owner, depth, n);
    return nextKey(base, take);
  }

  std::optional<std::string> firstLeafKey(int cluster, std::size_t begin, std::size_t end,
                                          int owner, std::size_t depth) {
    if (begin >= end) return std::nullopt;
    const int n = tree_.at(cluster).children[begin];
    if (tree_.at(n).leaf) return leafKey(n, false, owner, depth);
    return firstLeafKey(n, 0, tree_.at(n).children.size(), n, depth + 1);
  }

  // Leaves become nodes; user clusters and loop runs become steps on their path. A loop is keyed
  // by its first node and a user cluster carries its nearest loop's key, so both sides name the
  // same loop and cluster alike. Beyond the seed: only a loop in shared code counts as a call
  // cluster's loop. A loop in one side's own code (a sampling loop in the predict function) is
  // context the other side cannot have; keyed by it, a shared call inside it (a time embedding
  // both sides compute) would be drawn as one side's only, its frame faded around solid boxes.
  void walk(int cluster, std::size_t begin, std::size_t end, int owner,
            const std::vector<ir::FrameId>& frames, const std::vector<PathStep>& path,
            const std::string& loopKey) {
    const std::vector<LoopRun> loops = loops_.loops(cluster, begin, end);
    const auto& children = tree_.at(cluster).children;
    std::size_t li = 0;
    std::size_t i = begin;
    while (i < end) {
      if (li < loops.size() && loops[li].start == i) {
        const LoopRun& loop = loops[li++];
        const auto first = firstLeafKey(cluster, loop.start, loop.start + loop.period, owner,
                                        frames.size());
        std::string base =
            "loop(" + first.value_or(std::string(sideName(side_)) + ":" + std::to_string(i)) + ")";
        // A loop that begins where the loop around it begins (`for (r…) { for (l : m.layers) x =
        // l(x); … }`) has the same first box: marked, so that the two stay two clusters.
        while (std::any_of(path.begin(), path.end(), [&](const PathStep& step) { return step.key == base; })) base += "'";
        const std::string n = std::to_string(loop.iterations);
        if (loop.foldable) {
          std::vector<PathStep> inner = path;
          inner.push_back({base, true, "×" + n, false});
          const std::string sideOnly = std::string(sideName(side_)) + ":";
          const bool inSharedCode =
              !frameKey(tree_, frames, side_, keying_.shared).starts_with(sideOnly);
          walk(cluster, loop.start, loop.start + loop.period, owner, frames, inner,
               inSharedCode ? base : loopKey);
        } else {
          for (std::size_t it = 0; it < loop.iterations; ++it) {
            const std::string key = base + "#" + std::to_string(it);
            std::vector<PathStep> inner = path;
            inner.push_back({key, true, "iteration " + std::to_string(it + 1) + " of " + n, false});
            const std::size_t s = loop.start + it * loop.period;
            walk(cluster, s, s + loop.period, owner, frames, inner, key);
          }
        }
        i = loop.start + loop.period * loop.iterations;
        continue;
      }
      const int child = children[i];
      const TreeNode& c = tree_.at(child);
      if (c.leaf) {
        SideNode node;
        node.key = leafKey(child, true, owner, frames.size());
        node.label = lines_.text(c.frame);
        node.file = lines_.fileName(c.where.file);
        node.line = c.where.line;
        node.color = colorForKey(std::to_string(c.where.file) + "#" + std::to_string(c.where.line));
        node.path = path;
        node.computes = computesOf(g_, c);
        drawnAs_[static_cast<std::size_t>(dagOf(child))] = nodes_->size();
        nodes_->push_back(std::move(node));
      } else {
        std::vector<ir::FrameId> inner = frames;
        inner.push_back(c.frame);
        const std::string fk = frameKey(tree_, inner, side_, keying_.shared);
        std::string base = fk + "|" + loopKey;
        if (keying_.ambiguous.contains("c:" + fk)) base += "~" + clusterParams(child);
        PathStep step{nextKey(base, true), false, lines_.text(c.frame),
                      fk.starts_with(std::string(sideName(side_)) + ":")};
        std::vector<PathStep> innerPath = path;
        innerPath.push_back(std::move(step));
        walk(child, 0, c.children.size(), child, inner, innerPath, loopKey);
      }
      ++i;
    }
  }

  // Every leaf adds to the drawn box it folds into: its FLOPs, its parameters, its shape.
  void addFoldedIterations(SideModel& model) {
    for (std::size_t i = 0; i < dag_.nodes.size(); ++i) {
      const DagNode& dn = dag_.nodes[i];
      const std::size_t drawn = drawnAs_[static_cast<std::size_t>(canonOf(static_cast<int>(i)))];
      if (drawn == kNotDrawn) continue;
      SideNode& node = model.nodes[drawn];
      BoxShape shape = shapeOf(dn);
      if (std::find(node.shapes.begin(), node.shapes.end(), shape) == node.shapes.end()) {
        node.shapes.push_back(std::move(shape));
      }
      if (dn.leaf < 0) continue;
      for (ir::OpId o : tree_.at(dn.leaf).ops) {
        const ir::Op& op = g_.op(o);
        node.flops = checkedAdd(node.flops, opFlops(g_, op));
        for (ir::TensorId t : op.inputs) {
          const ir::Op& src = g_.producer(t);
          if (src.kind == ir::OpKind::param_input) node.paramNames.insert(src.attrs->name);
        }
      }
    }
  }

  // Both endpoints canonicalise into the drawn iteration, so a fan-in from every iteration is one
  // line; an edge whose endpoints sit in different iterations of one loop is loop-carried.
  void addEdges(SideModel& model) {
    std::unordered_set<std::string> seen;
    for (std::size_t i = 0; i < dag_.nodes.size(); ++i) {
      const int dstNode = static_cast<int>(i);
      const int dst = canonOf(dstNode);
      for (int in : dag_.nodes[i].inputs) {
        const int src = canonOf(in);
        const bool carried = crossesIteration(itersOf(in), itersOf(dstNode));
        if (src == dst && !carried) continue;
        const std::size_t s = drawnAs_[static_cast<std::size_t>(src)];
        const std::size_t d = drawnAs_[static_cast<std::size_t>(dst)];
        if (s == kNotDrawn || d == kNotDrawn) continue;
        const std::string& sk = model.nodes[s].key;
        const std::string& dk = model.nodes[d].key;
        if (!seen.insert(sk + "->" + dk + (carried ? ":1" : ":0")).second) continue;
        const bool backEdge = carried && (src != in || dst != dstNode);
        model.edges.push_back({sk, dk, carried, backEdge, model.nodes[s].color});
      }
    }
  }

  Side side_;
  const GroupTree& tree_;
  const ir::Graph& g_;
  LoopFinder& loops_;
  const Dag& dag_;
  const Keying& keying_;
  SourceLines lines_;
  std::vector<SideNode>* nodes_ = nullptr;
  // Per DAG node: its twin in the drawn iteration (itself when drawn), its iteration path, and
  // the side node it is drawn as (drawn nodes only).
  std::vector<int> canon_;
  std::vector<std::vector<IterStep>> iters_;
  std::vector<std::size_t> drawnAs_;
  int nextLoopId_ = 0;
  std::unordered_map<std::string, int> occurrences_;
  std::unordered_map<int, std::string> clusterScopes_;
  std::unordered_map<std::string, std::string> invocationScopes_;
};

}  // namespace

std::string colorForKey(std::string_view key) {
  // The seed's string hash (h = h*31 + c in 32-bit arithmetic).
  std::uint32_t h = 0;
  for (unsigned char c : key) h = h * 31u + c;
  const auto signedH = static_cast<std::int32_t>(h);
  const std::int64_t mag = std::abs(static_cast<std::int64_t>(signedH));
  return std::string(kTensorPalette[static_cast<std::size_t>(mag) % kTensorPalette.size()]);
}

Keying keyingFor(const GroupTree& train, const GroupTree* infer) {
  auto functionsOf = [](const GroupTree& tree) {
    std::unordered_set<std::string> fns;
    for (int l : allLeaves(tree)) {
      for (ir::FrameId f : tree.at(l).chain) fns.insert(tree.frame(f).function);
    }
    return fns;
  };
  Keying keying;
  if (infer) {
    const auto inferFns = functionsOf(*infer);
    for (const auto& fn : functionsOf(train)) {
      if (inferFns.contains(fn)) keying.shared.insert(fn);
    }
  }
  for (const auto& [side, tree] : {std::pair{Side::train, &train}, std::pair{Side::infer, infer}}) {
    if (!tree) continue;
    std::unordered_set<std::string> seen;
    auto count = [&](const std::string& key) {
      if (!seen.insert(key).second) keying.ambiguous.insert(key);
    };
    for (int l : allLeaves(*tree)) count(frameKey(*tree, tree->at(l).chain, side, keying.shared));
    // Clusters, depth first.
    struct Item {
      int cluster;
      std::vector<ir::FrameId> frames;
    };
    std::vector<Item> stack{{GroupTree::kRoot, {}}};
    while (!stack.empty()) {
      Item item = std::move(stack.back());
      stack.pop_back();
      const auto& children = tree->at(item.cluster).children;
      for (auto it = children.rbegin(); it != children.rend(); ++it) {
        const TreeNode& c = tree->at(*it);
        if (c.leaf) continue;
        std::vector<ir::FrameId> inner = item.frames;
        inner.push_back(c.frame);
        count("c:" + frameKey(*tree, inner, side, keying.shared));
        stack.push_back({*it, std::move(inner)});
      }
    }
  }
  return keying;
}

SideModel extractSide(Side side, const GroupTree& tree, LoopFinder& loops, const Dag& dag,
                      const Keying& keying) {
  return SideExtractor(side, tree, loops, dag, keying).run();
}

}  // namespace nndna::diagram::detail
