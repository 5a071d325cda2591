// The header metrics, with the seed's definitions (docs/diagram.md), and per-op FLOPs for the
// per-node costs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nndna/diagram.hpp"
#include "nndna/ir.hpp"

namespace nndna::diagram::detail {

// FLOPs of one op: 2·M·K·N for a matmul, 2·outN·(inC/groups)·kH·kW for a conv (and its two
// backward kinds); every other op is a few operations per element, rounding error next to these
// (the seed's rule), and counts 0.
std::int64_t opFlops(const ir::Graph& graph, const ir::Op& op);
// Whether `kind` has a FLOP rule (tests enumerate the table with it).
bool countsFlops(ir::OpKind kind);

// Scalars held by `tensors` (a graph's params or its state).
std::int64_t countElements(const ir::Graph& graph, const std::vector<ir::Param>& tensors);
// Trainable scalars (the optimizer's moments are not model parameters).
std::int64_t countParams(const ir::Graph& graph);
std::int64_t countFlops(const ir::Graph& graph, const std::vector<char>& opMask);
// Elements of forward intermediates an op holds: its output's, 0 for leaves (data already in
// memory) and views (ir::isViewKind: they hold none of their own). The one activation definition.
std::int64_t activationElements(const ir::Graph& graph, const ir::Op& op);
// Activation elements of the masked ops, and their bytes at 4 per element.
std::int64_t countActivationElements(const ir::Graph& graph, const std::vector<char>& forwardMask);
std::int64_t countActivationBytes(const ir::Graph& graph, const std::vector<char>& forwardMask);

std::string formatCount(std::int64_t n);  // 24864 -> "24.9K"
std::string formatFlops(std::int64_t n);  // "2.2M"
std::string formatBytes(std::int64_t n);  // "1.5 MiB" (binary units: 1 MiB = 1024² bytes)
std::string formatGrouped(std::int64_t n);  // 13476831232 -> "13,476,831,232"

// The four header metrics of one side. `trainStep` is the whole training step (forward, backward,
// optimizer) of the training side (required when !inference).
std::vector<Metric> sideMetrics(const ir::Graph& trainGraph, const ir::Graph* trainStep,
                                const ir::Graph& graph, bool inference);

}  // namespace nndna::diagram::detail
