// Adjoints of reductions, layout, matmul, indexing, slicing and joining, and identities.
#include <fmt/ranges.h>

#include <numeric>

#include "grad/rules.hpp"
#include "ir/shape_rules.hpp"

namespace nndna::grad {

using ir::OpKind;
using ir::TensorId;

// sum / mean: put the reduced axis back (size 1) and broadcast to the input's shape.
void reduceAdjoint(Emitter& e, const AdjointCall& c) {
  const Shape in = e.shape(c.op.inputs[0]);
  TensorId g = c.dy;
  if (c.op.kind == OpKind::mean) {
    const std::int64_t n = ir::numel(in) / ir::numel(e.shape(c.op.out));
    g = e.scalar(OpKind::mul, g, 1.0 / static_cast<double>(n));
  }
  if (!c.op.attrs->allAxes && !c.op.attrs->keepDims) {
    Shape kept = in;
    kept.at(static_cast<std::size_t>(c.op.attrs->axis)) = 1;
    g = e.reshape(g, std::move(kept));
  }
  c.grads[0] = e.broadcastTo(g, in);
}

void broadcastToAdjoint(Emitter& e, const AdjointCall& c) {
  c.grads[0] = e.sumToShape(c.dy, e.shape(c.op.inputs[0]));
}

void reshapeAdjoint(Emitter& e, const AdjointCall& c) {
  c.grads[0] = e.reshape(c.dy, e.shape(c.op.inputs[0]));
}

namespace {
// The inverse of a permutation. Precondition (checked: the graph may come from a file): `axes`
// lists each of 0..n-1 once.
std::vector<std::int64_t> inverseAxes(const std::vector<std::int64_t>& axes) {
  const auto n = static_cast<std::int64_t>(axes.size());
  std::vector<std::int64_t> inverse(axes.size(), -1);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::int64_t a = axes[i];
    if (a < 0 || a >= n || inverse[static_cast<std::size_t>(a)] != -1) {
      throw ir::ShapeRuleError(fmt::format("permute: axes [{}] are not a permutation", fmt::join(axes, ", ")));
    }
    inverse[static_cast<std::size_t>(a)] = static_cast<std::int64_t>(i);
  }
  return inverse;
}
}  // namespace

void permuteAdjoint(Emitter& e, const AdjointCall& c) {
  c.grads[0] = e.permute(c.dy, inverseAxes(c.op.attrs->dims));
}

// Each operand's gradient is a matmul at the output's batch shape, summed back over the batch
// axes the operand was broadcast along.
void matmulAdjoint(Emitter& e, const AdjointCall& c) {
  const TensorId a = c.op.inputs[0];
  const TensorId b = c.op.inputs[1];
  const Shape shapeA = e.shape(a);
  const Shape shapeB = e.shape(b);
  if (c.need(0)) c.grads[0] = e.sumToShape(e.binary(OpKind::matmul, c.dy, e.swapLastTwo(b)), shapeA);
  if (!c.need(1)) return;
  if (shapeB.size() == 2 && shapeA.size() > 2) {
    // [..., M, K] · [K, N]: fold the batch axes into M (one matmul, no sum over the batch).
    const std::int64_t k = shapeA.back();
    const std::int64_t n = shapeB.back();
    const std::int64_t rows = ir::numel(shapeA) / k;
    const TensorId a2 = e.reshape(a, {rows, k});
    const TensorId dy2 = e.reshape(c.dy, {rows, n});
    c.grads[1] = e.binary(OpKind::matmul, e.permute(a2, {1, 0}), dy2);
    return;
  }
  c.grads[1] = e.sumToShape(e.binary(OpKind::matmul, e.swapLastTwo(a), c.dy), shapeB);
}

void embeddingAdjoint(Emitter& e, const AdjointCall& c) {
  if (!c.need(0)) return;
  ir::OpAttrs attrs;
  attrs.count = e.shape(c.op.inputs[0]).at(0);
  attrs.paddingIdx = c.op.attrs->paddingIdx;
  c.grads[0] = e.emit(OpKind::embedding_grad, {c.dy, c.op.inputs[1]}, std::move(attrs));
}

void takeAlongAxisAdjoint(Emitter& e, const AdjointCall& c) {
  if (!c.need(0)) return;
  ir::OpAttrs attrs;
  attrs.axis = c.op.attrs->axis;
  attrs.dims = e.shape(c.op.inputs[0]);
  c.grads[0] = e.emit(OpKind::take_along_axis_grad, {c.dy, c.op.inputs[1]}, std::move(attrs));
}

void narrowAdjoint(Emitter& e, const AdjointCall& c) {
  ir::OpAttrs attrs;
  attrs.axis = c.op.attrs->axis;
  attrs.start = c.op.attrs->start;
  attrs.dims = e.shape(c.op.inputs[0]);
  c.grads[0] = e.emit(OpKind::narrow_grad, {c.dy}, std::move(attrs));
}

// Padding is undone by the opposite amounts: the inner slice of dy where x was padded, zeros
// where x was cropped.
void padAdjoint(Emitter& e, const AdjointCall& c) {
  ir::OpAttrs attrs;
  for (const std::int64_t amount : c.op.attrs->dims) attrs.dims.push_back(-amount);
  c.grads[0] = e.emit(OpKind::pad, {c.dy}, std::move(attrs));
}

// x[j] adds into out[i] for every i >= j: dx[j] = dy[j] + ... + dy[n - 1].
void cumsumAdjoint(Emitter& e, const AdjointCall& c) {
  ir::OpAttrs attrs;
  attrs.axis = c.op.attrs->axis;
  c.grads[0] = e.emit(OpKind::cumsum_grad, {c.dy}, std::move(attrs));
}

void concatAdjoint(Emitter& e, const AdjointCall& c) {
  const auto axis = static_cast<std::size_t>(c.op.attrs->axis);
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < c.op.inputs.size(); ++i) {
    const std::int64_t length = e.shape(c.op.inputs[i]).at(axis);
    if (c.need(i)) c.grads[i] = e.narrow(c.dy, c.op.attrs->axis, offset, length);
    offset += length;
  }
}

void stackAdjoint(Emitter& e, const AdjointCall& c) {
  for (std::size_t i = 0; i < c.op.inputs.size(); ++i) {
    if (!c.need(i)) continue;
    const TensorId piece = e.narrow(c.dy, c.op.attrs->axis, static_cast<std::int64_t>(i), 1);
    c.grads[i] = e.reshape(piece, e.shape(c.op.inputs[i]));
  }
}

void splitHeadsAdjoint(Emitter& e, const AdjointCall& c) {
  c.grads[0] = e.emit(OpKind::merge_heads, {c.dy});
}

void mergeHeadsAdjoint(Emitter& e, const AdjointCall& c) {
  ir::OpAttrs attrs;
  attrs.count = e.shape(c.op.inputs[0]).at(1);
  c.grads[0] = e.emit(OpKind::split_heads, {c.dy}, std::move(attrs));
}

// capture: an identity.
void identityAdjoint(Emitter&, const AdjointCall& c) { c.grads[0] = c.dy; }

}  // namespace nndna::grad
