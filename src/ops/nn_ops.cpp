// Fused ML ops: softmax family, categorical, rope, dropout, gradient control, losses.
#include <cmath>

#include "ops/op_builder.hpp"
#include "trace/tensor_access.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

namespace {
Tensor withAxis(OpKind kind, std::string_view api, Tensor x, std::int64_t axis) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& in = op.input(x);
  op.attrs().axis = op.axis(axis, in.shape.size());
  return op.finish();
}

Tensor loss(OpKind kind, std::string_view api, Tensor scores, Tensor targets, LossOptions options) {
  OpBuilder op(kind, api);
  op.input(scores);
  op.input(targets);
  op.attrs().reduction = options.reduction;
  return op.finish();
}
}  // namespace

Tensor softmax(Tensor x, std::int64_t axis) { return withAxis(OpKind::softmax, "softmax", x, axis); }
Tensor logSoftmax(Tensor x, std::int64_t axis) {
  return withAxis(OpKind::log_softmax, "logSoftmax", x, axis);
}
Tensor categorical(Tensor logits, std::int64_t axis) {
  return withAxis(OpKind::categorical, "categorical", logits, axis);
}

Tensor softmaxCausal(Tensor x) {
  OpBuilder op(OpKind::softmax_causal, "softmaxCausal");
  op.input(x);
  return op.finish();
}

Tensor whereCausal(Tensor x, double fill) {
  OpBuilder op(OpKind::where_causal, "whereCausal");
  op.input(x);
  op.attrs().scalar = fill;
  return op.finish();
}

std::pair<Tensor, Tensor> rope(Tensor q, Tensor k, RopeOptions options) {
  // One op per rotated tensor; errors say which one ("rope(q): ...").
  auto rotate = [&](Tensor x, std::string_view api) {
    OpBuilder op(OpKind::rope, api);
    op.input(x);
    op.attrs().scalar = options.base;
    return op.finish();
  };
  Tensor rq = rotate(q, "rope(q)");
  Tensor rk = rotate(k, "rope(k)");
  return {rq, rk};
}

Tensor dropout(Tensor x, double p) {
  OpBuilder op(OpKind::dropout, "dropout");
  op.input(x);
  op.attrs().scalar = p;
  return op.finish();
}

Tensor stopGradient(Tensor x) {
  OpBuilder op(OpKind::stop_gradient, "stopGradient");
  op.input(x);
  return op.finish();
}

Tensor capture(std::string_view name, Tensor x) {
  OpBuilder op(OpKind::capture, "capture");
  op.input(x);
  // Names are unique per graph (the rule sees one op; the graph's list is checked here and by
  // the JSON reader).
  for (const ir::NamedTensor& c : op.graph().captures) {
    if (c.name == name) op.fail("'{}' is captured twice", name);
  }
  op.attrs().name = std::string(name);
  ir::Graph& graph = op.graph();
  Tensor out = op.finish();
  graph.captures.push_back({std::string(name), static_cast<ir::TensorId>(detail::TensorAccess::id(out))});
  return out;
}

Tensor crossEntropy(Tensor logits, Tensor targets, LossOptions options) {
  return loss(OpKind::cross_entropy, "crossEntropy", logits, targets, options);
}

Tensor nllLoss(Tensor logProbs, Tensor targets, LossOptions options) {
  return loss(OpKind::nll_loss, "nllLoss", logProbs, targets, options);
}

namespace {
// The element-wise losses take a prediction and a target of one shape (PyTorch broadcasts with a
// warning, which hides a forgotten reshape) and f32 targets.
void requirePair(std::string_view api, std::string_view what, Tensor prediction, Tensor target) {
  OpBuilder check(OpKind::sub, api);
  const ir::TensorInfo& p = check.input(prediction);
  const ir::TensorInfo& t = check.input(target);
  if (p.shape != t.shape) {
    check.fail("the {} {} and the target {} must have one shape", what, ir::formatShape(p.shape),
               ir::formatShape(t.shape));
  }
  if (p.dtype != DType::f32 || t.dtype != DType::f32) {
    check.fail("the {} and the target must be f32, got {} and {}", what, ir::dtypeName(p.dtype),
               ir::dtypeName(t.dtype));
  }
}

// A number parameter of `api` (`delta`, `p`...): finite and above 0, or (the second) at least 0.
void requirePositive(std::string_view api, std::string_view what, double value) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    OpBuilder(OpKind::mul, api).fail("{} must be a positive number, got {}", what, value);
  }
}
void requireAtLeastZero(std::string_view api, std::string_view what, double value) {
  if (!(value >= 0.0) || !std::isfinite(value)) OpBuilder(OpKind::mul, api).fail("{} must be at least 0, got {}", what, value);
}

// 0.5·d² where |d| <= delta, delta·(|d| - delta/2) beyond. With q = min(|d|, delta), both are
// 0.5·q² + delta·(|d| - q): one expression (no select), its gradient continuous at |d| = delta.
Tensor huberPerElement(Tensor d, double delta) {
  const Tensor a = abs(d);
  const Tensor q = min(a, delta);
  return add(mul(square(q), 0.5), mul(sub(a, q), delta));
}

Tensor reduced(Tensor perElement, Reduction reduction) {
  switch (reduction) {
    case Reduction::mean: return mean(perElement);
    case Reduction::sum: return sum(perElement);
    case Reduction::none: return perElement;
  }
  return perElement;
}
}  // namespace

Tensor mseLoss(Tensor prediction, Tensor target, LossOptions options) {
  requirePair("mseLoss", "prediction", prediction, target);
  return reduced(square(sub(prediction, target)), options.reduction);
}

Tensor l1Loss(Tensor prediction, Tensor target, LossOptions options) {
  requirePair("l1Loss", "prediction", prediction, target);
  return reduced(abs(sub(prediction, target)), options.reduction);
}

Tensor huberLoss(Tensor prediction, Tensor target, HuberLossOptions options) {
  requirePair("huberLoss", "prediction", prediction, target);
  requirePositive("huberLoss", "delta", options.delta);
  return reduced(huberPerElement(sub(prediction, target), options.delta), options.reduction);
}

// PyTorch's smooth_l1_loss: the Huber loss of delta = beta divided by beta; beta = 0 is the L1 loss.
Tensor smoothL1Loss(Tensor prediction, Tensor target, SmoothL1LossOptions options) {
  requirePair("smoothL1Loss", "prediction", prediction, target);
  requireAtLeastZero("smoothL1Loss", "beta", options.beta);
  const Tensor d = sub(prediction, target);
  const Tensor perElement = options.beta == 0.0 ? abs(d) : mul(huberPerElement(d, options.beta), 1.0 / options.beta);
  return reduced(perElement, options.reduction);
}

// max(x, 0) - x·y + log(1 + e^-|x|): PyTorch's form, which neither overflows for large |x| nor
// loses the small terms.
Tensor binaryCrossEntropyWithLogits(Tensor logits, Tensor targets, LossOptions options) {
  requirePair("binaryCrossEntropyWithLogits", "logits", logits, targets);
  const Tensor perElement = add(sub(max(logits, 0.0), mul(logits, targets)), softplus(neg(abs(logits))));
  return reduced(perElement, options.reduction);
}

// x / max(‖x‖_p, eps) along dim: a sum of squares and a square root for p = 2 (PyTorch's default),
// of |x|^p and the 1/p-th power otherwise. The floor is taken under the root, max(Σ|x|^p, eps^p)^(1/p)
// (the same value): a zero vector's root then has a finite gradient, as PyTorch's clamp gives.
Tensor normalize(Tensor x, NormalizeOptions options) {
  requirePositive("normalize", "p", options.p);
  requireAtLeastZero("normalize", "eps", options.eps);
  std::int64_t dim = 0;
  {
    OpBuilder check(OpKind::sum, "normalize");
    const ir::TensorInfo& in = check.input(x);
    dim = check.axis(options.dim, in.shape.size(), "dim");
  }
  const ReduceOptions keep{.keepDims = true};
  const double floor = std::pow(options.eps, options.p);
  const Tensor norm = options.p == 2.0 ? sqrt(max(sum(square(x), dim, keep), floor))
                                        : pow(max(sum(pow(abs(x), options.p), dim, keep), floor), 1.0 / options.p);
  return div(x, norm);
}

}  // namespace nndna
