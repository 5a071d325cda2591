#include "diagram/metrics.hpp"

#include <fmt/format.h>

#include <array>
#include <span>
#include <stdexcept>

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

namespace {

using FlopRule = std::int64_t (*)(const ir::Graph& g, const ir::Op& op);

// 2·(kernel window per output element)·(elements): conv2d and its two backward kinds share it.
std::int64_t convFlops(const Shape& weight, std::int64_t elements) {
  return checkedMul(2, checkedMul(elements, checkedMul(weight.at(1), checkedMul(weight.at(2), weight.at(3)))));
}

std::int64_t matmulFlops(const ir::Graph& g, const ir::Op& op) {
  const Shape& a = g.tensor(op.inputs.at(0)).shape;
  return checkedMul(2, checkedMul(numelOf(g, op.out), a.back()));
}
std::int64_t conv2dFlops(const ir::Graph& g, const ir::Op& op) {  // weight [outC, inC/groups, kH, kW]
  return convFlops(g.tensor(op.inputs.at(1)).shape, numelOf(g, op.out));
}
std::int64_t conv2dInputGradFlops(const ir::Graph& g, const ir::Op& op) {  // inputs: dy, weight
  return convFlops(g.tensor(op.inputs.at(1)).shape, numelOf(g, op.inputs.at(0)));
}
std::int64_t conv2dWeightGradFlops(const ir::Graph& g, const ir::Op& op) {  // x, dy; out: weight
  return convFlops(g.tensor(op.out).shape, numelOf(g, op.inputs.at(1)));
}

// The FLOP rule of each kind. Following the seed, FLOPs count matrix multiplies and convolutions
// (forward and backward; matmul's backward is matmuls and views): every other kind is a few
// operations per element, rounding error next to these, and has none. No default: a new kind is
// a compile error here until it says which it is.
FlopRule flopRuleFor(ir::OpKind kind) {
  using K = ir::OpKind;
  switch (kind) {
    case K::matmul: return matmulFlops;
    case K::conv2d: return conv2dFlops;
    // A transposed convolution is conv2d_input_grad's sum (x in dy's place): the same MACs as
    // the convolution it transposes.
    case K::conv2d_input_grad: case K::conv_transpose2d: return conv2dInputGradFlops;
    case K::conv2d_weight_grad: return conv2dWeightGradFlops;
    case K::param_input: case K::tensor_input: case K::state_input: case K::zeros: case K::ones:
    case K::arange: case K::randn: case K::sqrt: case K::rsqrt: case K::log: case K::exp:
    case K::neg: case K::abs: case K::square: case K::sin: case K::cos: case K::erf: case K::relu:
    case K::tanh: case K::sigmoid: case K::gelu: case K::silu: case K::leaky_relu:
    case K::softplus: case K::clamp: case K::pow: case K::add: case K::sub: case K::mul: case K::div:
    case K::min: case K::max: case K::less: case K::greater: case K::where: case K::mean:
    case K::sum: case K::argmax: case K::argmin: case K::cumsum: case K::topk: case K::reshape:
    case K::permute: case K::pad:
    case K::one_hot: case K::embedding: case K::take_along_axis: case K::narrow: case K::concat:
    case K::stack: case K::softmax: case K::log_softmax: case K::softmax_causal:
    case K::where_causal: case K::categorical: case K::split_heads: case K::merge_heads:
    case K::rope: case K::max_pool2d: case K::avg_pool2d: case K::nearest_upsample2d:
    case K::bilinear_upsample2d: case K::pixel_shuffle: case K::pixel_unshuffle: case K::dropout:
    case K::stop_gradient: case K::capture: case K::cross_entropy: case K::nll_loss:
    case K::layer_norm: case K::rms_norm: case K::batch_norm2d: case K::batch_norm2d_inference:
    case K::group_norm:
    case K::broadcast_to: case K::sum_to_shape: case K::relu_grad: case K::gelu_grad:
    case K::silu_grad: case K::leaky_relu_grad: case K::softplus_grad: case K::clamp_grad:
    case K::abs_grad: case K::tanh_grad: case K::sigmoid_grad: case K::softmax_grad:
    case K::log_softmax_grad: case K::cross_entropy_grad: case K::nll_loss_grad:
    case K::embedding_grad: case K::take_along_axis_grad: case K::narrow_grad: case K::cumsum_grad:
    case K::rope_grad:
    case K::max_pool2d_grad: case K::avg_pool2d_grad: case K::nearest_upsample2d_grad:
    case K::bilinear_upsample2d_grad: case K::layer_norm_input_grad:
    case K::layer_norm_weight_grad: case K::rms_norm_input_grad: case K::rms_norm_weight_grad:
    case K::batch_norm2d_input_grad: case K::batch_norm2d_weight_grad:
    case K::group_norm_input_grad: case K::group_norm_weight_grad:
    case K::batch_norm2d_running_mean: case K::batch_norm2d_running_var: case K::adam_moment1:
    case K::adam_moment2: case K::adam_update: case K::sgd_momentum: case K::sgd_update:
      return nullptr;
  }
  return nullptr;
}

}  // namespace

bool countsFlops(ir::OpKind kind) { return flopRuleFor(kind) != nullptr; }

std::int64_t opFlops(const ir::Graph& g, const ir::Op& op) {
  const FlopRule rule = flopRuleFor(op.kind);
  return rule == nullptr ? 0 : rule(g, op);
}

std::int64_t countElements(const ir::Graph& g, const std::vector<ir::Param>& tensors) {
  std::int64_t total = 0;
  for (const ir::Param& p : tensors) total = checkedAdd(total, numelOf(g, p.tensor));
  return total;
}

std::int64_t countParams(const ir::Graph& g) { return countElements(g, g.params); }

std::int64_t countFlops(const ir::Graph& g, const std::vector<char>& mask) {
  std::int64_t total = 0;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    if (mask[i]) total = checkedAdd(total, opFlops(g, g.ops[i]));
  }
  return total;
}

std::int64_t activationElements(const ir::Graph& g, const ir::Op& op) {
  // Leaves are data already in memory; views (the op table's definition) hold none of their own.
  if (ir::isLeafKind(op.kind) || ir::isViewKind(op.kind)) return 0;
  return numelOf(g, op.out);
}

std::int64_t countActivationElements(const ir::Graph& g, const std::vector<char>& forwardMask) {
  std::int64_t total = 0;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    if (forwardMask[i]) total = checkedAdd(total, activationElements(g, g.ops[i]));
  }
  return total;
}

std::int64_t countActivationBytes(const ir::Graph& g, const std::vector<char>& forwardMask) {
  return checkedMul(4, countActivationElements(g, forwardMask));
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

std::string formatGrouped(std::int64_t n) {
  const std::string digits = std::to_string(n);
  const std::size_t first = n < 0 ? 1 : 0;  // after a minus sign
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > first && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::vector<Metric> sideMetrics(const ir::Graph& trainGraph, const ir::Graph* trainStep,
                                const ir::Graph& graph, bool inference) {
  // Forward intermediates: the forward ops the outputs need (the seed's fwdOps). A traced graph
  // also holds ops whose result the spec never used; they are not part of the model's cost.
  const std::vector<char> forward = forwardReachable(graph);
  const std::int64_t params = countParams(trainGraph);
  const std::int64_t activations = countActivationBytes(graph, forward);
  std::int64_t flops = 0;
  std::int64_t kernels = 0;
  std::string flopsTip, kernelsTip;
  if (inference) {
    flops = countFlops(graph, forward);
    for (ir::OpId o : training::kernelOps(graph)) kernels += forward[static_cast<std::size_t>(o)] ? 1 : 0;
    flopsTip = "Arithmetic operations per forward pass (matrix multiplies and convolutions).";
    kernelsTip = "GPU kernels one forward pass dispatches (views and inputs launch none).";
  } else {
    if (trainStep == nullptr) throw std::invalid_argument("sideMetrics: the training side needs its step");
    flops = countFlops(*trainStep, std::vector<char>(trainStep->ops.size(), 1));
    kernels = static_cast<std::int64_t>(training::kernelOps(*trainStep).size());
    flopsTip = "Arithmetic operations per training step, forward and backward (matrix multiplies "
               "and convolutions).";
    kernelsTip = "GPU kernels one training step dispatches: forward, backward and optimizer.";
  }
  return {
      {"params", params, formatCount(params) + " parameters",
       "The model's trainable weights: what the optimizer updates each step."},
      {"activations", activations, formatBytes(activations) + " activations",
       "Memory for the intermediate tensors of one forward pass (4 bytes per element; inputs, "
       "parameters and views — reshape, permute, splitHeads, stopGradient, capture — excluded), in "
       "binary units: 1 KiB = 1024 bytes, 1 MiB = 1024² bytes, 1 GiB = 1024³ bytes."},
      {"flops", flops, formatFlops(flops) + (inference ? " FLOPs/forward" : " FLOPs/step"), flopsTip},
      {"kernels", kernels, fmt::format("{} kernels", kernels), kernelsTip},
  };
}

}  // namespace nndna::diagram::detail
