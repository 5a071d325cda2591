// Indexing and constant tensors: oneHot, arange, embedding, takeAlongAxis, zeros, ones, randn.
#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

Tensor oneHot(Tensor indices, std::int64_t depth) {
  OpBuilder op(OpKind::one_hot, "oneHot");
  op.input(indices);
  op.attrs().count = depth;
  return op.finish();
}

Tensor arange(std::int64_t n, DType dtype) {
  OpBuilder op(OpKind::arange, "arange");
  op.attrs().count = n;
  op.attrs().dtype = dtype;
  return op.finish();
}

Tensor embedding(Tensor table, Tensor indices) {
  OpBuilder op(OpKind::embedding, "embedding");
  op.input(table);
  op.input(indices);
  return op.finish();
}

Tensor takeAlongAxis(Tensor input, Tensor indices, std::int64_t axis) {
  OpBuilder op(OpKind::take_along_axis, "takeAlongAxis");
  const ir::TensorInfo& in = op.input(input);
  op.input(indices);
  op.attrs().axis = op.axis(axis, in.shape.size());
  return op.finish();
}

namespace {
Tensor constant(OpKind kind, std::string_view api, Shape shape, DType dtype) {
  OpBuilder op(kind, api);
  op.attrs().dims = std::move(shape);
  if (kind != OpKind::randn) op.attrs().dtype = dtype;
  return op.finish();
}
}  // namespace

Tensor zeros(Shape shape, DType dtype) { return constant(OpKind::zeros, "zeros", std::move(shape), dtype); }
Tensor ones(Shape shape, DType dtype) { return constant(OpKind::ones, "ones", std::move(shape), dtype); }
Tensor randn(Shape shape) { return constant(OpKind::randn, "randn", std::move(shape), DType::f32); }

}  // namespace nndna
