#include "xray/call_graph.hpp"

#include "xray/token_count.hpp"

#include <fmt/format.h>

#include <map>
#include <utility>

namespace nndna::xray {
namespace detail {
namespace {
constexpr std::size_t kMaxLabel = 48;

std::string shortName(const std::string& name) {
  if (name.size() <= kMaxLabel) return name;
  return truncateLabel(name);
}
}  // namespace

std::string kindColor(std::string_view kind) {
  // Known kinds keep their colour in every trace; others take one of the rest by their name.
  static constexpr std::pair<std::string_view, std::string_view> known[] = {
      {"", "#3d444d"},      {"agent", "#1f6feb"},     {"llm", "#8250df"},   {"tool", "#1a7f37"},
      {"retrieval", "#9a6700"}, {"embedding", "#1b7c83"}, {"chain", "#bc4c00"}};
  for (const auto& [name, color] : known)
    if (kind == name) return std::string(color);
  static constexpr std::string_view others[] = {"#0969da", "#6e40c9", "#116329", "#953800", "#0a7d86", "#8c6d1f"};
  std::size_t hash = 0;
  for (unsigned char c : kind) hash = hash * 31 + c;
  return std::string(others[hash % std::size(others)]);
}

std::string formatMs(double ms) {
  if (ms < 1) return fmt::format("{:.2f} ms", ms);
  if (ms < 100) return fmt::format("{:.1f} ms", ms);
  if (ms < 10000) return fmt::format("{:.0f} ms", ms);
  return fmt::format("{:.1f} s", ms / 1000);
}

std::string dotQuoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  for (char c : text) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<CallGroup> groupCalls(const Trace& trace) {
  std::vector<CallGroup> groups;
  std::vector<std::size_t> groupOf(trace.nodes.size());
  std::map<std::pair<std::size_t, std::string>, std::size_t> byKey;
  constexpr std::size_t kNoParent = static_cast<std::size_t>(-1);
  // Pre-order: a node's parent is grouped before the node.
  for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
    const auto& n = trace.nodes[i];
    std::size_t parentGroup = n.parent ? groupOf[*n.parent] : kNoParent;
    auto [it, inserted] = byKey.try_emplace({parentGroup, n.name}, groups.size());
    if (inserted) {
      CallGroup g;
      g.id = "g" + std::to_string(groups.size());
      if (parentGroup != kNoParent) g.parent = parentGroup;
      g.name = n.name;
      g.kind = n.kind();
      groups.push_back(std::move(g));
    }
    auto& g = groups[it->second];
    groupOf[i] = it->second;
    g.members.push_back(i);
    if (n.error()) ++g.errors;
    if (n.open) ++g.open;
    g.totalMs += n.latencyMs;
    g.maxMs = std::max(g.maxMs, n.latencyMs);
    const auto& meta = n.meta();
    if (auto t = meta.find("total_tokens"); t != meta.end()) g.tokens = addTokens(g.tokens, tokenCount(*t));
  }
  return groups;
}

std::string callGraphDot(const Trace& trace, const std::vector<CallGroup>& groups,
                         const GraphOptions& options) {
  (void)trace;
  std::string dot =
      "digraph xray {\n"
      "  rankdir=\"TB\";\n"
      "  bgcolor=\"transparent\";\n"
      "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11, "
      "fontcolor=\"#ffffff\", color=\"#30363d\", margin=\"0.25,0.1\"];\n"
      "  edge [color=\"#6e7681\", arrowsize=0.7];\n";
  for (const auto& g : groups) {
    // Fill by kind; the border tells the status.
    std::string cls = "call";
    std::string border = "color=\"#30363d\"";
    if (g.errors > 0) {
      cls += " err";
      border = "color=\"#f85149\", penwidth=3";
    } else if (g.open > 0) {
      cls += " open";
      border = "color=\"#a371f7\", penwidth=2, style=\"rounded,filled,dashed\"";
    } else if (g.maxMs >= options.slowMs) {
      cls += " slow";
      border = "color=\"#d29922\", penwidth=3";
    }
    std::string fill = kindColor(g.kind);
    std::string label = shortName(g.name);
    if (g.members.size() > 1) label += fmt::format(" \u00d7{}", g.members.size());
    label += "\n" + (g.members.size() > 1 ? "total " : std::string()) + formatMs(g.totalMs);
    if (g.errors > 0) label += fmt::format("\n{} error{}", g.errors, g.errors == 1 ? "" : "s");
    if (g.open > 0) label += fmt::format("\n{} unfinished", g.open);
    if (g.tokens > 0) label += fmt::format("\n{} tok", g.tokens);
    // Newlines become DOT's "\n" escape after the user text has been escaped.
    std::string quoted;
    for (char c : label) {
      if (c == '\n') quoted += "\\n";
      else quoted += dotQuoted(std::string_view(&c, 1));
    }
    dot += fmt::format("  {} [id=\"{}\", class=\"{}\", label=\"{}\", fillcolor=\"{}\", {}];\n", g.id, g.id,
                       cls, quoted, fill, border);
  }
  for (const auto& g : groups)
    if (g.parent) dot += fmt::format("  {} -> {};\n", groups[*g.parent].id, g.id);
  dot += "}\n";
  return dot;
}

std::string truncateLabel(const std::string& name) {
  std::size_t cut = kMaxLabel - 1;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  return name.substr(0, cut) + "\u2026";
}

}  // namespace detail

std::string toDot(const Trace& trace, const GraphOptions& options) {
  return detail::callGraphDot(trace, detail::groupCalls(trace), options);
}

}  // namespace nndna::xray
