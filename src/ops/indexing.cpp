// Indexing and constant tensors: oneHot, arange, embedding, takeAlongAxis, zeros, ones, randn.
#include <cmath>
#include <limits>

#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

Tensor oneHot(Tensor indices, Size depth, DType dtype) {
  OpBuilder op(OpKind::one_hot, "oneHot");
  op.input(indices);
  op.count(depth);
  op.attrs().dtype = dtype;
  return op.finish();
}

namespace {
Tensor range(OpBuilder& op, std::int64_t count, double start, double step, DType dtype) {
  op.attrs().count = count;
  op.attrs().scalar = start;
  op.attrs().scalar2 = step;
  op.attrs().dtype = dtype;
  return op.finish();
}
}  // namespace

Tensor arange(Size n, DType dtype) {
  OpBuilder op(OpKind::arange, "arange");
  if (n <= 0) op.fail("n must be positive, got {}", n.value());
  op.count(n);
  return range(op, n, 0.0, 1.0, dtype);
}

// PyTorch's length, ceil((end - start) / step); an empty range is an error (no tensor is empty).
Tensor arange(double start, double end, double step, DType dtype) {
  OpBuilder op(OpKind::arange, "arange");
  if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step)) {
    op.fail("start, end and step must be finite, got {}, {}, {}", start, end, step);
  }
  if (step == 0) op.fail("step must not be 0");
  const double length = std::ceil((end - start) / step);
  if (!(length >= 1)) {
    op.fail("the range from {} to {} by step {} is empty (a {} step must lead {})", start, end, step,
            step > 0 ? "positive" : "negative", step > 0 ? "up to a larger end" : "down to a smaller end");
  }
  if (length > static_cast<double>(std::numeric_limits<std::int64_t>::max() / 2)) {
    op.fail("the range from {} to {} by step {} is too long", start, end, step);
  }
  return range(op, static_cast<std::int64_t>(length), start, step, dtype);
}

Tensor embedding(Tensor table, Tensor indices, std::optional<std::int64_t> paddingIdx) {
  OpBuilder op(OpKind::embedding, "embedding");
  const ir::TensorInfo& t = op.input(table);
  op.input(indices);
  if (paddingIdx && !t.shape.empty()) {
    // PyTorch's range: [-vocab, vocab), a negative one counting from the end.
    const std::int64_t vocab = t.shape[0];
    if (*paddingIdx < -vocab || *paddingIdx >= vocab) {
      op.fail("paddingIdx {} must be within the table's {} rows ([-{}, {}))", *paddingIdx, vocab, vocab, vocab);
    }
    op.attrs().paddingIdx = *paddingIdx < 0 ? *paddingIdx + vocab : *paddingIdx;
  }
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
Tensor constant(OpKind kind, std::string_view api, const Sizes& shape, DType dtype) {
  OpBuilder op(kind, api);
  op.attrs().dims = shape.values();
  op.nameDims(shape);
  if (kind != OpKind::randn) op.attrs().dtype = dtype;
  return op.finish();
}
}  // namespace

Tensor zeros(Sizes shape, DType dtype) { return constant(OpKind::zeros, "zeros", shape, dtype); }
Tensor ones(Sizes shape, DType dtype) { return constant(OpKind::ones, "ones", shape, dtype); }
Tensor randn(Sizes shape) { return constant(OpKind::randn, "randn", shape, DType::f32); }

}  // namespace nndna
