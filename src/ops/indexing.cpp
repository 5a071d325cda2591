// Indexing and constant tensors: oneHot, arange, embedding, takeAlongAxis, zeros, ones, randn.
#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

Tensor oneHot(Tensor indices, std::int64_t depth) {
  OpBuilder op(OpKind::one_hot, "oneHot");
  const ir::TensorInfo& in = op.input(indices);
  op.requireDtype(in, DType::i32, "indices");
  if (depth <= 0) op.fail("depth must be positive, got {}", depth);
  op.attrs().count = depth;
  Shape shape = in.shape;
  shape.push_back(depth);
  return op.finish(std::move(shape), DType::f32);
}

Tensor arange(std::int64_t n, DType dtype) {
  OpBuilder op(OpKind::arange, "arange");
  if (n <= 0) op.fail("n must be positive, got {}", n);
  if (dtype == DType::boolean) op.fail("dtype must be i32 or f32");
  op.attrs().count = n;
  op.attrs().dtype = dtype;
  return op.finish({n}, dtype);
}

Tensor embedding(Tensor table, Tensor indices) {
  OpBuilder op(OpKind::embedding, "embedding");
  const ir::TensorInfo& t = op.input(table);
  const ir::TensorInfo& idx = op.input(indices);
  op.requireFloat(t, "table");
  op.requireRank(t, 2, "table ([vocab, dim])");
  op.requireDtype(idx, DType::i32, "indices");
  Shape shape = idx.shape;
  shape.push_back(t.shape[1]);
  return op.finish(std::move(shape), DType::f32);
}

Tensor takeAlongAxis(Tensor input, Tensor indices, std::int64_t axis) {
  OpBuilder op(OpKind::take_along_axis, "takeAlongAxis");
  const ir::TensorInfo& in = op.input(input);
  const ir::TensorInfo& idx = op.input(indices);
  op.requireDtype(idx, DType::i32, "indices");
  if (idx.shape.size() != in.shape.size()) {
    op.fail("indices {} must have the rank of the input {}", ir::formatShape(idx.shape),
            ir::formatShape(in.shape));
  }
  const std::int64_t a = op.axis(axis, in.shape.size());
  for (std::size_t d = 0; d < in.shape.size(); ++d) {
    if (static_cast<std::int64_t>(d) != a && idx.shape[d] != in.shape[d]) {
      op.fail("indices {} must match the input {} on every axis but {}", ir::formatShape(idx.shape),
              ir::formatShape(in.shape), a);
    }
  }
  op.attrs().axis = a;
  return op.finish(idx.shape, in.dtype);
}

namespace {
Tensor constant(OpKind kind, std::string_view api, Shape shape, DType dtype) {
  OpBuilder op(kind, api);
  for (std::int64_t s : shape) {
    if (s <= 0) op.fail("sizes must be positive, got {}", ir::formatShape(shape));
  }
  op.attrs().dims = shape;
  op.attrs().dtype = dtype;
  return op.finish(std::move(shape), dtype);
}
}  // namespace

Tensor zeros(Shape shape, DType dtype) { return constant(OpKind::zeros, "zeros", std::move(shape), dtype); }
Tensor ones(Shape shape, DType dtype) { return constant(OpKind::ones, "ones", std::move(shape), dtype); }
Tensor randn(Shape shape) { return constant(OpKind::randn, "randn", std::move(shape), DType::f32); }

}  // namespace nndna
