// Assembling flat spans into a Trace (pre-order, indices for parents and children) and the
// summary totals. Iterative throughout: span nesting can be arbitrarily deep.
#include <algorithm>
#include <limits>
#include <unordered_map>

#include "xray/recorder.hpp"

namespace nndna::xray {
namespace detail {

Trace assembleTrace(std::vector<FlatSpan> spans) {
  std::unordered_map<std::string, std::size_t> byId;
  byId.reserve(spans.size() * 2);
  for (std::size_t i = 0; i < spans.size(); ++i) byId.emplace(spans[i].node.id, i);

  // A parent that never reached the record (e.g. still open on another thread when a session
  // ended) becomes a placeholder spanning its known children.
  const std::size_t known = spans.size();
  for (std::size_t i = 0; i < known; ++i) {
    const std::string parentId = spans[i].parentId;
    if (parentId.empty() || byId.contains(parentId)) {
      if (!parentId.empty()) {
        auto& p = spans[byId[parentId]].node;
        if (p.open && p.name == "(unfinished span)") {
          double end = std::max(p.startMs + p.latencyMs, spans[i].node.startMs + spans[i].node.latencyMs);
          p.startMs = std::min(p.startMs, spans[i].node.startMs);
          p.latencyMs = end - p.startMs;
        }
      }
      continue;
    }
    FlatSpan placeholder;
    placeholder.node.id = parentId;
    placeholder.node.name = "(unfinished span)";
    placeholder.node.open = true;
    placeholder.node.thread = spans[i].node.thread;
    placeholder.node.startMs = spans[i].node.startMs;
    placeholder.node.latencyMs = spans[i].node.latencyMs;
    byId.emplace(parentId, spans.size());
    spans.push_back(std::move(placeholder));
  }

  std::vector<std::vector<std::size_t>> children(spans.size());
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const auto& parentId = spans[i].parentId;
    if (parentId.empty()) roots.push_back(i);
    else children[byId.at(parentId)].push_back(i);
  }
  auto byStart = [&](std::size_t a, std::size_t b) {
    const auto& x = spans[a].node;
    const auto& y = spans[b].node;
    if (x.startMs != y.startMs) return x.startMs < y.startMs;
    if (x.id.size() != y.id.size()) return x.id.size() < y.id.size();
    return x.id < y.id;
  };
  std::sort(roots.begin(), roots.end(), byStart);
  for (auto& list : children) std::sort(list.begin(), list.end(), byStart);

  // Pre-order walk with an explicit stack: new index of every span.
  std::vector<std::size_t> order;
  order.reserve(spans.size());
  std::vector<std::size_t> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    std::size_t i = stack.back();
    stack.pop_back();
    order.push_back(i);
    for (auto it = children[i].rbegin(); it != children[i].rend(); ++it) stack.push_back(*it);
  }
  std::vector<std::size_t> newIndex(spans.size());
  for (std::size_t k = 0; k < order.size(); ++k) newIndex[order[k]] = k;

  Trace trace;
  trace.nodes.reserve(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    std::size_t i = order[k];
    TraceNode node = std::move(spans[i].node);
    if (!spans[i].parentId.empty()) node.parent = newIndex[byId.at(spans[i].parentId)];
    node.children.clear();
    for (std::size_t c : children[i]) node.children.push_back(newIndex[c]);
    trace.nodes.push_back(std::move(node));
  }
  for (std::size_t r : roots) trace.roots.push_back(newIndex[r]);
  return trace;
}

}  // namespace detail

TraceSummary summarize(const Trace& trace) {
  TraceSummary s;
  s.nodes = trace.nodes.size();
  double first = std::numeric_limits<double>::infinity();
  double last = -std::numeric_limits<double>::infinity();
  for (const auto& n : trace.nodes) {
    if (n.error) ++s.errors;
    if (n.open) ++s.open;
    first = std::min(first, n.startMs);
    last = std::max(last, n.startMs + n.latencyMs);
    if (auto it = n.meta.find("total_tokens"); it != n.meta.end() && it->is_number())
      s.totalTokens += it->get<std::int64_t>();
    if (auto it = n.meta.find("estimated_cost_usd"); it != n.meta.end() && it->is_number())
      s.costUsd += it->get<double>();
  }
  s.totalMs = trace.nodes.empty() ? 0.0 : last - first;
  return s;
}

}  // namespace nndna::xray
