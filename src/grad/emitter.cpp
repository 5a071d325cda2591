#include "grad/emitter.hpp"

#include <fmt/format.h>

#include <limits>
#include <numeric>

#include "ir/shape_rules.hpp"
#include "trace/tracer.hpp"

namespace nndna::grad {

using ir::OpKind;
using ir::TensorId;

TensorId Emitter::emit(OpKind kind, std::vector<TensorId> inputs, ir::OpAttrs attrs) {
  std::vector<const ir::TensorInfo*> types;
  types.reserve(inputs.size());
  for (TensorId t : inputs) types.push_back(&graph_.tensor(t));
  ir::TensorType out;
  try {
    out = ir::inferOutput(kind, attrs, types);
  } catch (const ir::ShapeRuleError& e) {
    const tracing::SiteLocation at = tracing::innermostLocation(graph_, site_);
    throw ir::ShapeRuleError(Error::located(
        tracing::displayPath(at.file), at.line,
        at.withCallers(fmt::format("building the {} of this line: {}: {}", ir::phaseName(phase_),
                                   ir::opKindName(kind), e.message()))));
  }
  if (graph_.tensors.size() >= static_cast<std::size_t>(std::numeric_limits<TensorId>::max())) {
    throw ir::ShapeRuleError("the training step has too many tensors (2^31)");
  }
  const auto tensorId = static_cast<TensorId>(graph_.tensors.size());
  const auto opId = static_cast<ir::OpId>(graph_.ops.size());
  // Names, like the shape, come from the rule: autodiff and the optimizer invent none.
  graph_.tensors.push_back({std::move(out.shape), out.dtype, opId, std::move(out.names)});
  ir::Op op;
  op.kind = kind;
  op.inputs = std::move(inputs);
  op.out = tensorId;
  op.attrs = attrs_.intern(kind, std::move(attrs));  // a block only when none is shared
  op.site = site_;
  op.phase = phase_;
  graph_.ops.push_back(std::move(op));
  return tensorId;
}

TensorId Emitter::leaf(OpKind kind, std::string name, Shape shape) {
  const auto tensorId = static_cast<TensorId>(graph_.tensors.size());
  graph_.tensors.push_back({std::move(shape), DType::f32, static_cast<ir::OpId>(graph_.ops.size())});
  ir::Op op;
  op.kind = kind;
  op.out = tensorId;
  op.attrs.edit().name = std::move(name);
  op.phase = phase_;
  graph_.ops.push_back(std::move(op));
  return tensorId;
}

TensorId Emitter::scalar(OpKind kind, TensorId a, double value, bool scalarLeft) {
  ir::OpAttrs attrs;
  attrs.scalar = value;
  attrs.scalarOperand = true;
  attrs.scalarLeft = scalarLeft;
  return emit(kind, {a}, std::move(attrs));
}

TensorId Emitter::reshape(TensorId x, Shape shape) {
  if (this->shape(x) == shape) return x;
  ir::OpAttrs attrs;
  attrs.dims = std::move(shape);
  return emit(OpKind::reshape, {x}, std::move(attrs));
}

TensorId Emitter::permute(TensorId x, std::vector<std::int64_t> axes) {
  ir::OpAttrs attrs;
  attrs.dims = std::move(axes);
  return emit(OpKind::permute, {x}, std::move(attrs));
}

TensorId Emitter::swapLastTwo(TensorId x) {
  const std::size_t rank = shape(x).size();
  if (rank < 2) throw ir::ShapeRuleError(fmt::format("swapLastTwo: rank {} < 2", rank));
  std::vector<std::int64_t> axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  std::swap(axes[rank - 1], axes[rank - 2]);
  return permute(x, std::move(axes));
}

TensorId Emitter::narrow(TensorId x, std::int64_t axis, std::int64_t start, std::int64_t length) {
  ir::OpAttrs attrs;
  attrs.axis = axis;
  attrs.start = start;
  attrs.count = length;
  return emit(OpKind::narrow, {x}, std::move(attrs));
}

TensorId Emitter::ones(Shape shape) {
  ir::OpAttrs attrs;
  attrs.dims = std::move(shape);
  return emit(OpKind::ones, {}, std::move(attrs));
}

TensorId Emitter::broadcastTo(TensorId x, Shape shape) {
  if (this->shape(x) == shape) return x;
  ir::OpAttrs attrs;
  attrs.dims = std::move(shape);
  return emit(OpKind::broadcast_to, {x}, std::move(attrs));
}

TensorId Emitter::sumToShape(TensorId x, Shape shape) {
  if (this->shape(x) == shape) return x;
  ir::OpAttrs attrs;
  attrs.dims = std::move(shape);
  return emit(OpKind::sum_to_shape, {x}, std::move(attrs));
}

}  // namespace nndna::grad
