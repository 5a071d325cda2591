// Reductions: mean, sum, argmax, argmin.
#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

namespace {

Tensor reduceAll(OpKind kind, std::string_view api, Tensor x) {
  OpBuilder op(kind, api);
  op.input(x);
  op.attrs().allAxes = true;
  return op.finish();
}

Tensor reduceAxis(OpKind kind, std::string_view api, Tensor x, std::int64_t axis,
                  ReduceOptions options) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& in = op.input(x);
  op.attrs().axis = op.axis(axis, in.shape.size());
  op.attrs().keepDims = options.keepDims;
  return op.finish();
}

Tensor argReduce(OpKind kind, std::string_view api, Tensor x, std::int64_t axis) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& in = op.input(x);
  op.attrs().axis = op.axis(axis, in.shape.size());
  return op.finish();
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
