// appendBackward: reverse-mode autodiff over a traced graph, from its rank-0 loss.
#include <fmt/format.h>

#include <stdexcept>

#include "grad/rules.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "nndna/training.hpp"
#include "optim/checked_graph.hpp"
#include "trace/tracer.hpp"

namespace nndna::training {

using ir::OpKind;
using ir::TensorId;

namespace {

[[noreturn]] void noAdjoint(const ir::Graph& graph, const ir::Op& op) {
  const tracing::SiteLocation at = tracing::innermostLocation(graph, op.site);
  throw TraceError(at.file, at.line, std::string(ir::opKindName(op.kind)),
                   at.withCallers(fmt::format("has no gradient rule, but the loss needs the gradient of its "
                                              "input(s) (output {})",
                                              ir::formatShape(graph.tensor(op.out).shape))));
}

}  // namespace

std::vector<TensorId> appendBackward(ir::Graph& graph, std::span<const TensorId> wrt) {
  // The graph may come from anywhere (a file, a tool): the rules index by its ids and attributes.
  ir::validateGraph(graph, "graph");
  return detail::appendBackwardToCheckedGraph(graph, wrt);
}

std::vector<TensorId> detail::appendBackwardToCheckedGraph(ir::Graph& graph, std::span<const TensorId> wrt) {
  if (graph.outputs.empty()) throw Error(Error::Kind::invalid_ir, {}, 0, "appendBackward: the graph has no output");
  const TensorId loss = graph.outputs[0];
  const ir::TensorInfo& lossInfo = graph.tensor(loss);
  if (!lossInfo.shape.empty() || lossInfo.dtype != DType::f32) {
    throw Error(Error::Kind::invalid_ir, {}, 0, fmt::format(
        "appendBackward: the loss must be a rank-0 f32 tensor, got {} {}",
        ir::formatShape(lossInfo.shape), ir::dtypeName(lossInfo.dtype)));
  }
  const std::size_t tensorCount = graph.tensors.size();
  const std::size_t forwardOps = graph.ops.size();

  // Forward sweep: which tensors depend on a wrt tensor through differentiable f32 ops.
  std::vector<std::uint8_t> reaches(tensorCount, 0);
  for (TensorId t : wrt) {
    if (t < 0 || static_cast<std::size_t>(t) >= tensorCount) {
      throw Error(Error::Kind::invalid_ir, {}, 0, fmt::format("appendBackward: tensor {} is not in the graph", t));
    }
    if (graph.tensor(t).dtype == DType::f32) reaches[static_cast<std::size_t>(t)] = 1;
  }
  for (const ir::Op& op : graph.ops) {
    if (reaches[static_cast<std::size_t>(op.out)] || ir::blocksGradient(op.kind)) continue;
    if (graph.tensor(op.out).dtype != DType::f32) continue;
    for (TensorId in : op.inputs) {
      if (reaches[static_cast<std::size_t>(in)]) {
        reaches[static_cast<std::size_t>(op.out)] = 1;
        break;
      }
    }
  }

  std::vector<TensorId> grads(tensorCount, ir::kNone);
  if (!reaches[static_cast<std::size_t>(loss)]) return std::vector<TensorId>(wrt.size(), ir::kNone);

  // A backward is typically 2-3 ops per forward op: reserve once instead of growing a large
  // vector of ops (and touching fresh pages) several times.
  graph.ops.reserve(forwardOps * 4 + 16);
  graph.tensors.reserve(tensorCount + forwardOps * 3 + 16);
  grad::Emitter e(graph, ir::Phase::backward);
  e.setSite(graph.producer(loss).site);
  grads[static_cast<std::size_t>(loss)] = e.ones({});

  std::vector<std::uint8_t> needs;
  std::vector<TensorId> inputGrads;
  for (std::size_t i = forwardOps; i-- > 0;) {
    const TensorId out = graph.ops[i].out;
    const TensorId dy = grads[static_cast<std::size_t>(out)];
    if (dy == ir::kNone || ir::blocksGradient(graph.ops[i].kind)) continue;
    const ir::Op op = graph.ops[i];  // a copy: rules append to graph.ops
    needs.assign(op.inputs.size(), 0);
    bool any = false;
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
      needs[k] = reaches[static_cast<std::size_t>(op.inputs[k])];
      any = any || needs[k];
    }
    if (!any) continue;
    inputGrads.assign(op.inputs.size(), ir::kNone);
    e.setSite(op.site);
    const grad::AdjointRule rule = grad::adjointFor(op.kind);
    if (rule == nullptr) noAdjoint(graph, op);
    rule(e, grad::AdjointCall{op, dy, needs, inputGrads});
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
      if (!needs[k] || inputGrads[k] == ir::kNone) continue;
      TensorId& acc = grads[static_cast<std::size_t>(op.inputs[k])];
      acc = acc == ir::kNone ? inputGrads[k] : e.binary(OpKind::add, acc, inputGrads[k]);
    }
  }

  std::vector<TensorId> result;
  result.reserve(wrt.size());
  for (TensorId t : wrt) result.push_back(grads[static_cast<std::size_t>(t)]);
  return result;
}

}  // namespace nndna::training
