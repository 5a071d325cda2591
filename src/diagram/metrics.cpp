#include "diagram/metrics.hpp"

#include <fmt/format.h>

#include <array>
#include <span>

#include "diagram/group_tree.hpp"
#include "diagram/text.hpp"
#include "nndna/training.hpp"

namespace nndna::diagram::detail {
namespace {

std::int64_t numelOf(const ir::Graph& g, ir::TensorId t) { return ir::numel(g.tensor(t).shape); }

// Magnitude-scaled: one decimal for K/M, two beyond (the seed's formatter).
std::string formatScaled(std::int64_t n, std::span<const std::string_view> units, double base,
                         std::string_view sep) {
  double scaled = static_cast<double>(n);
  std::size_t mag = 0;
  while (scaled >= base && mag + 1 < units.size()) {
    scaled /= base;
    ++mag;
  }
  if (mag == 0) return fmt::format("{}{}{}", n, sep, units[0]);
  return fmt::format("{:.{}f}{}{}", scaled, mag >= 3 ? 2 : 1, sep, units[mag]);
}

}  // namespace

std::int64_t opFlops(const ir::Graph& g, const ir::Op& op) {
  if (op.kind == ir::OpKind::matmul) {
    const auto& a = g.tensor(op.inputs.at(0)).shape;
    const std::int64_t k = a.empty() ? 1 : a.back();
    return checkedMul(2, checkedMul(numelOf(g, op.out), k));
  }
  if (op.kind == ir::OpKind::conv2d) {
    const auto& w = g.tensor(op.inputs.at(1)).shape;  // [outC, inC/groups, kH, kW]
    return checkedMul(2, checkedMul(numelOf(g, op.out), checkedMul(w.at(1), checkedMul(w.at(2), w.at(3)))));
  }
  // Backward of a conv (docs/ir.md); matmul's backward is matmuls and views, counted above.
  if (op.kind == ir::OpKind::conv2d_input_grad) {
    const auto& w = g.tensor(op.inputs.at(1)).shape;  // inputs: dy, weight
    return checkedMul(2, checkedMul(numelOf(g, op.inputs.at(0)), checkedMul(w.at(1), checkedMul(w.at(2), w.at(3)))));
  }
  if (op.kind == ir::OpKind::conv2d_weight_grad) {
    const auto& w = g.tensor(op.out).shape;  // inputs: x, dy; out: the weight's shape
    return checkedMul(2, checkedMul(numelOf(g, op.inputs.at(1)), checkedMul(w.at(1), checkedMul(w.at(2), w.at(3)))));
  }
  return 0;
}

std::int64_t countParams(const ir::Graph& g) {
  std::int64_t total = 0;
  for (const ir::Param& p : g.params) total = checkedAdd(total, numelOf(g, p.tensor));
  return total;
}

std::int64_t countFlops(const ir::Graph& g, const std::vector<char>& mask) {
  std::int64_t total = 0;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    if (mask[i]) total = checkedAdd(total, opFlops(g, g.ops[i]));
  }
  return total;
}

std::int64_t countActivationBytes(const ir::Graph& g, const std::vector<char>& forwardMask) {
  std::int64_t total = 0;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const ir::Op& op = g.ops[i];
    if (!forwardMask[i] || ir::isLeafKind(op.kind) || ir::isViewKind(op.kind)) continue;
    total = checkedAdd(total, checkedMul(4, numelOf(g, op.out)));
  }
  return total;
}

std::string formatCount(std::int64_t n) {
  static constexpr std::array<std::string_view, 5> kUnits{"", "K", "M", "B", "T"};
  return formatScaled(n, kUnits, 1000, "");
}
std::string formatFlops(std::int64_t n) {
  static constexpr std::array<std::string_view, 7> kUnits{"", "K", "M", "G", "T", "P", "E"};
  return formatScaled(n, kUnits, 1000, "");
}
std::string formatBytes(std::int64_t n) {
  // Binary units, named as such: memory is sized in powers of two (a "1.88 GB" that is 2,017,067,012
  // bytes / 1024³ would be neither GB nor GiB).
  static constexpr std::array<std::string_view, 6> kUnits{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  return formatScaled(n, kUnits, 1024, " ");
}

std::vector<Metric> sideMetrics(const ir::Graph& trainGraph, const ir::Graph* trainStep,
                                const ir::Graph& graph, bool inference) {
  // Forward intermediates: the forward ops the outputs need (the seed's fwdOps). A traced graph
  // also holds ops whose result the spec never used; they are not part of the model's cost.
  const std::vector<char> forward = forwardReachable(graph);
  auto liveKernels = [&] {
    std::int64_t n = 0;
    for (ir::OpId o : training::kernelOps(graph)) n += forward[static_cast<std::size_t>(o)] ? 1 : 0;
    return n;
  };
  const std::int64_t params = countParams(trainGraph);
  const std::int64_t activations = countActivationBytes(graph, forward);
  std::int64_t flops = 0;
  std::int64_t kernels = 0;
  std::string flopsTip, kernelsTip;
  if (inference) {
    flops = countFlops(graph, forward);
    kernels = liveKernels();
    flopsTip = "Arithmetic operations per forward pass (matrix multiplies and convolutions).";
    kernelsTip = "GPU kernels one forward pass dispatches (views and inputs launch none).";
  } else if (trainStep) {
    flops = countFlops(*trainStep, std::vector<char>(trainStep->ops.size(), 1));
    kernels = static_cast<std::int64_t>(training::kernelOps(*trainStep).size());
    flopsTip = "Arithmetic operations per training step, forward and backward (matrix multiplies "
               "and convolutions).";
    kernelsTip = "GPU kernels one training step dispatches: forward, backward and optimizer.";
  } else {
    flops = countFlops(graph, forward);
    kernels = liveKernels();
    flopsTip = "Arithmetic operations of the loss's forward pass only: the training step could "
               "not be built for this model.";
    kernelsTip = "GPU kernels of the loss's forward pass only (the training step could not be built).";
  }
  return {
      {"params", params, formatCount(params) + " parameters",
       "The model's trainable weights: what the optimizer updates each step."},
      {"activations", activations, formatBytes(activations) + " activations",
       "Memory for the intermediate tensors of one forward pass (4 bytes per element; inputs, "
       "parameters and reshape/permute views excluded), in binary units: 1 KiB = 1024 bytes, "
       "1 MiB = 1024² bytes, 1 GiB = 1024³ bytes."},
      {"flops", flops, formatFlops(flops) + (inference ? " FLOPs/forward" : " FLOPs/step"), flopsTip},
      {"kernels", kernels, fmt::format("{} kernels", kernels), kernelsTip},
  };
}

}  // namespace nndna::diagram::detail
