// Fused ML ops: softmax family, categorical, rope, dropout, gradient control, losses.
#include <cmath>

#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

namespace {
Tensor softmaxLike(OpKind kind, std::string_view api, Tensor x, std::int64_t axis) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& in = op.input(x);
  op.requireFloat(in);
  op.attrs().axis = op.axis(axis, in.shape.size());
  return op.finish(in.shape, in.dtype);
}

// softmaxCausal / whereCausal work on square [.., T, T] score matrices.
const ir::TensorInfo& causalInput(OpBuilder& op, Tensor x) {
  const ir::TensorInfo& in = op.input(x);
  op.requireFloat(in);
  const std::size_t r = in.shape.size();
  if (r < 2 || in.shape[r - 1] != in.shape[r - 2]) {
    op.fail("input must end in a square [T, T] score matrix, got {}", ir::formatShape(in.shape));
  }
  return in;
}

Tensor loss(OpKind kind, std::string_view api, Tensor scores, Tensor targets, LossOptions options,
            std::string_view scoresName) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& s = op.input(scores);
  const ir::TensorInfo& t = op.input(targets);
  op.requireFloat(s, scoresName);
  op.requireDtype(t, DType::i32, "targets");
  if (s.shape.empty() || t.shape.size() + 1 != s.shape.size() ||
      !std::equal(t.shape.begin(), t.shape.end(), s.shape.begin())) {
    op.fail("{} [..., C] and targets [...] must agree on the leading axes: {} vs {}", scoresName,
            ir::formatShape(s.shape), ir::formatShape(t.shape));
  }
  op.attrs().reduction = options.reduction;
  Shape shape = options.reduction == Reduction::none ? t.shape : Shape{};
  return op.finish(std::move(shape), DType::f32);
}
}  // namespace

Tensor softmax(Tensor x, std::int64_t axis) { return softmaxLike(OpKind::softmax, "softmax", x, axis); }
Tensor logSoftmax(Tensor x, std::int64_t axis) {
  return softmaxLike(OpKind::log_softmax, "logSoftmax", x, axis);
}

Tensor softmaxCausal(Tensor x) {
  OpBuilder op(OpKind::softmax_causal, "softmaxCausal");
  const ir::TensorInfo& in = causalInput(op, x);
  return op.finish(in.shape, in.dtype);
}

Tensor whereCausal(Tensor x, double fill) {
  OpBuilder op(OpKind::where_causal, "whereCausal");
  const ir::TensorInfo& in = causalInput(op, x);
  if (std::isnan(fill)) op.fail("fill must not be NaN");
  op.attrs().scalar = fill;
  return op.finish(in.shape, in.dtype);
}

Tensor categorical(Tensor logits, std::int64_t axis) {
  OpBuilder op(OpKind::categorical, "categorical");
  const ir::TensorInfo& in = op.input(logits);
  op.requireFloat(in, "logits");
  const std::int64_t a = op.axis(axis, in.shape.size());
  op.attrs().axis = a;
  Shape shape = in.shape;
  shape.erase(shape.begin() + a);
  return op.finish(std::move(shape), DType::i32);
}

std::pair<Tensor, Tensor> rope(Tensor q, Tensor k, RopeOptions options) {
  auto rotate = [&](Tensor x, std::string_view which) {
    OpBuilder op(OpKind::rope, "rope");
    const ir::TensorInfo& in = op.input(x);
    op.requireFloat(in, which);
    const std::size_t r = in.shape.size();
    if (r < 2 || in.shape[r - 1] % 2 != 0) {
      op.fail("{} must be [..., T, Dh] with an even Dh, got {}", which, ir::formatShape(in.shape));
    }
    if (!(options.base > 0)) op.fail("base must be positive, got {}", options.base);
    op.attrs().scalar = options.base;
    return op.finish(in.shape, in.dtype);
  };
  Tensor rq = rotate(q, "q");
  Tensor rk = rotate(k, "k");
  return {rq, rk};
}

Tensor dropout(Tensor x, double p) {
  OpBuilder op(OpKind::dropout, "dropout");
  const ir::TensorInfo& in = op.input(x);
  op.requireFloat(in);
  if (!(p >= 0.0 && p < 1.0)) op.fail("p must be in [0, 1), got {}", p);
  op.attrs().scalar = p;
  return op.finish(in.shape, in.dtype);
}

Tensor stopGradient(Tensor x) {
  OpBuilder op(OpKind::stop_gradient, "stopGradient");
  const ir::TensorInfo& in = op.input(x);
  return op.finish(in.shape, in.dtype);
}

Tensor capture(std::string_view name, Tensor x) {
  OpBuilder op(OpKind::capture, "capture");
  const ir::TensorInfo& in = op.input(x);
  if (name.empty()) op.fail("the capture needs a name");
  for (const ir::NamedTensor& c : op.graph().captures) {
    if (c.name == name) op.fail("'{}' is captured twice", name);
  }
  op.attrs().name = std::string(name);
  Shape shape = in.shape;
  const DType dtype = in.dtype;
  Tensor out = op.finish(std::move(shape), dtype);
  op.graph().captures.push_back({std::string(name), static_cast<ir::TensorId>(out.handle())});
  return out;
}

Tensor crossEntropy(Tensor logits, Tensor targets, LossOptions options) {
  return loss(OpKind::cross_entropy, "crossEntropy", logits, targets, options, "logits");
}

Tensor nllLoss(Tensor logProbs, Tensor targets, LossOptions options) {
  return loss(OpKind::nll_loss, "nllLoss", logProbs, targets, options, "logProbs");
}

}  // namespace nndna
