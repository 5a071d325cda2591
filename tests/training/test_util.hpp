// Helpers shared by the training structure tests.
#pragma once

#include <string_view>

#include "nndna/ir.hpp"
#include "nndna/trace.hpp"

namespace nndna::testing {

// The training-forward graph of a registered spec, and its optimizer.
struct TracedSpec {
  ir::Graph graph;
  Optimizer optimizer;
};
TracedSpec traceSpec(std::string_view name);

// Ops of `kind` (in `phase`, when given).
std::size_t countOps(const ir::Graph& graph, ir::OpKind kind);
std::size_t countOps(const ir::Graph& graph, ir::OpKind kind, ir::Phase phase);
std::size_t countPhase(const ir::Graph& graph, ir::Phase phase);
// The tensor of the leaf named `name` (param, state or input); kNone if none.
ir::TensorId leafNamed(const ir::Graph& graph, std::string_view name);

}  // namespace nndna::testing
