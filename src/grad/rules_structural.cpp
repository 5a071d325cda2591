// Adjoints of reductions, layout, matmul, indexing, slicing and joining, and identities.
#include <numeric>

#include "grad/rules.hpp"

namespace nndna::grad {

using ir::OpKind;
using ir::TensorId;

namespace {

// sum / mean: put the reduced axis back (size 1) and broadcast to the input's shape.
TensorId reduceGrad(Emitter& e, const ir::Op& op, TensorId dy) {
  const Shape in = e.shape(op.inputs[0]);
  TensorId g = dy;
  if (op.kind == OpKind::mean) {
    const std::int64_t n = ir::numel(in) / ir::numel(e.shape(op.out));
    g = e.scalar(OpKind::mul, g, 1.0 / static_cast<double>(n));
  }
  if (!op.attrs.allAxes && !op.attrs.keepDims) {
    Shape kept = in;
    kept[static_cast<std::size_t>(op.attrs.axis)] = 1;
    g = e.reshape(g, std::move(kept));
  }
  return e.broadcastTo(g, in);
}

TensorId matmulLeftGrad(Emitter& e, TensorId dy, TensorId b) {
  return e.matmul(dy, e.swapLastTwo(b));
}

TensorId matmulRightGrad(Emitter& e, TensorId a, TensorId b, TensorId dy) {
  const Shape shapeA = e.shape(a);
  const Shape shapeB = e.shape(b);
  if (shapeB.size() == shapeA.size()) return e.matmul(e.swapLastTwo(a), dy);
  // [..., M, K] · [K, N]: fold the batch axes into M.
  const std::int64_t k = shapeA.back();
  const std::int64_t n = shapeB.back();
  const std::int64_t rows = ir::numel(shapeA) / k;
  const TensorId a2 = e.reshape(a, {rows, k});
  const TensorId dy2 = e.reshape(dy, {rows, n});
  return e.matmul(e.permute(a2, {1, 0}), dy2);
}

std::vector<std::int64_t> inverseAxes(const std::vector<std::int64_t>& axes) {
  std::vector<std::int64_t> inverse(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    inverse[static_cast<std::size_t>(axes[i])] = static_cast<std::int64_t>(i);
  }
  return inverse;
}

}  // namespace

bool structuralAdjoint(Emitter& e, const AdjointCall& call) {
  const ir::Op& op = call.op;
  const TensorId dy = call.dy;
  switch (op.kind) {
    case OpKind::sum:
    case OpKind::mean:
      call.grads[0] = reduceGrad(e, op, dy);
      return true;
    case OpKind::reshape:
      call.grads[0] = e.reshape(dy, e.shape(op.inputs[0]));
      return true;
    case OpKind::permute:
      call.grads[0] = e.permute(dy, inverseAxes(op.attrs.dims));
      return true;
    case OpKind::matmul:
      if (call.need(0)) call.grads[0] = matmulLeftGrad(e, dy, op.inputs[1]);
      if (call.need(1)) call.grads[1] = matmulRightGrad(e, op.inputs[0], op.inputs[1], dy);
      return true;
    case OpKind::embedding: {
      if (!call.need(0)) return true;
      const Shape table = e.shape(op.inputs[0]);
      ir::OpAttrs attrs;
      attrs.count = table[0];
      call.grads[0] = e.internal(OpKind::embedding_grad, {dy, op.inputs[1]}, std::move(attrs), table);
      return true;
    }
    case OpKind::take_along_axis: {
      if (!call.need(0)) return true;
      Shape in = e.shape(op.inputs[0]);
      ir::OpAttrs attrs;
      attrs.axis = op.attrs.axis;
      attrs.dims = in;
      call.grads[0] =
          e.internal(OpKind::take_along_axis_grad, {dy, op.inputs[1]}, std::move(attrs), in);
      return true;
    }
    case OpKind::narrow: {
      Shape in = e.shape(op.inputs[0]);
      ir::OpAttrs attrs;
      attrs.axis = op.attrs.axis;
      attrs.start = op.attrs.start;
      attrs.dims = in;
      call.grads[0] = e.internal(OpKind::narrow_grad, {dy}, std::move(attrs), in);
      return true;
    }
    case OpKind::concat: {
      std::int64_t offset = 0;
      for (std::size_t i = 0; i < op.inputs.size(); ++i) {
        const std::int64_t length = e.shape(op.inputs[i])[static_cast<std::size_t>(op.attrs.axis)];
        if (call.need(i)) call.grads[i] = e.narrow(dy, op.attrs.axis, offset, length);
        offset += length;
      }
      return true;
    }
    case OpKind::stack:
      for (std::size_t i = 0; i < op.inputs.size(); ++i) {
        if (!call.need(i)) continue;
        const TensorId piece = e.narrow(dy, op.attrs.axis, static_cast<std::int64_t>(i), 1);
        call.grads[i] = e.reshape(piece, e.shape(op.inputs[i]));
      }
      return true;
    case OpKind::split_heads: {
      Shape in = e.shape(op.inputs[0]);
      call.grads[0] = e.emit(OpKind::merge_heads, {dy}, {}, std::move(in));
      return true;
    }
    case OpKind::merge_heads: {
      Shape in = e.shape(op.inputs[0]);
      ir::OpAttrs attrs;
      attrs.count = in[1];
      call.grads[0] = e.emit(OpKind::split_heads, {dy}, std::move(attrs), std::move(in));
      return true;
    }
    case OpKind::capture:
      call.grads[0] = dy;
      return true;
    default:
      return false;
  }
}

}  // namespace nndna::grad
