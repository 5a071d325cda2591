// Training graphs: reverse-mode autodiff, optimizer lowering, dead-code elimination, kernels.
//
// All of them read or extend one ir::Graph. The kinds they add and the rules they follow are
// documented in docs/ir.md ("Backward and optimizer kinds", "Kernels").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "nndna/error.hpp"
#include "nndna/export.hpp"
#include "nndna/ir.hpp"
#include "nndna/nndna.hpp"

NNDNA_API_BEGIN  // the whole header is libnndna's interface (export.hpp)

namespace nndna::training {

// Names of the per-step scalar inputs of a training step (rank-0 f32 tensor_input leaves).
inline constexpr const char* kLearningRate = "optim.lr";
inline constexpr const char* kBiasCorrection1 = "optim.bias_correction1";  // 1 - beta1^(t+1)
inline constexpr const char* kBiasCorrection2 = "optim.bias_correction2";  // 1 - beta2^(t+1)

// The first thing wrong with an optimizer's settings, or "" when they are valid: betas in
// [0, 1), eps > 0, momentum >= 0, Nesterov only with momentum, finite rates, schedules with
// positive step counts. The tracer reports it at the spec's NNDNA_SPEC line; the IR reader
// rejects it; buildTrainingStep throws it.
std::string optimizerProblem(const Optimizer& optimizer);

// Appends the backward pass of the rank-0 loss graph.outputs[0] (ops tagged ir::Phase::backward)
// and returns the gradient tensor of each `wrt` tensor, in order (ir::kNone when the loss does
// not depend on it). Checks the graph first (ir::validateGraph: IrFormatError). Throws
// nndna::Error when the graph has no rank-0 f32 output, and TraceError (at the spec line) when
// an op on the path has no adjoint rule.
std::vector<ir::TensorId> appendBackward(ir::Graph& graph, std::span<const ir::TensorId> wrt);

// The whole training step of a traced loss graph: forward + backward w.r.t. every parameter +
// optimizer update (Phase::optimizer; Adam/AdamW m and v, SGD momentum buffers as state_input
// leaves in graph.state) + BatchNorm2d running-statistics updates, all write-backs listed in
// graph.updates, then dead-code elimination. Per-step scalars are the rank-0 f32 inputs named
// above; stepScalars gives their values. Throws nndna::Error for an invalid optimizer or graph.
ir::Graph buildTrainingStep(const ir::Graph& forward, const Optimizer& optimizer);

// The per-step scalar inputs of a training step at a 0-based step, by name (host side).
std::vector<std::pair<std::string, double>> stepScalars(const Optimizer& optimizer,
                                                        std::int64_t step);

// Removes every op that no output, update value or capture needs (the leaves listed in params,
// state and inputs stay), keeps the order, renumbers ops and tensors densely and remaps every id.
void eliminateDeadCode(ir::Graph& graph);

// The ops that dispatch a GPU kernel, in op order (the rule is in docs/ir.md "Kernels").
std::vector<ir::OpId> kernelOps(const ir::Graph& graph);
// Whether one op of this kind dispatches a kernel.
bool isKernelKind(ir::OpKind kind);

}  // namespace nndna::training
NNDNA_API_END
