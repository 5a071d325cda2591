// A model's summary as plain data: a torchinfo-style table (one row per module: output shape,
// parameters, FLOPs/forward, activations, nested by parameter path) and the "will it fit" memory
// estimate for training and inference. `nndna summary` prints it, the diagram page shows the
// table as a tab, tools read its JSON. The definitions are docs/summary.md's; parameters, FLOPs
// and activations are the diagram's metrics (docs/diagram.md), split by module.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nndna/diagram.hpp"
#include "nndna/ir.hpp"

namespace nndna::diagram {

// One module of the model: a prefix of parameter paths ("layers.3.attn" for
// "layers.3.attn.q.weight"). Every figure covers the module's children too.
struct SummaryRow {
  std::string path;   // "" for the model itself
  std::string name;   // the path's last part ("attn", "3"); "" for the model
  int depth = 0;      // 0 for the model, 1 for its children, ...
  // The shape of the last tensor computed in the module (its last call's output); nothing when
  // no op of the side is attributed to it (its parameters unused on this side). The model's row
  // has the side's output.
  std::optional<Shape> output;
  std::int64_t params = 0;           // trainable scalars under the path
  std::int64_t flops = 0;            // FLOPs of its ops in one forward pass
  std::int64_t activationBytes = 0;  // forward intermediates of its ops, 4 bytes per element
  std::int64_t ops = 0;              // forward ops attributed to it (views included, leaves not)
};

// The table of one side's forward graph. rows[0] is the model (its figures are the side's
// totals); the others follow depth first, children in the order their parameters were
// registered.
struct SideSummary {
  Side side = Side::train;
  std::vector<SummaryRow> rows;
};

enum class MemoryDtype : std::uint8_t { f32, bf16, f16 };
// "f32", "bf16", "f16"; bytes per element 4, 2, 2.
std::string_view memoryDtypeName(MemoryDtype dtype);
int bytesPerElement(MemoryDtype dtype);

struct MemoryOptions {
  MemoryDtype dtype = MemoryDtype::f32;
  // Weights, gradients and activations in `dtype` (bf16 or f16), with an f32 master copy of the
  // weights and f32 optimizer state. Throws std::invalid_argument with dtype f32.
  bool mixedPrecision = false;
  // The KV cache's context length in tokens; nothing: the traced key length.
  std::optional<std::int64_t> context;
};

// One line of the estimate: "parameters", "gradients", "master_weights", "optimizer_state",
// "buffers", "activations", "weights", "kv_cache".
struct MemoryItem {
  std::string key;
  std::int64_t bytes = 0;
  std::string derivation;  // how the figure was reached: "124,439,808 × 4 bytes (f32)"
};

// The KV cache of a decoder: every causal self-attention keeps its keys and values for each token
// of the context, for the traced batch.
struct KvCache {
  std::int64_t attentions = 0;     // causal self-attentions found (one per layer)
  std::int64_t bytesPerToken = 0;  // keys + values of every attention, traced batch, one token
  std::int64_t context = 0;        // tokens
  std::int64_t bytes = 0;
};

struct MemoryEstimate {
  MemoryDtype dtype = MemoryDtype::f32;
  bool mixedPrecision = false;
  std::vector<MemoryItem> training;   // parameters, gradients, [master_weights], optimizer_state, [buffers], activations
  std::int64_t trainingTotal = 0;
  std::vector<MemoryItem> inference;  // weights, [buffers], activations, [kv_cache]
  std::int64_t inferenceTotal = 0;
  std::optional<KvCache> kvCache;     // when the inference graph has causal self-attention
};

struct Summary {
  std::string label;
  std::int64_t params = 0;     // trainable scalars (the diagram's "params" metric)
  std::int64_t stepFlops = 0;  // FLOPs of a whole training step (the diagram's FLOPs/step)
  SideSummary train;
  std::optional<SideSummary> infer;  // when the spec has a predict function
  MemoryEstimate memory;
};

// The summary of a traced model. Builds the training step (optimizer state, FLOPs/step): throws
// nndna::Error when it cannot be built, std::invalid_argument for invalid options (mixed
// precision in f32, a context below 1), and nndna::Error on 64-bit overflow.
Summary summarize(const ir::TracedModel& model, const MemoryOptions& memory = {});

// The table of one side as text, rows deeper than `maxDepth` left out (their figures stay in
// their ancestors'), then the totals and the memory estimate.
std::string formatSummary(const Summary& summary, Side side, int maxDepth);

// {"format": "nndna-summary", "version": 1, label, params, step_flops, train, infer, memory}:
// docs/summary.md lists the fields.
std::string toJson(const Summary& summary, int indent = 2);

}  // namespace nndna::diagram
