// The evaluation loop: which ops the targets need, leaf lookup and checks, dispatch to the op
// families, and training-step write-back.
#include <fmt/ranges.h>

#include "eval/kernel.hpp"
#include "trace/tracer.hpp"

namespace nndna::eval {

using ir::OpKind;

namespace {

using Kernel = Value (*)(const OpContext&);

// How the evaluator computes one kind: a kernel, or — exactly for the op table's views — a
// strided read of the input (evalView). Leaves have neither: their values are given.
struct KernelEntry {
  Kernel compute = nullptr;
  ViewStrides view = nullptr;
};

// The reference evaluation of each kind. No default: a kind added to the op table is a compile
// error here until it gets its evaluation.
KernelEntry kernelFor(OpKind kind) {
  using namespace math;
  switch (kind) {
    case OpKind::param_input: case OpKind::tensor_input: case OpKind::state_input: return {};
    case OpKind::zeros: return {evalZeros};
    case OpKind::ones: return {evalOnes};
    case OpKind::arange: return {evalArange};
    case OpKind::randn: return {evalRandn};
    case OpKind::sqrt: return {unaryKernel<math::sqrt>};
    case OpKind::rsqrt: return {unaryKernel<rsqrt>};
    case OpKind::log: return {unaryKernel<math::log>};
    case OpKind::exp: return {unaryKernel<math::exp>};
    case OpKind::neg: return {unaryKernel<neg, negInt>};
    case OpKind::abs: return {unaryKernel<math::abs, absInt>};
    case OpKind::square: return {unaryKernel<square, squareInt>};
    case OpKind::sin: return {unaryKernel<math::sin>};
    case OpKind::cos: return {unaryKernel<math::cos>};
    case OpKind::erf: return {unaryKernel<math::erf>};
    case OpKind::relu: return {unaryKernel<relu>};
    case OpKind::tanh: return {unaryKernel<math::tanh>};
    case OpKind::sigmoid: return {unaryKernel<math::sigmoid>};
    case OpKind::gelu: return {unaryKernel<gelu>};
    case OpKind::silu: return {unaryKernel<silu>};
    case OpKind::leaky_relu: return {unaryKernel<leakyRelu>};
    case OpKind::softplus: return {unaryKernel<softplus>};
    case OpKind::clamp: return {unaryKernel<clamp, clampInt>};
    case OpKind::pow: return {unaryKernel<pow>};
    case OpKind::add: return {binaryKernel<add, addInt>};
    case OpKind::sub: return {binaryKernel<sub, subInt>};
    case OpKind::mul: return {binaryKernel<mul, mulInt>};
    case OpKind::div: return {binaryKernel<math::div, divInt>};
    case OpKind::min: return {binaryKernel<math::min, minInt>};
    case OpKind::max: return {binaryKernel<math::max, maxInt>};
    case OpKind::less: return {binaryKernel<less>};
    case OpKind::greater: return {binaryKernel<greater>};
    case OpKind::where: return {evalWhere};
    case OpKind::mean: case OpKind::sum: return {evalReduce};
    case OpKind::argmax: case OpKind::argmin: return {evalArgReduce};
    case OpKind::cumsum: return {evalCumsum};
    case OpKind::topk: return {evalTopk};
    case OpKind::reshape: return {nullptr, aliasStrides};
    case OpKind::permute: return {nullptr, permuteStrides};
    case OpKind::matmul: return {evalMatmul};
    case OpKind::one_hot: return {evalOneHot};
    case OpKind::embedding: return {evalEmbedding};
    case OpKind::take_along_axis: return {evalTakeAlongAxis};
    case OpKind::narrow: return {evalNarrow};
    case OpKind::pad: return {evalPad};
    case OpKind::concat: return {evalConcat};
    case OpKind::stack: return {evalStack};
    case OpKind::softmax: case OpKind::log_softmax: return {evalSoftmax};
    case OpKind::softmax_causal: return {evalSoftmaxCausal};
    case OpKind::where_causal: return {evalWhereCausal};
    case OpKind::categorical: return {evalCategorical};
    case OpKind::split_heads: return {nullptr, splitHeadsStrides};
    case OpKind::merge_heads: return {evalMergeHeads};
    case OpKind::rope: return {evalRope};
    case OpKind::conv2d: return {evalConv2d};
    case OpKind::conv_transpose2d: return {evalConv2dInputGrad};  // the same sum, docs/ir.md
    case OpKind::max_pool2d: return {evalMaxPool2d};
    case OpKind::avg_pool2d: return {evalAvgPool2d};
    case OpKind::nearest_upsample2d: return {evalNearestUpsample2d};
    case OpKind::bilinear_upsample2d: return {evalBilinearUpsample2d};
    case OpKind::pixel_shuffle: return {evalPixelShuffle};
    case OpKind::pixel_unshuffle: return {evalPixelUnshuffle};
    case OpKind::dropout: return {evalDropout};
    case OpKind::stop_gradient: case OpKind::capture: return {nullptr, aliasStrides};
    case OpKind::cross_entropy: case OpKind::nll_loss: return {evalLoss};
    case OpKind::layer_norm: return {evalLayerNorm};
    case OpKind::rms_norm: return {evalRmsNorm};
    case OpKind::batch_norm2d: case OpKind::batch_norm2d_inference: return {evalBatchNorm2d};
    case OpKind::group_norm: return {evalGroupNorm};
    // Backward kinds.
    case OpKind::broadcast_to: return {nullptr, broadcastToStrides};
    case OpKind::sum_to_shape: return {evalSumToShape};
    case OpKind::relu_grad: return {activationGradKernel<reluDerivative>};
    case OpKind::gelu_grad: return {activationGradKernel<geluDerivative>};
    case OpKind::silu_grad: return {activationGradKernel<siluDerivative>};
    case OpKind::leaky_relu_grad: return {activationGradKernel<leakyReluDerivative>};
    case OpKind::softplus_grad: return {activationGradKernel<softplusDerivative>};
    case OpKind::clamp_grad: return {activationGradKernel<clampDerivative>};
    case OpKind::abs_grad: return {activationGradKernel<absDerivative>};
    case OpKind::tanh_grad: return {activationGradKernel<tanhDerivative>};
    case OpKind::sigmoid_grad: return {activationGradKernel<sigmoidDerivative>};
    case OpKind::softmax_grad: case OpKind::log_softmax_grad: return {evalSoftmaxGrad};
    case OpKind::cross_entropy_grad: case OpKind::nll_loss_grad: return {evalLossGrad};
    case OpKind::embedding_grad: return {evalEmbeddingGrad};
    case OpKind::take_along_axis_grad: return {evalTakeAlongAxisGrad};
    case OpKind::narrow_grad: return {evalNarrowGrad};
    case OpKind::cumsum_grad: return {evalCumsumGrad};
    case OpKind::rope_grad: return {evalRopeGrad};
    case OpKind::conv2d_input_grad: return {evalConv2dInputGrad};
    case OpKind::conv2d_weight_grad: return {evalConv2dWeightGrad};
    case OpKind::max_pool2d_grad: return {evalMaxPool2dGrad};
    case OpKind::avg_pool2d_grad: return {evalAvgPool2dGrad};
    case OpKind::nearest_upsample2d_grad: return {evalNearestUpsample2dGrad};
    case OpKind::bilinear_upsample2d_grad: return {evalBilinearUpsample2dGrad};
    case OpKind::layer_norm_input_grad: case OpKind::layer_norm_weight_grad:
    case OpKind::rms_norm_input_grad: case OpKind::rms_norm_weight_grad:
      return {evalRowNormGrad};
    case OpKind::batch_norm2d_input_grad: case OpKind::batch_norm2d_weight_grad:
      return {evalBatchNormGrad};
    case OpKind::group_norm_input_grad: case OpKind::group_norm_weight_grad: return {evalGroupNormGrad};
    // Optimizer and state updates.
    case OpKind::batch_norm2d_running_mean: case OpKind::batch_norm2d_running_var:
      return {evalBatchNormRunning};
    case OpKind::adam_moment1: return {momentKernel<adamMoment1>};
    case OpKind::adam_moment2: return {momentKernel<adamMoment2>};
    case OpKind::sgd_momentum: return {momentKernel<sgdMomentum>};
    case OpKind::adam_update: return {evalAdamUpdate};
    case OpKind::sgd_update: return {evalSgdUpdate};
  }
  return {};
}

std::string_view leafWhat(OpKind kind) {
  if (kind == OpKind::param_input) return "parameter";
  return kind == OpKind::state_input ? "state tensor" : "input";
}

// The map a leaf kind reads (Leaves or const Leaves): params, state, or (tensor_input) inputs.
template <class L>
auto& leafMap(L& leaves, OpKind kind) {
  if (kind == OpKind::param_input) return leaves.params;
  return kind == OpKind::state_input ? leaves.state : leaves.inputs;
}

const Value& leafValue(const ir::Op& op, const ir::TensorInfo& info, const Leaves& leaves) {
  const auto& map = leafMap(leaves, op.kind);
  const std::string_view what = leafWhat(op.kind);
  const auto it = map.find(op.attrs->name);
  if (it == map.end()) {
    std::vector<std::string_view> given;
    for (const auto& [name, value] : map) given.push_back(name);
    throw EvalError(fmt::format("eval: no value for {} '{}' ({} {}); given: {}", what,
                                op.attrs->name, ir::formatShape(info.shape),
                                ir::dtypeName(info.dtype),
                                given.empty() ? std::string("none") : fmt::format("{}", fmt::join(given, ", "))));
  }
  const Value& v = it->second;
  if (v.shape != info.shape || v.dtype != info.dtype ||
      static_cast<std::int64_t>(v.data.size()) != ir::numel(info.shape)) {
    throw EvalError(fmt::format("eval: {} '{}' expects {} {}, was given {} ({} values)", what,
                                op.attrs->name, ir::formatShape(info.shape),
                                ir::dtypeName(info.dtype), describe(v), v.data.size()));
  }
  return v;
}

// Which ops the targets need: a reverse sweep over the (topologically ordered) op list.
std::vector<bool> neededOps(const ir::Graph& graph, std::span<const ir::TensorId> targets) {
  std::vector<bool> needed(graph.ops.size(), false);
  for (const ir::TensorId t : targets) {
    if (t < 0 || static_cast<std::size_t>(t) >= graph.tensors.size()) {
      throw EvalError(fmt::format("eval: target tensor {} is not in the graph ({} tensors)", t,
                                  graph.tensors.size()));
    }
    needed.at(static_cast<std::size_t>(graph.tensor(t).source)) = true;
  }
  for (std::size_t i = graph.ops.size(); i-- > 0;) {
    if (!needed[i]) continue;
    for (const ir::TensorId in : graph.ops[i].inputs) {
      const auto src = static_cast<std::size_t>(graph.tensor(in).source);
      if (src >= i) {
        throw EvalError(fmt::format("eval: op {} ({}) reads tensor {}, which op {} makes later: "
                                    "the op list is not in dependency order",
                                    i, ir::opKindName(graph.ops[i].kind), in, src));
      }
      needed[src] = true;
    }
  }
  return needed;
}

}  // namespace

bool isEvaluable(OpKind kind) {
  const KernelEntry entry = kernelFor(kind);
  return ir::isLeafKind(kind) || entry.compute != nullptr || entry.view != nullptr;
}

bool isEvaluatedAsView(OpKind kind) { return kernelFor(kind).view != nullptr; }

bool Results::has(ir::TensorId id) const {
  return id >= 0 && static_cast<std::size_t>(id) < values_.size() &&
         values_[static_cast<std::size_t>(id)].has_value();
}

const Value& Results::at(ir::TensorId id) const {
  if (!has(id)) throw EvalError(fmt::format("eval: tensor {} was not computed", id));
  return *values_[static_cast<std::size_t>(id)];
}

Results evaluate(const ir::Graph& graph, const Leaves& leaves,
                 std::span<const ir::TensorId> targets, EvalOptions options) {
  const std::vector<bool> needed = neededOps(graph, targets);
  std::vector<std::optional<Value>> values(graph.tensors.size());
  std::vector<const Value*> inputs;
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    if (!needed[i]) continue;
    const ir::Op& op = graph.ops[i];
    const ir::TensorInfo& info = graph.tensor(op.out);
    if (ir::isLeafKind(op.kind)) {
      values[static_cast<std::size_t>(op.out)] = leafValue(op, info, leaves);
      continue;
    }
    inputs.clear();
    for (const ir::TensorId in : op.inputs) inputs.push_back(&*values[static_cast<std::size_t>(in)]);
    const OpContext ctx{graph, op, inputs, info, options.seed};
    const KernelEntry entry = kernelFor(op.kind);
    Value out;
    if (ir::isViewKind(op.kind) && entry.view != nullptr) {
      out = evalView(ctx, entry.view);
    } else if (!ir::isViewKind(op.kind) && entry.compute != nullptr) {
      out = entry.compute(ctx);
    } else {
      ctx.fail("this op kind has no reference evaluation");
    }
    if (out.shape != info.shape || out.dtype != info.dtype ||
        static_cast<std::int64_t>(out.data.size()) != ir::numel(info.shape)) {
      ctx.fail("computed {} ({} values) where the IR says {} {}", describe(out), out.data.size(),
               ir::formatShape(info.shape), ir::dtypeName(info.dtype));
    }
    values[static_cast<std::size_t>(op.out)] = std::move(out);
  }
  return Results(std::move(values));
}

Results evaluate(const ir::Graph& graph, const Leaves& leaves, EvalOptions options) {
  std::vector<ir::TensorId> targets = graph.outputs;
  for (const ir::Update& u : graph.updates) targets.push_back(u.value);
  for (const ir::NamedTensor& c : graph.captures) targets.push_back(c.tensor);
  return evaluate(graph, leaves, targets, options);
}

void applyUpdates(const ir::Graph& graph, const Results& results, Leaves& leaves) {
  // Read every new value before writing any, so an update may read another's target.
  std::vector<std::pair<const ir::Op*, const Value*>> writes;
  for (const ir::Update& u : graph.updates) {
    const ir::Op& target = graph.producer(u.target);
    if (target.kind != OpKind::param_input && target.kind != OpKind::state_input) {
      throw EvalError(fmt::format("eval: update target tensor {} is a {}, not a parameter or state",
                                  u.target, ir::opKindName(target.kind)));
    }
    const Value& value = results.at(u.value);
    const ir::TensorInfo& info = graph.tensor(u.target);
    if (value.shape != info.shape || value.dtype != info.dtype) {
      throw EvalError(fmt::format("eval: the update of '{}' {} {} computed {}", target.attrs->name,
                                  ir::formatShape(info.shape), ir::dtypeName(info.dtype),
                                  describe(value)));
    }
    writes.emplace_back(&target, &value);
  }
  for (const auto& [target, value] : writes) leafMap(leaves, target->kind)[target->attrs->name] = *value;
}

}  // namespace nndna::eval
