// The trace viewer: one offline HTML file. The call graph is laid out here, in C++, with
// Graphviz (no CDN, no WASM); overview, timeline, details and search are an inline script.
//
// Built for large traces: the spans travel as encoded columns (below), and what few spans carry
// (inputs, output, error, tags, metadata) only for those that have it, up to a budget of bytes
// (errors first); the whole is gzip in base64, which the page inflates natively. The page of a
// million plain spans is about 1 MB and opens in seconds (bench/xray measures it). Spans past
// the budget show their name, time and status, and say that their details are in the trace JSON.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <unordered_map>

#include "render/svg_render.hpp"
#include "xray/call_graph.hpp"
#include "xray/html_util.hpp"
#include "xray/recorder.hpp"
#include "xray/viewer_assets.hpp"

namespace nndna::xray {
namespace {

using nlohmann::json;

// Graphviz lays out a few thousand boxes in seconds (with nslimit); beyond that the timeline is
// the useful view.
constexpr std::size_t kMaxGraphGroups = 3000;
// Bytes of span details the page carries at most (inputs, outputs, errors, metadata).
constexpr std::size_t kDetailsBudget = std::size_t{64} << 20;
// Errors listed in the overview (all are counted).
constexpr std::size_t kOverviewErrors = 200;

// Times travel as whole units of 0.1 µs: plenty for a timeline, and few digits to carry.
long long tenthsOfUs(double ms) { return std::llround(ms * 1e4); }

// The page's columns are encoded so that a million spans stay a few bytes each (the viewer
// decodes them into typed arrays, kTraceViewerJs's `decode`):
//   - a small-valued column (name, kind, thread, flags, group) as runs {"runs": [v, n, v, n, …]}
//     when that is shorter than the plain array, else the plain array;
//   - a column of increasing values (start times, parents) as differences from the row before.
json smallValues(const std::vector<long long>& column) {
  json runs = json::array();
  std::size_t count = 0;
  for (std::size_t i = 0; i < column.size(); i += count) {
    count = 1;
    while (i + count < column.size() && column[i + count] == column[i]) ++count;
    runs.push_back(column[i]);
    runs.push_back(count);
  }
  if (runs.size() < column.size()) return {{"runs", std::move(runs)}};
  return column;
}

json differences(const std::vector<long long>& column) {
  json out = json::array();
  long long before = 0;
  for (long long v : column) {
    // Saturated past the 64-bit range, which only a hostile events file's times reach (the fuzzer
    // found a start at the lowest long long): the viewer sums the differences as doubles anyway.
    long long difference = 0;
    if (__builtin_sub_overflow(v, before, &difference)) {
      difference = v < before ? std::numeric_limits<long long>::min() : std::numeric_limits<long long>::max();
    }
    out.push_back(difference);
    before = v;
  }
  return out;
}

// Span ids as a prefix and numbers ({"prefix": "s", "numbers": differences}) when every id is
// the same letters followed by a number without leading zeros (as the recorder makes them),
// else the ids themselves.
json encodedIds(const std::vector<TraceNode>& nodes) {
  std::string prefix;
  std::vector<long long> numbers;
  numbers.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::string_view id = nodes[i].id;
    std::size_t digits = id.find_first_of("0123456789");
    bool numbered = digits != std::string_view::npos && id.size() - digits <= 15 &&
                    id.find_first_not_of("0123456789", digits) == std::string_view::npos &&
                    (id[digits] != '0' || id.size() - digits == 1);
    if (numbered && i == 0) prefix = id.substr(0, digits);
    if (!numbered || id.substr(0, digits) != prefix) {
      json ids = json::array();
      for (const auto& n : nodes) ids.push_back(n.id);
      return ids;
    }
    numbers.push_back(std::stoll(std::string(id.substr(digits))));
  }
  return {{"prefix", prefix}, {"numbers", differences(numbers)}};
}

json detailsOf(const TraceNode& n) {
  json d = json::object();
  if (!n.inputs().empty()) {
    json inputs = json::object();
    for (const auto& [name, text] : n.inputs()) inputs[name] = text;
    d["inputs"] = std::move(inputs);
  }
  if (n.output()) d["output"] = *n.output();
  if (n.error()) d["error"] = *n.error();
  if (!n.tags().empty()) d["tags"] = n.tags();
  if (!n.meta().empty()) d["meta"] = n.meta();
  return d;
}

json viewerData(const Trace& trace, const std::vector<detail::CallGroup>& groups, const GraphOptions& options,
                const TraceSummary& summary) {
  const auto& nodes = trace.nodes;
  std::vector<std::size_t> groupOf(nodes.size());
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t m : groups[g].members) groupOf[m] = g;

  std::unordered_map<std::string_view, std::size_t> nameIndex, kindIndex;
  json names = json::array(), kinds = json::array({""}), kindColors = json::array({detail::kindColor("")});
  kindIndex.emplace("", 0);
  std::vector<long long> name, kind, start, latency, parent, thread, flags, group;
  for (auto* column : {&name, &kind, &start, &latency, &parent, &thread, &flags, &group}) column->reserve(nodes.size());
  double origin = nodes.empty() ? 0.0 : nodes.front().startMs;
  for (const auto& n : nodes) origin = std::min(origin, n.startMs);

  // Details: errors first, then the rest in trace order, while the budget lasts.
  json details = json::object();
  std::size_t spent = 0, omitted = 0;
  auto addDetails = [&](std::size_t i) {
    json d = detailsOf(nodes[i]);
    if (d.empty()) return;
    std::string text = d.dump(-1, ' ', false, json::error_handler_t::replace);
    if (spent + text.size() > kDetailsBudget) {
      ++omitted;
      return;
    }
    spent += text.size();
    details[std::to_string(i)] = std::move(d);
  };
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].error()) addDetails(i);

  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    auto [nameAt, newName] = nameIndex.try_emplace(n.name, names.size());
    if (newName) names.push_back(n.name);
    auto [kindAt, newKind] = kindIndex.try_emplace(n.kind(), kinds.size());
    if (newKind) {
      kinds.push_back(n.kind());
      kindColors.push_back(detail::kindColor(n.kind()));
    }
    name.push_back(static_cast<long long>(nameAt->second));
    kind.push_back(static_cast<long long>(kindAt->second));
    start.push_back(tenthsOfUs(n.startMs - origin));
    latency.push_back(tenthsOfUs(n.latencyMs));
    // Parents come before their children: i - parent is a small positive number (0: a root).
    parent.push_back(n.parent ? static_cast<long long>(i - *n.parent) : 0LL);
    thread.push_back(n.thread);
    flags.push_back((n.error() ? 1 : 0) | (n.open ? 2 : 0));
    group.push_back(static_cast<long long>(groupOf[i]));
    if (!n.error()) addDetails(i);
  }

  json groupList = json::array();
  for (const auto& g : groups) groupList.push_back({{"id", g.id}, {"name", g.name}});

  TraceOverview o = overview(trace);
  json repeated = json::array();
  for (const auto& r : o.repeated) repeated.push_back({{"name", r.name}, {"nodes", r.nodes}, {"total_ms", r.totalMs}});
  json models = json::array();
  for (const auto& m : o.models)
    models.push_back({{"model", m.model},
                      {"calls", m.calls},
                      {"prompt_tokens", m.promptTokens},
                      {"completion_tokens", m.completionTokens},
                      {"cost", m.costUsd}});
  std::vector<std::size_t> errors(o.errors.begin(), o.errors.begin() + static_cast<std::ptrdiff_t>(std::min(o.errors.size(), kOverviewErrors)));

  return {{"slow_ms", options.slowMs},
          {"total_ms", summary.totalMs},
          {"tokens", summary.totalTokens},
          {"cost", summary.costUsd},
          {"warnings", trace.warnings},
          {"names", std::move(names)},
          {"kinds", std::move(kinds)},
          {"kind_colors", std::move(kindColors)},
          {"count", nodes.size()},
          {"id", encodedIds(nodes)},
          {"name", smallValues(name)},
          {"kind", smallValues(kind)},
          {"start", differences(start)},
          {"lat", latency},
          {"parent", parent},
          {"thread", smallValues(thread)},
          {"flags", smallValues(flags)},
          {"group", smallValues(group)},
          {"groups", std::move(groupList)},
          {"details", std::move(details)},
          {"details_omitted", omitted},
          {"overview",
           {{"critical", o.criticalPath},
            {"slowest", o.slowest},
            {"repeated", std::move(repeated)},
            {"errors", errors},
            {"error_count", o.errors.size()},
            {"models", std::move(models)}}}};
}

std::string graphSection(const Trace& trace, const std::vector<detail::CallGroup>& groups,
                         const GraphOptions& options) {
  if (groups.empty()) return "<div class=\"msg\">No spans were recorded.</div>";
  if (groups.size() > kMaxGraphGroups)
    return fmt::format(
        "<div class=\"msg\">The call graph has {} distinct boxes, too many to lay out; use the "
        "overview and the timeline.</div>",
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
  if (s.totalTokens > 0) stats += fmt::format("<span class=\"st\">Tokens <b id=\"stat-tokens\">{}</b></span>", s.totalTokens);
  if (s.costUsd > 0)
    stats += fmt::format("<span class=\"st\">Cost <b id=\"stat-cost\" class=\"warn\">${:.6f}</b></span>", s.costUsd);
  std::string notes;
  if (!trace.exitNote.empty()) notes += "<div class=\"note\" id=\"note\">" + detail::escapeHtml(trace.exitNote) + "</div>\n";
  for (const auto& w : trace.warnings) notes += "<div class=\"note warning\">" + detail::escapeHtml(w) + "</div>\n";

  std::string html;
  html.reserve(96 * 1024 + trace.nodes.size() * 80);
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
  html += "<span id=\"searchbox\"><input id=\"search\" type=\"search\" placeholder=\"Search names, inputs, outputs, "
          "errors, metadata\u2026\" aria-label=\"Search\"><button id=\"search-prev\" title=\"Previous match\">\u25b2"
          "</button><button id=\"search-next\" title=\"Next match\">\u25bc</button><span id=\"matches\"></span></span>"
          "</header>\n";
  html += notes;
  html += "<nav><button data-view=\"overview\">Overview</button><button class=\"on\" data-view=\"graph\">Call graph</button>"
          "<button data-view=\"timeline\">Timeline</button></nav>\n"
          "<div id=\"main\">\n<section id=\"overview-view\" hidden></section>\n"
          "<section id=\"graph-view\"><div id=\"graph-tools\"><button id=\"zoom-in\" title=\"Zoom in\">+</button>"
          "<button id=\"zoom-out\" title=\"Zoom out\">\u2212</button><button id=\"zoom-fit\" title=\"Fit to window\">Fit"
          "</button><button id=\"zoom-reset\" title=\"Actual size\">1:1</button><div id=\"legend\"></div></div>"
          "<div id=\"graph-port\"><div id=\"graph-canvas\">";
  html += graphSection(trace, groups, options);
  html += "</div></div></section>\n<section id=\"timeline-view\" hidden><div id=\"tl-filters\">"
          "<label><input type=\"checkbox\" id=\"f-errors\"> errors only</label>"
          "<label>thread <select id=\"f-thread\"><option value=\"\">all</option></select></label>"
          "<label>kind <select id=\"f-kind\"><option value=\"\">all</option></select></label>"
          "<span id=\"tl-count\"></span></div>"
          "<div id=\"tl-head\"><div class=\"hn\">span</div><div class=\"hl\" id=\"tl-axis\"></div>"
          "<div class=\"hm\">latency</div></div>"
          "<div id=\"tl-scroll\"><div id=\"tl-inner\"></div></div></section>\n"
          "<aside id=\"det\"><p class=\"hint\">Click a box or a timeline row to inspect it</p></aside>\n"
          "</div>\n<script type=\"application/octet-stream\" id=\"xray-data\" data-encoding=\"gzip+base64\">";
  html += detail::gzipBase64ForScript(viewerData(trace, groups, options, s));
  html += "</script>\n<script>";
  html += detail::traceViewerJs();
  html += "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace nndna::xray
