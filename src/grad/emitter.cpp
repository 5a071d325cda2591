#include "grad/emitter.hpp"

#include <limits>
#include <numeric>
#include <stdexcept>

namespace nndna::grad {

using ir::OpKind;
using ir::TensorId;

Shape broadcastShapes(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

TensorId Emitter::emit(OpKind kind, std::vector<TensorId> inputs, ir::OpAttrs attrs, Shape shape,
                       DType dtype) {
  const auto tensorId = static_cast<TensorId>(graph_.tensors.size());
  const auto opId = static_cast<ir::OpId>(graph_.ops.size());
  if (graph_.tensors.size() >= static_cast<std::size_t>(std::numeric_limits<TensorId>::max())) {
    throw std::length_error("graph too large");
  }
  graph_.tensors.push_back({std::move(shape), dtype, opId});
  ir::Op op;
  op.kind = kind;
  op.inputs = std::move(inputs);
  op.out = tensorId;
  op.attrs = std::move(attrs);
  op.site = site_;
  op.phase = phase_;
  graph_.ops.push_back(std::move(op));
  return tensorId;
}

TensorId Emitter::leaf(OpKind kind, std::string name, Shape shape) {
  ir::OpAttrs attrs;
  attrs.name = std::move(name);
  const ir::SiteId site = site_;
  site_ = ir::kNone;
  const TensorId t = emit(kind, {}, std::move(attrs), std::move(shape));
  site_ = site;
  return t;
}

TensorId Emitter::unary(OpKind kind, TensorId x) { return unary(kind, x, {}); }

TensorId Emitter::unary(OpKind kind, TensorId x, ir::OpAttrs attrs) {
  const ir::TensorInfo& in = graph_.tensor(x);
  Shape shape = in.shape;
  const DType dtype = in.dtype;
  return emit(kind, {x}, std::move(attrs), std::move(shape), dtype);
}

TensorId Emitter::binary(OpKind kind, TensorId a, TensorId b) {
  Shape shape = broadcastShapes(dimsOf(a), dimsOf(b));
  const bool comparison = kind == OpKind::less || kind == OpKind::greater;
  return emit(kind, {a, b}, {}, std::move(shape), comparison ? DType::boolean : DType::f32);
}

TensorId Emitter::scalar(OpKind kind, TensorId a, double value, bool scalarLeft) {
  ir::OpAttrs attrs;
  attrs.scalar = value;
  attrs.scalarOperand = true;
  attrs.scalarLeft = scalarLeft;
  const bool comparison = kind == OpKind::less || kind == OpKind::greater;
  Shape shape = dimsOf(a);
  return emit(kind, {a}, std::move(attrs), std::move(shape),
              comparison ? DType::boolean : DType::f32);
}

TensorId Emitter::reshape(TensorId x, Shape shape) {
  if (dimsOf(x) == shape) return x;
  ir::OpAttrs attrs;
  attrs.dims = shape;
  const DType dtype = graph_.tensor(x).dtype;
  return emit(OpKind::reshape, {x}, std::move(attrs), std::move(shape), dtype);
}

TensorId Emitter::permute(TensorId x, std::vector<std::int64_t> axes) {
  const Shape& in = dimsOf(x);
  Shape shape(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) shape[i] = in[static_cast<std::size_t>(axes[i])];
  ir::OpAttrs attrs;
  attrs.dims = std::move(axes);
  const DType dtype = graph_.tensor(x).dtype;
  return emit(OpKind::permute, {x}, std::move(attrs), std::move(shape), dtype);
}

TensorId Emitter::swapLastTwo(TensorId x) {
  std::vector<std::int64_t> axes(dimsOf(x).size());
  std::iota(axes.begin(), axes.end(), 0);
  std::swap(axes[axes.size() - 1], axes[axes.size() - 2]);
  return permute(x, std::move(axes));
}

TensorId Emitter::matmul(TensorId a, TensorId b) {
  Shape shape = dimsOf(a);
  shape.back() = dimsOf(b).back();
  return emit(OpKind::matmul, {a, b}, {}, std::move(shape));
}

TensorId Emitter::narrow(TensorId x, std::int64_t axis, std::int64_t start, std::int64_t length) {
  Shape shape = dimsOf(x);
  shape[static_cast<std::size_t>(axis)] = length;
  ir::OpAttrs attrs;
  attrs.axis = axis;
  attrs.start = start;
  attrs.count = length;
  const DType dtype = graph_.tensor(x).dtype;
  return emit(OpKind::narrow, {x}, std::move(attrs), std::move(shape), dtype);
}

TensorId Emitter::ones(Shape shape) {
  ir::OpAttrs attrs;
  attrs.dims = shape;
  return emit(OpKind::ones, {}, std::move(attrs), std::move(shape));
}

TensorId Emitter::broadcastTo(TensorId x, Shape shape) {
  if (dimsOf(x) == shape) return x;
  ir::OpAttrs attrs;
  attrs.dims = shape;
  return emit(OpKind::broadcast_to, {x}, std::move(attrs), std::move(shape));
}

TensorId Emitter::sumToShape(TensorId x, Shape shape) {
  if (dimsOf(x) == shape) return x;
  ir::OpAttrs attrs;
  attrs.dims = shape;
  return emit(OpKind::sum_to_shape, {x}, std::move(attrs), std::move(shape));
}

}  // namespace nndna::grad
