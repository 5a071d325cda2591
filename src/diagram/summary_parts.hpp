// The parts of a model summary (include/nndna/summary.hpp): which module each op belongs to, the
// table of one side, and the memory estimate.
#pragma once

#include <string>
#include <vector>

#include "nndna/summary.hpp"

namespace nndna::diagram::detail {

// "layers.3.attn" for "layers.3.attn.q.weight"; "" (the model) for a parameter of the model's own.
std::string moduleOfParam(std::string_view paramName);

// The module of each op of `forwardMask` (other ops: ""), by the rule of docs/summary.md:
// an op that reads parameters (directly or through views) belongs to their deepest common
// module; any other op to the module of the innermost function call it runs in, that is the
// deepest common module of every parameter the call reads (its sub-calls included), a call that
// reads none deferring to its caller; the spec's entry function is the model ("").
std::vector<std::string> moduleOfOps(const ir::Graph& graph, const std::vector<char>& forwardMask);

// The table of one side. `paramsGraph` lists the model's parameters (the training graph).
SideSummary sideSummary(const ir::Graph& graph, const ir::Graph& paramsGraph, Side side);

// summarize() with the training step of model.train already built.
Summary summarizeWithStep(const ir::TracedModel& model, const ir::Graph& step, const MemoryOptions& memory);

// The memory estimate. `step` is the training step of model.train.
MemoryEstimate memoryEstimate(const ir::TracedModel& model, const ir::Graph& step,
                              const MemoryOptions& options);

// The causal self-attentions of a graph's forward and their KV cache at `context` tokens (the
// traced key length when unset), `bytesPerElement` each; nothing when there is none.
std::optional<KvCache> kvCache(const ir::Graph& graph, std::optional<std::int64_t> context,
                               int bytesPerElement);

}  // namespace nndna::diagram::detail
