// Two runs side by side: spans matched by their path of names (each with its index among
// same-named siblings, as flow-xray's diff), then added, removed, changed (output or error) and
// the same; latency and cost deltas; and the diff as one offline HTML page.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "xray/call_graph.hpp"
#include "xray/html_util.hpp"
#include "xray/recorder.hpp"
#include "xray/viewer_assets.hpp"

namespace nndna::xray {
namespace {

// Paths longer than this keep their start and end (deep traces stay linear in memory).
constexpr std::size_t kMaxPath = 240;

std::string shortenPath(std::string path) {
  if (path.size() <= kMaxPath) return path;
  std::size_t cut = kMaxPath / 3;
  while (cut > 0 && (static_cast<unsigned char>(path[cut]) & 0xC0) == 0x80) --cut;
  std::size_t tail = path.size() - (kMaxPath - cut - 3);
  while (tail < path.size() && (static_cast<unsigned char>(path[tail]) & 0xC0) == 0x80) ++tail;
  return path.substr(0, cut) + "\u2026" + path.substr(tail);
}

// The path of every node: "/agent[0]/call_llm[2]". Parents come first in a trace.
std::vector<std::string> pathsOf(const Trace& trace) {
  std::vector<std::string> paths(trace.nodes.size());
  auto name = [&](const std::vector<std::size_t>& siblings, const std::string& prefix) {
    std::map<std::string_view, std::size_t> seen;
    for (std::size_t s : siblings) {
      const std::string& n = trace.nodes[s].name;
      paths[s] = shortenPath(prefix + "/" + n + "[" + std::to_string(seen[n]++) + "]");
    }
  };
  name(trace.roots, "");
  for (std::size_t i = 0; i < trace.nodes.size(); ++i) name(trace.nodes[i].children, paths[i]);
  return paths;
}

double costOf(const TraceNode& n) {
  const auto& meta = n.meta();
  auto it = meta.find("estimated_cost_usd");
  return it != meta.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string valueOr(const std::optional<std::string>& text, std::string_view none) {
  return text ? *text : std::string(none);
}

}  // namespace

TraceDiff diffTraces(const Trace& before, const Trace& after) {
  TraceDiff diff;
  std::vector<std::string> beforePaths = pathsOf(before);
  std::vector<std::string> afterPaths = pathsOf(after);
  std::map<std::string_view, std::size_t> afterByPath;
  for (std::size_t i = 0; i < afterPaths.size(); ++i) afterByPath.emplace(afterPaths[i], i);
  std::vector<bool> matched(after.nodes.size(), false);
  for (std::size_t i = 0; i < before.nodes.size(); ++i) {
    SpanChange change;
    change.path = beforePaths[i];
    change.before = i;
    if (auto it = afterByPath.find(beforePaths[i]); it != afterByPath.end()) {
      change.after = it->second;
      matched[it->second] = true;
      const TraceNode& a = before.nodes[i];
      const TraceNode& b = after.nodes[it->second];
      change.outputChanged = a.output() != b.output();
      change.errorChanged = a.error() != b.error();
      change.latencyDeltaMs = b.latencyMs - a.latencyMs;
      change.costDeltaUsd = costOf(b) - costOf(a);
      ++(change.outputChanged || change.errorChanged ? diff.changed : diff.same);
    } else {
      ++diff.removed;
    }
    diff.spans.push_back(std::move(change));
  }
  for (std::size_t i = 0; i < after.nodes.size(); ++i) {
    if (matched[i]) continue;
    SpanChange change;
    change.path = afterPaths[i];
    change.after = i;
    ++diff.added;
    diff.spans.push_back(std::move(change));
  }
  TraceSummary a = summarize(before), b = summarize(after);
  diff.latencyDeltaMs = b.totalMs - a.totalMs;
  diff.costDeltaUsd = b.costUsd - a.costUsd;
  return diff;
}

std::string diffHtml(const Trace& before, const Trace& after, const TraceDiff& diff, std::string_view title) {
  using detail::escapeHtml;
  auto signedMs = [](double ms) { return (ms >= 0 ? "+" : "\u2212") + detail::formatMs(std::abs(ms)); };
  auto side = [&](const Trace& trace, std::optional<std::size_t> index) {
    if (!index) return std::string("<div class=\"col none\">\u2014</div>");
    const TraceNode& n = trace.nodes[*index];
    std::string out = "<div class=\"col\">";
    out += "<div class=\"lbl\">Output</div><pre>" + escapeHtml(valueOr(n.output(), "null")) + "</pre>";
    if (n.error()) out += "<div class=\"lbl\">Error</div><pre class=\"err\">" + escapeHtml(*n.error()) + "</pre>";
    out += "<div class=\"meta\">" + detail::formatMs(n.latencyMs);
    if (double cost = costOf(n); cost > 0) out += fmt::format(" \u00b7 ${:.6f}", cost);
    out += "</div></div>";
    return out;
  };
  std::string rows;
  for (const SpanChange& c : diff.spans) {
    std::string status = !c.after ? "removed" : !c.before ? "added" : (c.outputChanged || c.errorChanged) ? "changed" : "same";
    std::string what;
    if (c.outputChanged) what += " output";
    if (c.errorChanged) what += " error";
    rows += "<div class=\"row " + status + "\"><div class=\"head\"><span class=\"badge " + status + "\">" + status +
            "</span><code>" + escapeHtml(c.path) + "</code>";
    if (!what.empty()) rows += "<span class=\"what\">" + what + "</span>";
    if (c.before && c.after) {
      rows += "<span class=\"delta\">" + signedMs(c.latencyDeltaMs);
      if (c.costDeltaUsd != 0) rows += fmt::format(" \u00b7 {}${:.6f}", c.costDeltaUsd >= 0 ? "+" : "\u2212", std::abs(c.costDeltaUsd));
      rows += "</span>";
    }
    rows += "</div><div class=\"cols\">" + side(before, c.before) + side(after, c.after) + "</div></div>\n";
  }
  std::string summary = fmt::format(
      "<span id=\"count-changed\">{} changed</span> \u00b7 <span id=\"count-removed\">{} removed</span> \u00b7 "
      "<span id=\"count-added\">{} added</span> \u00b7 <span id=\"count-same\">{} same</span> \u00b7 total {} \u00b7 cost "
      "{}${:.6f}",
      diff.changed, diff.removed, diff.added, diff.same, signedMs(diff.latencyDeltaMs), diff.costDeltaUsd >= 0 ? "+" : "\u2212",
      std::abs(diff.costDeltaUsd));
  std::string t = escapeHtml(title);
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"generator\" content=\"nndna xray\">\n<title>" + t + "</title>\n<style>";
  html += detail::diffPageCss();
  html += "</style>\n</head>\n<body>\n<h1>" + t + "</h1>\n<div class=\"sides\"><span>before: " +
          escapeHtml(before.title.empty() ? "first trace" : before.title) + "</span><span>after: " +
          escapeHtml(after.title.empty() ? "second trace" : after.title) + "</span></div>\n<div id=\"summary\">" + summary +
          "</div>\n<div id=\"filters\"><label><input type=\"checkbox\" data-status=\"changed\" checked> changed</label>"
          "<label><input type=\"checkbox\" data-status=\"removed\" checked> removed</label>"
          "<label><input type=\"checkbox\" data-status=\"added\" checked> added</label>"
          "<label><input type=\"checkbox\" data-status=\"same\"> same</label></div>\n<div id=\"rows\">\n";
  html += rows;
  html += "</div>\n<script>";
  html += detail::diffPageJs();
  html += "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace nndna::xray
