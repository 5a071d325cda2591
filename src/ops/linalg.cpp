// matmul, conv2d, maxPool2d, nearestUpsample2d.
#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

Tensor matmul(Tensor a, Tensor b) {
  OpBuilder op(OpKind::matmul, "matmul");
  const ir::TensorInfo& ta = op.input(a);
  const ir::TensorInfo& tb = op.input(b);
  op.requireFloat(ta, "left operand");
  op.requireFloat(tb, "right operand");
  const std::size_t ra = ta.shape.size();
  const std::size_t rb = tb.shape.size();
  if (ra < 2) op.fail("the left operand must have rank >= 2, got {}", ir::formatShape(ta.shape));
  if (rb != 2 && rb != ra) {
    op.fail("the right operand must be [K, N] or batched like the left: {} · {}",
            ir::formatShape(ta.shape), ir::formatShape(tb.shape));
  }
  const std::int64_t k = ta.shape[ra - 1];
  if (tb.shape[rb - 2] != k) {
    op.fail("inner dimensions differ: {} · {}", ir::formatShape(ta.shape),
            ir::formatShape(tb.shape));
  }
  if (rb == ra && rb > 2) {
    for (std::size_t i = 0; i + 2 < ra; ++i) {
      if (ta.shape[i] != tb.shape[i]) {
        op.fail("batch dimensions differ (no broadcasting): {} · {}", ir::formatShape(ta.shape),
                ir::formatShape(tb.shape));
      }
    }
  }
  Shape shape = ta.shape;
  shape.back() = tb.shape[rb - 1];
  return op.finish(std::move(shape), DType::f32);
}

namespace {
// Output size of a sliding window; fails when the window does not fit.
std::int64_t windowOut(const OpBuilder& op, std::int64_t in, std::int64_t kernel,
                       std::int64_t stride, std::int64_t padding, std::string_view axis) {
  const std::int64_t span = in + 2 * padding - kernel;
  if (span < 0) {
    op.fail("the {} kernel ({}) is larger than the padded input ({} + 2·{})", axis, kernel, in,
            padding);
  }
  return span / stride + 1;
}
}  // namespace

Tensor conv2d(Tensor input, Tensor weight, Conv2dOptions options) {
  OpBuilder op(OpKind::conv2d, "conv2d");
  const ir::TensorInfo& x = op.input(input);
  const ir::TensorInfo& w = op.input(weight);
  op.requireFloat(x);
  op.requireFloat(w, "weight");
  op.requireRank(x, 4, "input ([N, C, H, W])");
  op.requireRank(w, 4, "weight ([outC, inC/groups, kH, kW])");
  const std::int64_t groups = options.groups;
  if (groups <= 0) op.fail("groups must be positive, got {}", groups);
  if (options.stride.h <= 0 || options.stride.w <= 0) {
    op.fail("stride must be positive, got ({}, {})", options.stride.h, options.stride.w);
  }
  if (options.padding.h < 0 || options.padding.w < 0) {
    op.fail("padding must not be negative, got ({}, {})", options.padding.h, options.padding.w);
  }
  const std::int64_t c = x.shape[1];
  const std::int64_t outC = w.shape[0];
  if (c % groups != 0 || outC % groups != 0) {
    op.fail("input channels {} and output channels {} must be divisible by groups = {}", c, outC,
            groups);
  }
  if (w.shape[1] * groups != c) {
    op.fail("weight {} expects {} input channels per group, input {} has {} / {} groups",
            ir::formatShape(w.shape), w.shape[1], ir::formatShape(x.shape), c, groups);
  }
  const std::int64_t h = windowOut(op, x.shape[2], w.shape[2], options.stride.h, options.padding.h, "height");
  const std::int64_t wd = windowOut(op, x.shape[3], w.shape[3], options.stride.w, options.padding.w, "width");
  ir::OpAttrs& attrs = op.attrs();
  attrs.kernel = {w.shape[2], w.shape[3]};
  attrs.stride = {options.stride.h, options.stride.w};
  attrs.padding = {options.padding.h, options.padding.w};
  attrs.groups = groups;
  return op.finish({x.shape[0], outC, h, wd}, DType::f32);
}

Tensor maxPool2d(Tensor x, Hw kernel, MaxPool2dOptions options) {
  OpBuilder op(OpKind::max_pool2d, "maxPool2d");
  const ir::TensorInfo& in = op.input(x);
  op.requireFloat(in);
  op.requireRank(in, 4, "input ([N, C, H, W])");
  const Hw stride = options.stride.value_or(kernel);
  if (kernel.h <= 0 || kernel.w <= 0) op.fail("kernel must be positive, got ({}, {})", kernel.h, kernel.w);
  if (stride.h <= 0 || stride.w <= 0) op.fail("stride must be positive, got ({}, {})", stride.h, stride.w);
  if (options.padding.h < 0 || options.padding.w < 0 || options.padding.h * 2 > kernel.h ||
      options.padding.w * 2 > kernel.w) {
    op.fail("padding ({}, {}) must be between 0 and half the kernel ({}, {})", options.padding.h,
            options.padding.w, kernel.h, kernel.w);
  }
  const std::int64_t h = windowOut(op, in.shape[2], kernel.h, stride.h, options.padding.h, "height");
  const std::int64_t w = windowOut(op, in.shape[3], kernel.w, stride.w, options.padding.w, "width");
  ir::OpAttrs& attrs = op.attrs();
  attrs.kernel = {kernel.h, kernel.w};
  attrs.stride = {stride.h, stride.w};
  attrs.padding = {options.padding.h, options.padding.w};
  return op.finish({in.shape[0], in.shape[1], h, w}, in.dtype);
}

Tensor nearestUpsample2d(Tensor x, std::int64_t factor) {
  OpBuilder op(OpKind::nearest_upsample2d, "nearestUpsample2d");
  const ir::TensorInfo& in = op.input(x);
  op.requireRank(in, 4, "input ([N, C, H, W])");
  if (factor < 1) op.fail("factor must be >= 1, got {}", factor);
  std::int64_t h = 0;
  std::int64_t w = 0;
  if (__builtin_mul_overflow(in.shape[2], factor, &h) ||
      __builtin_mul_overflow(in.shape[3], factor, &w)) {
    op.fail("the upsampled size overflows 64 bits");
  }
  op.attrs().count = factor;
  return op.finish({in.shape[0], in.shape[1], h, w}, in.dtype);
}

}  // namespace nndna
