// Reductions: mean, sum, argmax, argmin.
#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

namespace {

Shape reducedShape(const Shape& shape, std::int64_t axis, bool keepDims) {
  Shape out = shape;
  if (keepDims) {
    out[static_cast<std::size_t>(axis)] = 1;
  } else {
    out.erase(out.begin() + axis);
  }
  return out;
}

Tensor reduceAll(OpKind kind, std::string_view api, Tensor x) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& in = op.input(x);
  if (kind == OpKind::mean) op.requireFloat(in);
  if (in.dtype == DType::boolean) op.fail("input must be f32 or i32, got {}", ops::describe(in));
  op.attrs().allAxes = true;
  return op.finish({}, in.dtype);
}

Tensor reduceAxis(OpKind kind, std::string_view api, Tensor x, std::int64_t axis,
                  ReduceOptions options) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& in = op.input(x);
  if (kind == OpKind::mean) op.requireFloat(in);
  if (in.dtype == DType::boolean) op.fail("input must be f32 or i32, got {}", ops::describe(in));
  const std::int64_t a = op.axis(axis, in.shape.size());
  op.attrs().axis = a;
  op.attrs().keepDims = options.keepDims;
  return op.finish(reducedShape(in.shape, a, options.keepDims), in.dtype);
}

Tensor argReduce(OpKind kind, std::string_view api, Tensor x, std::int64_t axis) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& in = op.input(x);
  if (in.dtype == DType::boolean) op.fail("input must be f32 or i32, got {}", ops::describe(in));
  const std::int64_t a = op.axis(axis, in.shape.size());
  op.attrs().axis = a;
  return op.finish(reducedShape(in.shape, a, false), DType::i32);
}

}  // namespace

Tensor mean(Tensor x) { return reduceAll(OpKind::mean, "mean", x); }
Tensor mean(Tensor x, std::int64_t axis, ReduceOptions options) {
  return reduceAxis(OpKind::mean, "mean", x, axis, options);
}
Tensor sum(Tensor x) { return reduceAll(OpKind::sum, "sum", x); }
Tensor sum(Tensor x, std::int64_t axis, ReduceOptions options) {
  return reduceAxis(OpKind::sum, "sum", x, axis, options);
}
Tensor argmax(Tensor x, std::int64_t axis) { return argReduce(OpKind::argmax, "argmax", x, axis); }
Tensor argmin(Tensor x, std::int64_t axis) { return argReduce(OpKind::argmin, "argmin", x, axis); }

}  // namespace nndna
