// summarize(), and the summary as text and JSON (include/nndna/summary.hpp).
#include "nndna/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "diagram/metrics.hpp"
#include "diagram/summary_parts.hpp"
#include "diagram/text.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/training.hpp"
#include "optim/checked_graph.hpp"

namespace nndna::diagram {

std::string_view memoryDtypeName(MemoryDtype dtype) {
  switch (dtype) {
    case MemoryDtype::f32: return "f32";
    case MemoryDtype::bf16: return "bf16";
    case MemoryDtype::f16: return "f16";
  }
  return "f32";
}

int bytesPerElement(MemoryDtype dtype) { return dtype == MemoryDtype::f32 ? 4 : 2; }

Summary summarize(const ir::TracedModel& model, const MemoryOptions& memory) {
  ir::validateGraph(model.train, "train");
  if (model.hasInfer) ir::validateGraph(model.infer, "infer");
  return detail::summarizeWithStep(
      model, training::detail::buildTrainingStepOfCheckedGraph(model.train, model.spec.optimizer), memory);
}

Summary detail::summarizeWithStep(const ir::TracedModel& model, const ir::Graph& step, const MemoryOptions& memory) {
  Summary s;
  s.label = model.spec.label;
  s.params = detail::countParams(model.train);
  s.stepFlops = detail::countFlops(step, std::vector<char>(step.ops.size(), 1));
  s.train = detail::sideSummary(model.train, model.train, Side::train);
  if (model.hasInfer) s.infer = detail::sideSummary(model.infer, model.train, Side::infer);
  s.memory = detail::memoryEstimate(model, step, memory);
  return s;
}

namespace {

std::string shapeText(const std::optional<Shape>& shape) { return shape ? ir::formatShape(*shape) : "—"; }

std::string padRight(const std::string& s, std::size_t w) {
  return s + std::string(w - std::min(w, detail::characterCount(s)), ' ');
}
std::string padLeft(const std::string& s, std::size_t w) {
  return std::string(w - std::min(w, detail::characterCount(s)), ' ') + s;
}

void appendMemory(std::string& out, std::string_view title, const std::vector<MemoryItem>& items, std::int64_t total) {
  out += fmt::format("{}\n", title);
  for (const MemoryItem& i : items) {
    out += fmt::format("  {:<16}{:>12}  {}\n", i.key, detail::formatBytes(i.bytes), i.derivation);
  }
  out += fmt::format("  {:<16}{:>12}  {} bytes\n", "total", detail::formatBytes(total), detail::formatGrouped(total));
}

nlohmann::ordered_json rowJson(const SummaryRow& r) {
  nlohmann::ordered_json j;
  j["path"] = r.path;
  j["name"] = r.name;
  j["depth"] = r.depth;
  j["output"] = r.output ? nlohmann::ordered_json(*r.output) : nlohmann::ordered_json(nullptr);
  j["params"] = r.params;
  j["flops"] = r.flops;
  j["activation_bytes"] = r.activationBytes;
  j["ops"] = r.ops;
  return j;
}

nlohmann::ordered_json itemsJson(const std::vector<MemoryItem>& items) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const MemoryItem& i : items) out.push_back({{"key", i.key}, {"bytes", i.bytes}, {"derivation", i.derivation}});
  return out;
}

}  // namespace

std::string formatSummary(const Summary& s, Side side, int maxDepth) {
  const SideSummary* table = side == Side::train ? &s.train : (s.infer ? &*s.infer : nullptr);
  if (table == nullptr) throw std::invalid_argument("the spec has no predict function: there is no inference side");
  struct Line {
    std::string module, output, params, flops, activations;
  };
  std::vector<Line> lines{{"Module", "Output shape", "Params", "FLOPs/forward", "Activations"}};
  for (const SummaryRow& r : table->rows) {
    if (r.depth > maxDepth) continue;
    const std::string name = r.depth == 0 ? "(model)" : std::string(2 * static_cast<std::size_t>(r.depth - 1), ' ') + r.name;
    lines.push_back({name, shapeText(r.output), detail::formatGrouped(r.params), detail::formatFlops(r.flops),
                     detail::formatBytes(r.activationBytes)});
  }
  std::array<std::size_t, 5> widths{};
  for (const Line& l : lines) {
    widths[0] = std::max(widths[0], detail::characterCount(l.module));
    widths[1] = std::max(widths[1], detail::characterCount(l.output));
    widths[2] = std::max(widths[2], detail::characterCount(l.params));
    widths[3] = std::max(widths[3], detail::characterCount(l.flops));
    widths[4] = std::max(widths[4], detail::characterCount(l.activations));
  }
  std::string out = fmt::format("{} — {}\n", s.label,
                                side == Side::train ? "training graph (forward of the loss)" : "inference graph");
  std::size_t total = 8;
  for (std::size_t x : widths) total += x;
  const std::string rule(total, '-');
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    out += padRight(l.module, widths[0]) + "  " + padRight(l.output, widths[1]) + "  " + padLeft(l.params, widths[2]) +
           "  " + padLeft(l.flops, widths[3]) + "  " + padLeft(l.activations, widths[4]) + "\n";
    if (i == 0) out += rule + "\n";
  }
  out += rule + "\n";
  const SummaryRow& model = table->rows.at(0);
  out += fmt::format("parameters: {} · FLOPs/forward: {} · FLOPs/step: {} · activations: {}\n",
                     detail::formatGrouped(s.params), detail::formatGrouped(model.flops),
                     detail::formatGrouped(s.stepFlops), detail::formatBytes(model.activationBytes));

  const MemoryEstimate& m = s.memory;
  out += fmt::format("\nMemory ({}{})\n", memoryDtypeName(m.dtype),
                     m.mixedPrecision ? ", mixed precision: f32 master weights and optimizer state" : "");
  appendMemory(out, "training step", m.training, m.trainingTotal);
  appendMemory(out, "inference", m.inference, m.inferenceTotal);
  return out;
}

std::string toJson(const Summary& s, int indent) {
  nlohmann::ordered_json j;
  j["format"] = "nndna-summary";
  j["version"] = 1;
  j["label"] = s.label;
  j["params"] = s.params;
  j["step_flops"] = s.stepFlops;
  for (const SideSummary* side : {&s.train, s.infer ? &*s.infer : nullptr}) {
    if (side == nullptr) continue;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const SummaryRow& r : side->rows) rows.push_back(rowJson(r));
    j[std::string(sideName(side->side))] = {{"rows", std::move(rows)}};
  }
  const MemoryEstimate& m = s.memory;
  nlohmann::ordered_json memory;
  memory["dtype"] = memoryDtypeName(m.dtype);
  memory["mixed_precision"] = m.mixedPrecision;
  memory["training"] = {{"items", itemsJson(m.training)}, {"total", m.trainingTotal}};
  memory["inference"] = {{"items", itemsJson(m.inference)}, {"total", m.inferenceTotal}};
  if (m.kvCache) {
    memory["kv_cache"] = {{"attentions", m.kvCache->attentions},
                          {"bytes_per_token", m.kvCache->bytesPerToken},
                          {"context", m.kvCache->context},
                          {"bytes", m.kvCache->bytes}};
  } else {
    memory["kv_cache"] = nullptr;
  }
  j["memory"] = std::move(memory);
  return j.dump(indent);
}

}  // namespace nndna::diagram
