// The trace viewer: one offline HTML file. The call graph is laid out here, in C++, with
// Graphviz (no CDN, no WASM); the timeline, details and search are a small inline script.
#include <fmt/format.h>

#include "render/svg_render.hpp"
#include "xray/call_graph.hpp"
#include "xray/html_util.hpp"
#include "xray/viewer_assets.hpp"

namespace nndna::xray {
namespace {

// Graphviz lays out a few thousand boxes in seconds (with nslimit); beyond that the timeline is
// the useful view.
constexpr std::size_t kMaxGraphGroups = 3000;

nlohmann::json viewerData(const Trace& trace, const std::vector<detail::CallGroup>& groups,
                          const GraphOptions& options, const TraceSummary& summary) {
  using nlohmann::json;
  std::vector<std::size_t> groupOf(trace.nodes.size());
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t m : groups[g].members) groupOf[m] = g;
  // Subtree token and cost totals, children first (they follow their parents).
  std::vector<std::int64_t> tokens(trace.nodes.size());
  std::vector<double> cost(trace.nodes.size());
  for (std::size_t i = trace.nodes.size(); i-- > 0;) {
    const auto& m = trace.nodes[i].meta();
    if (auto t = m.find("total_tokens"); t != m.end() && t->is_number()) tokens[i] += t->get<std::int64_t>();
    if (auto c = m.find("estimated_cost_usd"); c != m.end() && c->is_number()) cost[i] += c->get<double>();
    if (auto p = trace.nodes[i].parent) {
      tokens[*p] += tokens[i];
      cost[*p] += cost[i];
    }
  }
  double origin = trace.nodes.empty() ? 0.0 : trace.nodes.front().startMs;
  std::vector<int> depth(trace.nodes.size(), 0);
  json nodes = json::array();
  for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
    const auto& n = trace.nodes[i];
    origin = std::min(origin, n.startMs);
    if (n.parent) depth[i] = depth[*n.parent] + 1;
    json inputs = json::object();
    for (const auto& [name, text] : n.inputs()) inputs[name] = text;
    nodes.push_back({{"id", n.id},
                     {"name", n.name},
                     {"inputs", std::move(inputs)},
                     {"output", n.output() ? json(*n.output()) : json()},
                     {"error", n.error() ? json(*n.error()) : json()},
                     {"start_ms", n.startMs},
                     {"latency_ms", n.latencyMs},
                     {"kind", n.kind()},
                     {"tags", n.tags()},
                     {"meta", n.meta()},
                     {"open", n.open},
                     {"thread", n.thread},
                     {"depth", depth[i]},
                     {"parent", n.parent ? static_cast<long long>(*n.parent) : -1LL},
                     {"children", n.children},
                     {"group", groupOf[i]},
                     {"rollup_tokens", tokens[i]},
                     {"rollup_cost", cost[i]}});
  }
  json groupList = json::array();
  for (const auto& g : groups) groupList.push_back({{"id", g.id}, {"name", g.name}, {"members", g.members}});
  return {{"nodes", std::move(nodes)},
          {"groups", std::move(groupList)},
          {"slow_ms", options.slowMs},
          {"origin_ms", origin},
          {"total_ms", summary.totalMs}};
}

std::string graphSection(const Trace& trace, const std::vector<detail::CallGroup>& groups,
                         const GraphOptions& options) {
  if (groups.empty()) return "<div class=\"msg\">No spans were recorded.</div>";
  if (groups.size() > kMaxGraphGroups)
    return fmt::format(
        "<div class=\"msg\">The call graph has {} distinct boxes, too many to lay out; use the "
        "timeline.</div>",
        groups.size());
  render::LayoutOptions layout;
  if (groups.size() > 300) layout.nslimit = 0.5;
  try {
    return render::renderInlineSvg(detail::callGraphDot(trace, groups, options), layout);
  } catch (const render::RenderError& e) {
    return "<div class=\"msg\">The call graph could not be drawn: " + detail::escapeHtml(e.what()) + "</div>";
  }
}

}  // namespace

std::string toHtml(const Trace& trace, const GraphOptions& options) {
  auto groups = detail::groupCalls(trace);
  TraceSummary s = summarize(trace);
  std::string title = detail::escapeHtml(trace.title.empty() ? "xray trace" : trace.title);
  std::string stats = fmt::format(
      "<span class=\"st\">Nodes <b id=\"stat-nodes\">{}</b></span>"
      "<span class=\"st\">Total <b id=\"stat-total\">{}</b></span>"
      "<span class=\"st\">Errors <b id=\"stat-errors\" class=\"err\">{}</b></span>",
      s.nodes, detail::formatMs(s.totalMs), s.errors);
  if (s.open > 0)
    stats += fmt::format("<span class=\"st\">Unfinished <b id=\"stat-open\" class=\"open\">{}</b></span>", s.open);
  if (s.totalTokens > 0)
    stats += fmt::format("<span class=\"st\">Tokens <b id=\"stat-tokens\">{}</b></span>", s.totalTokens);
  if (s.costUsd > 0)
    stats += fmt::format("<span class=\"st\">Cost <b id=\"stat-cost\" class=\"warn\">${:.6f}</b></span>", s.costUsd);
  std::string note;
  if (!trace.exitNote.empty()) note = "<div id=\"note\">" + detail::escapeHtml(trace.exitNote) + "</div>\n";

  std::string html;
  html.reserve(64 * 1024 + trace.nodes.size() * 300);
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"nndna xray\">\n<title>";
  html += title;
  html += "</title>\n<style>";
  html += detail::traceViewerCss();
  html += "</style>\n</head>\n<body>\n<header><h1>";
  html += title;
  html += "</h1>";
  html += stats;
  html += "<input id=\"search\" type=\"search\" placeholder=\"Search by name\u2026\" "
          "aria-label=\"Search by name\"><span id=\"matches\"></span></header>\n";
  html += note;
  html += "<nav><button class=\"on\" data-view=\"graph\">Call graph</button>"
          "<button data-view=\"timeline\">Timeline</button></nav>\n"
          "<div id=\"main\">\n<section id=\"graph-view\">";
  html += graphSection(trace, groups, options);
  html += "</section>\n<section id=\"timeline-view\" hidden><div id=\"tl-head\"><div class=\"hn\">span</div>"
          "<div class=\"hl\">time \u2192</div><div class=\"hm\">latency</div></div>"
          "<div id=\"tl-scroll\"><div id=\"tl-inner\"></div></div></section>\n"
          "<aside id=\"det\"><p class=\"hint\">Click a box or a timeline row to inspect it</p></aside>\n"
          "</div>\n<script type=\"application/json\" id=\"xray-data\">";
  html += detail::jsonForScript(viewerData(trace, groups, options, s));
  html += "</script>\n<script>";
  html += detail::traceViewerJs();
  html += "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace nndna::xray
