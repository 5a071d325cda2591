// appendBackward and buildTrainingStep for a graph already checked with ir::validateGraph.
//
// The public functions check the graph they are given (it may come from anywhere). A caller that
// holds a graph just checked, and unchanged since (what the IR reader returns: it checks every
// graph it reads; what buildDiagram has checked on entry), calls these to get the same results
// without checking it again: about 0.3 ms for GPT-2 small's graph each time, which a command
// paid three times for its training graph.
#pragma once

#include <span>
#include <vector>

#include "nndna/export.hpp"
#include "nndna/training.hpp"

namespace nndna::training::detail {

// appendBackward without ir::validateGraph first.
std::vector<ir::TensorId> appendBackwardToCheckedGraph(ir::Graph& graph, std::span<const ir::TensorId> wrt);

// buildTrainingStep of a checked graph. Exported for nndna_diagram (NNDNA_API).
NNDNA_API ir::Graph buildTrainingStepOfCheckedGraph(const ir::Graph& forward, const Optimizer& optimizer);

}  // namespace nndna::training::detail
