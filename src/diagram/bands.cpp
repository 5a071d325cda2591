#include "diagram/bands.hpp"

#include <map>
#include <stdexcept>
#include <unordered_map>

namespace nndna::diagram::detail {
namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool isClusterOpen(std::string_view t) { return t.starts_with("subgraph cluster_") && t.ends_with("{"); }
bool isEdge(std::string_view t) { return t.starts_with('"') && t.find("\" -> \"") != std::string_view::npos; }
bool isNode(std::string_view t) { return t.starts_with('"') && !isEdge(t); }
// The speed settings assemble() adds to a large diagram's DOT.
bool isSpeedSetting(std::string_view t) { return t.starts_with("nslimit") || t.starts_with("mclimit"); }

// The first quoted name of a statement (`"n12" [...]` -> n12), and the second for an edge.
std::string quoted(std::string_view t, std::size_t nth) {
  std::size_t pos = 0;
  for (std::size_t i = 0;; ++i) {
    const auto open = t.find('"', pos);
    const auto close = open == std::string_view::npos ? open : t.find('"', open + 1);
    if (close == std::string_view::npos) throw std::logic_error("diagram bands: no quoted name in: " + std::string(t));
    if (i == nth) return std::string(t.substr(open + 1, close - open - 1));
    pos = close + 1;
  }
}

// The value of `key="..."` in an edge statement, or "" when absent.
std::string attribute(std::string_view t, std::string_view key) {
  for (const char before : {'[', ' '}) {
    const std::string needle = before + std::string(key) + "=\"";
    const auto at = t.find(needle, t.find('['));
    if (at == std::string_view::npos) continue;
    const auto begin = at + needle.size();
    return std::string(t.substr(begin, t.find('"', begin) - begin));
  }
  return "";
}

struct Item {
  bool cluster = false;
  std::vector<std::string_view> head;  // a node's statement; a cluster's opening and attribute lines
  std::vector<Item> children;
  std::size_t weight = 1;  // boxes + clusters
  std::vector<std::string> nodes;  // every box inside
};

// Parses the statements from lines[i] until the closing `}` of the enclosing block.
std::vector<Item> parseBlock(const std::vector<std::string_view>& lines, std::size_t& i, Item* parent,
                             std::vector<std::string_view>& edges) {
  std::vector<Item> items;
  for (; i < lines.size(); ++i) {
    const std::string_view t = trimmed(lines[i]);
    if (t == "}") return items;
    if (isClusterOpen(t)) {
      Item c;
      c.cluster = true;
      c.head.push_back(lines[i]);
      ++i;
      c.children = parseBlock(lines, i, &c, edges);
      if (i == lines.size()) throw std::logic_error("diagram bands: unclosed cluster in the DOT");
      for (const Item& child : c.children) {
        c.weight += child.weight;
        c.nodes.insert(c.nodes.end(), child.nodes.begin(), child.nodes.end());
      }
      items.push_back(std::move(c));
    } else if (isEdge(t)) {
      edges.push_back(lines[i]);
    } else if (isNode(t)) {
      Item n;
      n.head.push_back(lines[i]);
      n.nodes.push_back(quoted(t, 0));
      items.push_back(std::move(n));
    } else if (parent != nullptr && !t.empty()) {
      parent->head.push_back(lines[i]);
    }
  }
  return items;
}

// A piece of a band: an item drawn whole, inside the chain of (cut) clusters that hold it.
struct Atom {
  std::vector<const Item*> path;
  const Item* item;
};

void flatten(const std::vector<Item>& items, std::vector<const Item*>& path, std::size_t budget,
             std::vector<Atom>& out) {
  for (const Item& item : items) {
    if (!item.cluster || item.weight <= budget || item.children.empty()) {
      out.push_back({path, &item});
      continue;
    }
    path.push_back(&item);
    flatten(item.children, path, budget, out);
    path.pop_back();
  }
}

void appendItem(const Item& item, std::string& out) {
  for (std::string_view l : item.head) {
    out += l;
    out += '\n';
  }
  if (!item.cluster) return;
  for (const Item& c : item.children) appendItem(c, out);
  const std::string_view open = item.head.front();
  out += open.substr(0, open.find_first_not_of(" \t"));
  out += "}\n";
}

// A later piece of a cut cluster: the same style, its own id, the label marked as continued.
void appendContinuedHead(const Item& cluster, int piece, std::string& out) {
  for (std::string_view l : cluster.head) {
    const std::string_view t = trimmed(l);
    const std::string indent(l.substr(0, l.find_first_not_of(" \t")));
    if (t.starts_with("id=\"") && t.ends_with("\"")) {
      out += indent + std::string(t.substr(0, t.size() - 1)) + "-" + std::to_string(piece) + "\"\n";
    } else if (t.starts_with("label=\"") && t.ends_with("\"")) {
      out += indent + std::string(t.substr(0, t.size() - 1)) + " (continued)\"\n";
    } else {
      out += l;
      out += '\n';
    }
  }
}

}  // namespace

Bands cutIntoBands(std::string_view dot, std::size_t budget, bool keepSpeedSettings) {
  std::vector<std::string_view> lines;
  for (std::size_t pos = 0; pos <= dot.size();) {
    auto end = dot.find('\n', pos);
    if (end == std::string_view::npos) end = dot.size();
    lines.push_back(dot.substr(pos, end - pos));
    pos = end + 1;
  }

  // The header: everything before the first box, cluster or edge, minus the speed settings unless
  // they are kept.
  std::string header;
  std::size_t i = 0;
  for (; i < lines.size(); ++i) {
    const std::string_view t = trimmed(lines[i]);
    if (isClusterOpen(t) || t.starts_with('"')) break;
    if (isSpeedSetting(t) && !keepSpeedSettings) continue;
    header += lines[i];
    header += '\n';
  }
  std::vector<std::string_view> edgeLines;
  const std::vector<Item> items = parseBlock(lines, i, nullptr, edgeLines);

  std::vector<Atom> atoms;
  std::vector<const Item*> path;
  flatten(items, path, budget, atoms);

  // Greedy cut in drawing order.
  std::vector<std::vector<const Atom*>> bandAtoms(1);
  std::size_t weight = 0;
  for (const Atom& a : atoms) {
    if (weight > 0 && weight + a.item->weight > budget) {
      bandAtoms.emplace_back();
      weight = 0;
    }
    bandAtoms.back().push_back(&a);
    weight += a.item->weight;
  }

  Bands bands;
  std::unordered_map<std::string, std::size_t> bandOf;
  std::map<const Item*, int> pieces;  // cut clusters: pieces drawn so far
  for (std::size_t b = 0; b < bandAtoms.size(); ++b) {
    std::string text = header;
    std::vector<const Item*> open;
    auto closeTo = [&](std::size_t depth) {
      while (open.size() > depth) {
        const std::string_view first = open.back()->head.front();
        text += first.substr(0, first.find_first_not_of(" \t"));
        text += "}\n";
        open.pop_back();
      }
    };
    for (const Atom* a : bandAtoms[b]) {
      std::size_t common = 0;
      while (common < open.size() && common < a->path.size() && open[common] == a->path[common]) ++common;
      closeTo(common);
      for (std::size_t d = common; d < a->path.size(); ++d) {
        const Item* c = a->path[d];
        const int piece = pieces[c]++;
        if (piece == 0) {
          for (std::string_view l : c->head) {
            text += l;
            text += '\n';
          }
        } else {
          appendContinuedHead(*c, piece, text);
        }
        open.push_back(c);
      }
      appendItem(*a->item, text);
      for (const std::string& n : a->item->nodes) bandOf[n] = b;
    }
    closeTo(0);
    bands.dots.push_back(std::move(text));
  }

  for (std::string_view line : edgeLines) {
    const std::string_view t = trimmed(line);
    const std::string tail = quoted(t, 0), head = quoted(t, 1);
    const auto tb = bandOf.find(tail), hb = bandOf.find(head);
    if (tb == bandOf.end() || hb == bandOf.end()) {
      throw std::logic_error("diagram bands: an edge names a box the DOT does not declare: " + std::string(t));
    }
    if (tb->second == hb->second) {
      bands.dots[tb->second] += line;
      bands.dots[tb->second] += '\n';
      continue;
    }
    bands.crossEdges.push_back({tail, head, attribute(t, "color"), attribute(t, "class"),
                                attribute(t, "style") == "dashed", t.find(" arrowhead=vee") != std::string_view::npos});
  }
  for (std::string& d : bands.dots) d += "}\n";
  return bands;
}

}  // namespace nndna::diagram::detail
