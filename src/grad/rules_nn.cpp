// Adjoints of the fused ML kinds: softmax family, losses, rope, convolution and pooling,
// dropout, normalisation layers. Each maps to the backward kernel a real framework runs.
#include "grad/rules.hpp"

namespace nndna::grad {

using ir::OpKind;
using ir::TensorId;

namespace {

ir::OpAttrs withAxis(std::int64_t axis) {
  ir::OpAttrs attrs;
  attrs.axis = axis;
  return attrs;
}

ir::OpAttrs withEps(double eps) {
  ir::OpAttrs attrs;
  attrs.scalar = eps;
  return attrs;
}

ir::OpAttrs convAttrs(const ir::OpAttrs& forward, Shape dims) {
  ir::OpAttrs attrs;
  attrs.kernel = forward.kernel;
  attrs.stride = forward.stride;
  attrs.padding = forward.padding;
  attrs.groups = forward.groups;
  attrs.dims = std::move(dims);
  return attrs;
}

// LayerNorm / RMSNorm / BatchNorm2d: the input's and the weight's gradient kinds; the bias's is
// a sum of dy down to `biasShape` (then reshaped to the bias's own shape).
void normGrads(Emitter& e, const AdjointCall& call, OpKind inputKind, OpKind weightKind,
               const Shape& biasShape) {
  const ir::Op& op = call.op;
  const TensorId dy = call.dy;
  const TensorId x = op.inputs[0];
  const TensorId w = op.inputs[1];
  if (call.need(0)) {
    Shape shape = e.shape(x);
    call.grads[0] = e.internal(inputKind, {dy, x, w}, withEps(op.attrs.scalar), std::move(shape));
  }
  if (call.need(1)) {
    Shape shape = e.shape(w);
    call.grads[1] = e.internal(weightKind, {dy, x}, withEps(op.attrs.scalar), std::move(shape));
  }
  if (op.inputs.size() > 2 && call.need(2)) {
    Shape shape = e.shape(op.inputs[2]);
    call.grads[2] = e.reshape(e.sumToShape(dy, biasShape), std::move(shape));
  }
}

}  // namespace

bool nnAdjoint(Emitter& e, const AdjointCall& call) {
  const ir::Op& op = call.op;
  const TensorId dy = call.dy;
  const Shape dyShape = e.shape(dy);
  switch (op.kind) {
    case OpKind::softmax:
      call.grads[0] = e.internal(OpKind::softmax_grad, {dy, op.out}, withAxis(op.attrs.axis), dyShape);
      return true;
    case OpKind::softmax_causal:
      call.grads[0] = e.internal(OpKind::softmax_grad, {dy, op.out},
                                 withAxis(static_cast<std::int64_t>(dyShape.size()) - 1), dyShape);
      return true;
    case OpKind::log_softmax:
      call.grads[0] =
          e.internal(OpKind::log_softmax_grad, {dy, op.out}, withAxis(op.attrs.axis), dyShape);
      return true;
    case OpKind::where_causal: {
      ir::OpAttrs attrs;
      attrs.scalar = 0.0;
      call.grads[0] = e.emit(OpKind::where_causal, {dy}, std::move(attrs), dyShape);
      return true;
    }
    case OpKind::cross_entropy: {
      if (!call.need(0)) return true;
      Shape logits = e.shape(op.inputs[0]);
      ir::OpAttrs attrs;
      attrs.reduction = op.attrs.reduction;
      call.grads[0] = e.internal(OpKind::cross_entropy_grad, {dy, op.inputs[0], op.inputs[1]},
                                 std::move(attrs), std::move(logits));
      return true;
    }
    case OpKind::nll_loss: {
      if (!call.need(0)) return true;
      Shape logProbs = e.shape(op.inputs[0]);
      ir::OpAttrs attrs;
      attrs.reduction = op.attrs.reduction;
      attrs.dims = logProbs;
      call.grads[0] =
          e.internal(OpKind::nll_loss_grad, {dy, op.inputs[1]}, std::move(attrs), std::move(logProbs));
      return true;
    }
    case OpKind::rope: {
      ir::OpAttrs attrs;
      attrs.scalar = op.attrs.scalar;
      call.grads[0] = e.internal(OpKind::rope_grad, {dy}, std::move(attrs), dyShape);
      return true;
    }
    case OpKind::dropout: {
      // The same p and seed: the backward applies the forward's mask and scale.
      ir::OpAttrs attrs;
      attrs.scalar = op.attrs.scalar;
      attrs.seed = op.attrs.seed;
      call.grads[0] = e.emit(OpKind::dropout, {dy}, std::move(attrs), dyShape);
      return true;
    }
    case OpKind::conv2d: {
      const TensorId x = op.inputs[0];
      const TensorId w = op.inputs[1];
      if (call.need(0)) {
        Shape shape = e.shape(x);
        call.grads[0] = e.internal(OpKind::conv2d_input_grad, {dy, w}, convAttrs(op.attrs, shape),
                                   shape);
      }
      if (call.need(1)) {
        Shape shape = e.shape(w);
        call.grads[1] = e.internal(OpKind::conv2d_weight_grad, {x, dy}, convAttrs(op.attrs, shape),
                                   shape);
      }
      return true;
    }
    case OpKind::max_pool2d: {
      const TensorId x = op.inputs[0];
      Shape shape = e.shape(x);
      ir::OpAttrs attrs;
      attrs.kernel = op.attrs.kernel;
      attrs.stride = op.attrs.stride;
      attrs.padding = op.attrs.padding;
      call.grads[0] = e.internal(OpKind::max_pool2d_grad, {dy, x}, std::move(attrs), std::move(shape));
      return true;
    }
    case OpKind::nearest_upsample2d: {
      Shape shape = e.shape(op.inputs[0]);
      ir::OpAttrs attrs;
      attrs.count = op.attrs.count;
      call.grads[0] =
          e.internal(OpKind::nearest_upsample2d_grad, {dy}, std::move(attrs), std::move(shape));
      return true;
    }
    case OpKind::layer_norm:
      normGrads(e, call, OpKind::layer_norm_input_grad, OpKind::layer_norm_weight_grad,
                {dyShape.back()});
      return true;
    case OpKind::rms_norm:
      normGrads(e, call, OpKind::rms_norm_input_grad, OpKind::rms_norm_weight_grad, {});
      return true;
    case OpKind::batch_norm2d:
      normGrads(e, call, OpKind::batch_norm2d_input_grad, OpKind::batch_norm2d_weight_grad,
                {dyShape[1], 1, 1});
      return true;
    default:
      return false;
  }
}

}  // namespace nndna::grad
