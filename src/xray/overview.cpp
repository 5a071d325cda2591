// What a trace says at a glance (the viewer's Overview tab): the critical path, the slowest
// spans, calls repeated with the same inputs, errors, and LLM use per model.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "xray/recorder.hpp"
#include "xray/token_count.hpp"

namespace nndna::xray {

namespace {
constexpr std::size_t kSlowest = 10;
double endOf(const TraceNode& n) { return n.startMs + n.latencyMs; }
}  // namespace

TraceOverview overview(const Trace& trace) {
  TraceOverview out;
  const auto& nodes = trace.nodes;

  // Critical path: from the root that ends last, each step to the child that ended last (the one
  // its parent waited for).
  if (!trace.roots.empty()) {
    std::size_t at = *std::max_element(trace.roots.begin(), trace.roots.end(),
                                       [&](std::size_t a, std::size_t b) { return endOf(nodes[a]) < endOf(nodes[b]); });
    out.criticalPath.push_back(at);
    while (!nodes[at].children.empty()) {
      const auto& children = nodes[at].children;
      at = *std::max_element(children.begin(), children.end(),
                             [&](std::size_t a, std::size_t b) { return endOf(nodes[a]) < endOf(nodes[b]); });
      out.criticalPath.push_back(at);
    }
  }

  std::vector<std::size_t> order(nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::size_t slowest = std::min(kSlowest, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(slowest), order.end(),
                    [&](std::size_t a, std::size_t b) { return nodes[a].latencyMs > nodes[b].latencyMs; });
  out.slowest.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(slowest));

  // Repeated calls: the same name and the same inputs (calls without inputs are folded in the
  // graph already: only calls that pass something are compared).
  std::unordered_map<std::string, std::size_t> byCall;
  std::map<std::string, ModelUsage> models;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    if (n.error()) out.errors.push_back(i);
    if (!n.inputs().empty()) {
      std::string key = n.name;
      for (const auto& [name, text] : n.inputs()) {
        key += '\0';
        key += name;
        key += '\0';
        key += text;
      }
      auto [it, inserted] = byCall.try_emplace(std::move(key), out.repeated.size());
      if (inserted) out.repeated.push_back({n.name, {}, 0});
      out.repeated[it->second].nodes.push_back(i);
      out.repeated[it->second].totalMs += n.latencyMs;
    }
    const auto& meta = n.meta();
    auto model = meta.find("model");
    if (model == meta.end() || !model->is_string()) continue;
    ModelUsage& usage = models[model->get<std::string>()];
    usage.model = model->get<std::string>();
    ++usage.calls;
    auto count = [&](const char* key) -> std::int64_t {
      auto it = meta.find(key);
      return it != meta.end() ? tokenCount(*it) : 0;
    };
    usage.promptTokens = addTokens(usage.promptTokens, count("prompt_tokens"));
    usage.completionTokens = addTokens(usage.completionTokens, count("completion_tokens"));
    if (auto cost = meta.find("estimated_cost_usd"); cost != meta.end() && cost->is_number()) usage.costUsd += cost->get<double>();
  }
  std::erase_if(out.repeated, [](const RepeatedCall& r) { return r.nodes.size() < 2; });
  std::stable_sort(out.repeated.begin(), out.repeated.end(),
                   [](const RepeatedCall& a, const RepeatedCall& b) { return a.totalMs > b.totalMs; });
  for (auto& [name, usage] : models) out.models.push_back(std::move(usage));
  std::stable_sort(out.models.begin(), out.models.end(), [](const ModelUsage& a, const ModelUsage& b) {
    return a.costUsd != b.costUsd ? a.costUsd > b.costUsd : a.calls > b.calls;
  });
  return out;
}

}  // namespace nndna::xray
