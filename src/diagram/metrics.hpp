// The header metrics, with the seed's definitions (docs/diagram.md), and per-op FLOPs for the
// per-node costs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nndna/diagram.hpp"
#include "nndna/ir.hpp"

namespace nndna::diagram::detail {

// FLOPs of one op: 2·M·K·N for a matmul, 2·outN·(inC/groups)·kH·kW for a conv; every other op is
// a few operations per element, rounding error next to these (the seed's rule).
std::int64_t opFlops(const ir::Graph& graph, const ir::Op& op);

// Trainable scalars (the optimizer's moments are not model parameters).
std::int64_t countParams(const ir::Graph& graph);
std::int64_t countFlops(const ir::Graph& graph, const std::vector<char>& opMask);
// Bytes of forward intermediates: 4 per element, leaves and reshape/permute views excluded.
std::int64_t countActivationBytes(const ir::Graph& graph, const std::vector<char>& forwardMask);

std::string formatCount(std::int64_t n);  // 24864 -> "24.9K"
std::string formatFlops(std::int64_t n);  // "2.2M"
std::string formatBytes(std::int64_t n);  // "1.5 MiB" (binary units: 1 MiB = 1024² bytes)

// The four header metrics of one side. `trainStep` is the whole training step (forward, backward,
// optimizer) of the training side, or null when it could not be built (then forward only).
std::vector<Metric> sideMetrics(const ir::Graph& trainGraph, const ir::Graph* trainStep,
                                const ir::Graph& graph, bool inference);

}  // namespace nndna::diagram::detail
