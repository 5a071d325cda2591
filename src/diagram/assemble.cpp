#include "diagram/assemble.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "diagram/text.hpp"

namespace nndna::diagram::detail {
namespace {

std::string_view longName(Side s) { return s == Side::train ? "training" : "inference"; }

// Heavier pen and a margin keep a loop's dashed border clear of the tint of the clusters inside.
constexpr std::string_view kLoopClusterAttrs =
    "style=\"dashed\" color=\"#666666\" fontcolor=\"#888888\" fontsize=10 "
    "fontname=\"sans-serif\" labelloc=t labeljust=l penwidth=1.4 margin=14";
// A user cluster: a faint tint (8% alpha, stacking with nesting) and a hairline border a step
// darker, which cannot be mistaken for an edge.
constexpr std::string_view kUserClusterAttrs =
    "style=\"filled,rounded\" fillcolor=\"#80808014\" color=\"#80808030\" fontcolor=\"#888888\" "
    "fontsize=10 fontname=\"Courier\" labelloc=t labeljust=l penwidth=1 margin=10";

// Every box's defaults: code in Courier.
constexpr std::string_view kNodeDefaults =
    "node [shape=box style=filled fillcolor=white fontname=\"Courier\" fontsize=11 "
    "margin=\"0.18,0.09\" penwidth=1.4]";

// Boxes + clusters above which the layout trades exactness of placement for speed.
constexpr std::size_t kLargeDiagram = 400;
constexpr std::size_t kHugeDiagram = 8000;

struct Entry {
  std::string key;
  const SideNode* first = nullptr;  // label, colour, source position, what it computes
  std::vector<BoxShape> shapes;     // distinct, over both sides and every folded iteration
  std::vector<std::string> shapeNames;
  std::vector<Side> sides;
  std::vector<PathStep> path;
  std::map<Side, std::vector<PathStep>> paths;
  PerSide<std::int64_t> flops;
  PerSide<std::set<std::string>> params;
};

struct ClusterNode {
  std::string key;
  PathStep step;
  std::vector<std::pair<bool, std::size_t>> children;  // (is cluster, index)
};

std::size_t loopsIn(const std::vector<PathStep>& path) {
  return static_cast<std::size_t>(std::count_if(path.begin(), path.end(), [](const PathStep& s) { return s.loop; }));
}

// The innermost side-only user cluster before a path enters shared code: the call lossFn or
// predictFn makes into the shared forward.
const PathStep* wrapperOf(const std::vector<PathStep>& path) {
  const PathStep* wrapper = nullptr;
  for (const PathStep& s : path) {
    if (s.loop) continue;
    if (!s.exclusive) break;
    wrapper = &s;
  }
  return wrapper;
}

std::vector<Side> distinctSides(std::vector<Side> sides) {
  std::sort(sides.begin(), sides.end());
  sides.erase(std::unique(sides.begin(), sides.end()), sides.end());
  return sides;
}

}  // namespace

void assemble(const std::vector<SideModel>& models, const DimResolver& dims, Diagram& out) {
  const bool merged = models.size() > 1;
  std::vector<Entry> entries;
  std::unordered_map<std::string, std::size_t> entryIndex;
  std::map<Side, std::unordered_map<std::string, std::int64_t>> paramSizes;
  for (const SideModel& m : models) {
    for (const ir::Param& p : m.graph->params) {
      paramSizes[m.side][p.name] = ir::numel(m.graph->tensor(p.tensor).shape);
    }
    for (const SideNode& n : m.nodes) {
      auto [it, inserted] = entryIndex.try_emplace(n.key, entries.size());
      if (inserted) {
        Entry e;
        e.key = n.key;
        e.first = &n;
        if (!n.shapes.empty() && !n.shapes[0].empty()) e.shapeNames = dims.names(n.shapes[0][0]);
        e.path = n.path;
        entries.push_back(std::move(e));
      } else if (loopsIn(n.path) > loopsIn(entries[it->second].path)) {
        entries[it->second].path = n.path;
      }
      Entry& e = entries[it->second];
      for (const BoxShape& shape : n.shapes) {
        if (std::find(e.shapes.begin(), e.shapes.end(), shape) == e.shapes.end()) e.shapes.push_back(shape);
      }
      e.sides.push_back(m.side);
      e.paths[m.side] = n.path;
      e.flops[m.side] = e.flops[m.side].value_or(0) + n.flops;
      auto& names = e.params[m.side];
      if (!names) names.emplace();
      names->insert(n.paramNames.begin(), n.paramNames.end());
    }
  }

  // Wrapper pairs.
  std::unordered_map<std::string, std::string> alias;
  std::unordered_map<std::string, std::pair<std::string, std::string>> pairLabels;
  for (const Entry& e : entries) {
    auto t = e.paths.find(Side::train);
    auto i = e.paths.find(Side::infer);
    if (t == e.paths.end() || i == e.paths.end()) continue;
    const PathStep* tw = wrapperOf(t->second);
    const PathStep* iw = wrapperOf(i->second);
    if (!tw || !iw || alias.contains(tw->key) || alias.contains(iw->key)) continue;
    const std::string key = "pair(" + tw->key + "|" + iw->key + ")";
    alias[tw->key] = key;
    alias[iw->key] = key;
    pairLabels[key] = {tw->label, iw->label};
  }
  auto keyOf = [&](const PathStep& s) -> const std::string& {
    auto it = alias.find(s.key);
    return it == alias.end() ? s.key : it->second;
  };
  std::unordered_map<std::string, std::map<Side, PathStep>> stepsByKey;
  for (const Entry& e : entries) {
    for (const auto& [side, path] : e.paths) {
      for (const PathStep& s : path) stepsByKey[keyOf(s)][side] = s;
    }
  }

  // The cluster tree.
  std::vector<ClusterNode> cnodes(1);  // [0] is the root
  std::unordered_map<std::string, std::size_t> clusterIndex;
  for (std::size_t ei = 0; ei < entries.size(); ++ei) {
    std::size_t parent = 0;
    for (const PathStep& s : entries[ei].path) {
      auto [it, inserted] = clusterIndex.try_emplace(keyOf(s), cnodes.size());
      if (inserted) {
        cnodes.push_back({keyOf(s), s, {}});
        cnodes[parent].children.push_back({true, it->second});
      }
      parent = it->second;
    }
    cnodes[parent].children.push_back({false, ei});
  }

  auto onlyClass = [&](const std::vector<Side>& sides) -> std::string {
    const auto d = distinctSides(sides);
    if (!merged || d.size() != 1) return "";
    return "only-" + std::string(sideName(d[0]));
  };
  auto sumParams = [&](Side side, const std::set<std::string>& names) {
    std::int64_t total = 0;
    for (const auto& n : names) {
      auto it = paramSizes[side].find(n);
      if (it != paramSizes[side].end()) total = checkedAdd(total, it->second);
    }
    return total;
  };

  // Nodes, by entry order.
  out.nodes.clear();
  for (std::size_t ei = 0; ei < entries.size(); ++ei) {
    const Entry& e = entries[ei];
    Node node;
    node.id = static_cast<int>(ei);
    node.key = e.key;
    node.isInput = e.first->isInput;
    node.label = stripRedundantShapeComment(e.first->label, e.shapeNames);
    node.file = e.first->file;
    node.line = e.first->line;
    for (const BoxShape& shape : e.shapes) node.shapes.push_back(plainBoxShape(dims, shape));
    node.computes = e.first->computes;
    node.color = e.first->color;
    node.sides = distinctSides(e.sides);
    for (Side s : node.sides) {
      node.cost[s] = Cost{sumParams(s, e.params[s].value_or(std::set<std::string>{})),
                          e.flops[s].value_or(0)};
    }
    out.nodes.push_back(std::move(node));
  }

  std::vector<std::string> lines = {
      "digraph G {",
      "  rankdir=TB",
      "  compound=true",
      "  bgcolor=\"transparent\"",
      "  pad=0.05",
      "  " + std::string(kNodeDefaults),
      "  edge [penwidth=1.5]",
      "  nodesep=0.25",
      "  ranksep=0.3",
  };
  // Boxes of one cluster that read the same (two boxes of one line: a norm before a call and the
  // residual add after it) carry what they compute as a subtitle, where that tells them apart
  // (two calls of one function in a loop's iteration compute alike: no subtitle).
  std::vector<char> subtitled(entries.size(), 0);
  for (const ClusterNode& c : cnodes) {
    std::unordered_map<std::string, std::vector<std::size_t>> byLabel;
    for (const auto& [isCluster, idx] : c.children) {
      if (!isCluster && !entries[idx].first->isInput) byLabel[out.nodes[idx].label].push_back(idx);
    }
    for (const auto& [label, same] : byLabel) {
      const bool differ = std::any_of(same.begin(), same.end(), [&](std::size_t idx) {
        return out.nodes[idx].computes != out.nodes[same[0]].computes;
      });
      if (!differ) continue;
      for (std::size_t idx : same) subtitled[idx] = 1;
    }
  }
  auto emitNode = [&](std::size_t ei, const std::string& indent) {
    const Entry& e = entries[ei];
    const Node& node = out.nodes[ei];
    const std::string subtitle =
        subtitled[ei] ? "<TR><TD><FONT POINT-SIZE=\"9\" COLOR=\"#777777\"><I>" +
                            escapeHtmlLabel(node.computes) + "</I></FONT></TD></TR>"
                      : "";
    const std::string label =
        "<<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLPADDING=\"3\" CELLSPACING=\"0\"><TR><TD>" +
        wrapForLabel(node.label, 36) + "</TD></TR>" + subtitle + "<TR><TD>" +
        htmlBoxShapes(dims, e.shapes) + "</TD></TR></TABLE>>";
    std::string cls = fmt::format("ti-{}", ei);
    if (const std::string only = onlyClass(e.sides); !only.empty()) cls += " " + only;
    lines.push_back(fmt::format("{}\"n{}\" [id=\"n{}\" label={} color=\"{}\" class=\"{}\"]", indent,
                                ei, ei, label, escapeDotString(node.color), cls));
  };

  // Clusters, depth first; costs aggregate over the subtree (parameters as a union).
  out.clusters.clear();
  struct Agg {
    PerSide<std::set<std::string>> params;
    PerSide<std::int64_t> flops;
  };
  auto mergeInto = [](Agg& into, const Agg& from) {
    for (Side s : {Side::train, Side::infer}) {
      if (from.params[s]) {
        if (!into.params[s]) into.params[s].emplace();
        into.params[s]->insert(from.params[s]->begin(), from.params[s]->end());
      }
      if (from.flops[s]) into.flops[s] = checkedAdd(into.flops[s].value_or(0), *from.flops[s]);
    }
  };
  // `insideOneSide`: an enclosing cluster has an only-<side> class, which DOT hands down to the
  // clusters inside as a default: a cluster both sides draw must then set its class itself.
  auto emitChildren = [&](auto&& self, std::size_t cn, int parentId, const std::string& indent,
                          bool insideOneSide) -> Agg {
    Agg agg;
    for (const auto& [isCluster, idx] : cnodes[cn].children) {
      if (!isCluster) {
        emitNode(idx, indent);
        out.nodes[idx].cluster = parentId;
        Agg leaf;
        for (Side s : {Side::train, Side::infer}) {
          leaf.params[s] = entries[idx].params[s];
          leaf.flops[s] = entries[idx].flops[s];
        }
        mergeInto(agg, leaf);
        continue;
      }
      const ClusterNode& c = cnodes[idx];
      const auto& bySide = stepsByKey.at(c.key);
      std::vector<Side> sides;
      std::vector<std::string> labels;
      for (const auto& [side, step] : bySide) {
        sides.push_back(side);
        labels.push_back(step.label);
      }
      Cluster cluster;
      cluster.id = static_cast<int>(out.clusters.size());
      cluster.kind = c.step.loop ? Cluster::Kind::loop : Cluster::Kind::user;
      cluster.parent = parentId;
      cluster.sides = sides;
      if (c.step.loop) {
        if (!merged) {
          cluster.label = labels[0];
        } else if (sides.size() == 1) {
          cluster.label = labels[0] + " (" + std::string(longName(sides[0])) + ")";
        } else if (labels[0] == labels[1]) {
          cluster.label = labels[0];
        } else {
          cluster.label = labels[0] + " " + std::string(longName(sides[0])) + " · " + labels[1] +
                          " " + std::string(longName(sides[1]));
        }
      } else if (auto p = pairLabels.find(c.key); p != pairLabels.end()) {
        cluster.trainLabel = p->second.first;
        cluster.inferLabel = p->second.second;
        // Laid out with the longer label, so either fits once swapped in.
        cluster.label = p->second.second.size() > p->second.first.size() ? p->second.second
                                                                         : p->second.first;
      } else {
        cluster.label = c.step.label;
      }
      const int id = cluster.id;
      out.clusters.push_back(cluster);
      lines.push_back(fmt::format("{}subgraph cluster_{} {{", indent, id));
      const std::string in = indent + "  ";
      lines.push_back(fmt::format("{}id=\"c{}\"", in, id));
      lines.push_back(fmt::format("{}label=\"{}\"", in, escapeDotString(cluster.label)));
      lines.push_back(in + std::string(c.step.loop ? kLoopClusterAttrs : kUserClusterAttrs));
      const std::string only = onlyClass(sides);
      if (!only.empty() || insideOneSide) lines.push_back(fmt::format("{}class=\"{}\"", in, only));
      const Agg inner = self(self, idx, id, in, insideOneSide || !only.empty());
      lines.push_back(indent + "}");
      Cluster& stored = out.clusters[static_cast<std::size_t>(id)];
      for (Side s : sides) {
        stored.cost[s] = Cost{sumParams(s, inner.params[s].value_or(std::set<std::string>{})),
                              inner.flops[s].value_or(0)};
      }
      mergeInto(agg, inner);
    }
    return agg;
  };
  emitChildren(emitChildren, 0, -1, "  ", false);

  // Edges, merged across sides. Loop-carried ones are dashed back edges kept out of ranking.
  struct EdgeAcc {
    const SideEdge* edge;
    std::vector<Side> sides;
  };
  std::vector<EdgeAcc> edges;
  std::unordered_map<std::string, std::size_t> edgeIndex;
  for (const SideModel& m : models) {
    for (const SideEdge& e : m.edges) {
      const std::string key = e.src + "->" + e.dst + (e.carried ? ":1" : ":0");
      auto [it, inserted] = edgeIndex.try_emplace(key, edges.size());
      if (inserted) edges.push_back({&e, {}});
      edges[it->second].sides.push_back(m.side);
    }
  }
  out.edges.clear();
  for (const EdgeAcc& acc : edges) {
    const int s = static_cast<int>(entryIndex.at(acc.edge->src));
    const int d = static_cast<int>(entryIndex.at(acc.edge->dst));
    std::string cls = fmt::format("ti-{} ti-{}", s, d);
    if (const std::string only = onlyClass(acc.sides); !only.empty()) cls += " " + only;
    lines.push_back(fmt::format("  \"n{}\" -> \"n{}\" [color=\"{}\" class=\"{}\"{}]", s, d,
                                escapeDotString(acc.edge->color), cls,
                                acc.edge->backEdge  ? " style=\"dashed\" constraint=false arrowhead=vee"
                                : acc.edge->carried ? " style=\"dashed\" arrowhead=vee"
                                                    : ""));
    out.edges.push_back({s, d, acc.edge->carried, acc.edge->backEdge, acc.edge->color,
                         distinctSides(acc.sides)});
  }
  lines.push_back("}");
  std::vector<DrawnShape> drawn;
  for (const Entry& e : entries) {
    for (const BoxShape& shape : e.shapes) drawn.insert(drawn.end(), shape.begin(), shape.end());
  }
  out.collisions = dims.collisionsIn(drawn);
  // Large diagrams: bound Graphviz's network simplex in ranking (nslimit1) and x-placement
  // (nslimit), and rank globally (newrank) rather than cluster by cluster. Measured on a 1,000-
  // iteration unfoldable loop (~2,700 clusters): 11 s with nslimit alone, 3.4 s with all three.
  // Past kHugeDiagram, tighter limits and a bounded crossing minimisation (mclimit) nearly halve
  // the CPU time again (6,000 boxes: 20.7 s -> 11.5 s) with the same drawing extent.
  // An edge spanning k ranks costs Graphviz k - 1 virtual nodes, in every pass: a tensor read by
  // many boxes far below it (an input added at each of 140 lines) took 4.5 s to lay out at 147
  // boxes and minutes at 200; the `dot` command with the limits, 0.44 s and 1.25 s. So they count
  // towards the size.
  const std::size_t size = out.nodes.size() + out.clusters.size() + virtualNodeEstimate(out);
  if (size > kHugeDiagram) {
    lines.insert(lines.begin() + 5, "  nslimit=0.2 nslimit1=0.2 mclimit=0.2 newrank=true");
  } else if (size > kLargeDiagram) {
    lines.insert(lines.begin() + 5, "  nslimit=0.5 nslimit1=0.5 newrank=true");
  }
  out.dot.clear();
  for (const auto& l : lines) {
    out.dot += l;
    out.dot += '\n';
  }
}

// dot ranks boxes at least as far apart as the longest path of edges into them.
std::size_t virtualNodeEstimate(const Diagram& d) {
  const std::size_t n = d.nodes.size();
  std::vector<std::vector<int>> out(n);
  std::vector<std::size_t> indegree(n, 0);
  for (const Edge& e : d.edges) {
    if (e.backEdge || e.src == e.dst) continue;  // constraint=false: not ranked
    out[static_cast<std::size_t>(e.src)].push_back(e.dst);
    ++indegree[static_cast<std::size_t>(e.dst)];
  }
  std::vector<std::size_t> rank(n, 0);
  std::vector<int> ready;
  for (std::size_t i = 0; i < n; ++i) {
    if (indegree[i] == 0) ready.push_back(static_cast<int>(i));
  }
  while (!ready.empty()) {
    const auto at = static_cast<std::size_t>(ready.back());
    ready.pop_back();
    for (int next : out[at]) {
      const auto to = static_cast<std::size_t>(next);
      rank[to] = std::max(rank[to], rank[at] + 1);
      if (--indegree[to] == 0) ready.push_back(next);
    }
  }
  std::size_t virtualNodes = 0;
  for (const Edge& e : d.edges) {
    if (e.backEdge || e.src == e.dst) continue;
    const std::size_t from = rank[static_cast<std::size_t>(e.src)], to = rank[static_cast<std::size_t>(e.dst)];
    if (to > from + 1) virtualNodes += to - from - 1;
  }
  return virtualNodes;
}

std::string warmUpDot() {
  // A box with the three faces of a box's label (code, an italic subtitle, a bold dim name), in a
  // loop (its ×N label in sans-serif) inside a user cluster (its code line in Courier), and an
  // edge: every font and label form the diagrams use, so the first real layout finds them loaded.
  return fmt::format(
      "digraph G {{\n"
      "  {}\n"
      "  subgraph cluster_0 {{\n"
      "    label=\"for (int i = 0; i < 2; i++) x = f(x);\"\n"
      "    {}\n"
      "    subgraph cluster_1 {{\n"
      "      label=\"×2\"\n"
      "      {}\n"
      "      \"n0\" [label=<<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLPADDING=\"3\" CELLSPACING=\"0\">"
      "<TR><TD>x = relu(x);</TD></TR><TR><TD><FONT POINT-SIZE=\"9\" COLOR=\"#777777\"><I>f</I></FONT></TD></TR>"
      "<TR><TD>&#91;<FONT COLOR=\"#1f77b4\"><B>B</B></FONT>&#93;</TD></TR></TABLE>>]\n"
      "    }}\n"
      "  }}\n"
      "  \"n1\" [label=\"input: x\"]\n"
      "  \"n1\" -> \"n0\"\n"
      "}}\n",
      kNodeDefaults, kUserClusterAttrs, kLoopClusterAttrs);
}

}  // namespace nndna::diagram::detail
