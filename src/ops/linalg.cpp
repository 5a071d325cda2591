// matmul, conv2d, maxPool2d, nearestUpsample2d.
#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

Tensor matmul(Tensor a, Tensor b) {
  OpBuilder op(OpKind::matmul, "matmul");
  op.input(a);
  op.input(b);
  return op.finish();
}

Tensor conv2d(Tensor input, Tensor weight, Conv2dOptions options) {
  OpBuilder op(OpKind::conv2d, "conv2d");
  op.input(input);
  const ir::TensorInfo& w = op.input(weight);
  ir::OpAttrs& attrs = op.attrs();
  // The kernel size is the weight's [.., kH, kW] (the rule checks the weight's rank first).
  if (w.shape.size() == 4) attrs.kernel = {w.shape[2], w.shape[3]};
  attrs.stride = {options.stride.h, options.stride.w};
  attrs.padding = {options.padding.h, options.padding.w};
  attrs.groups = options.groups;
  return op.finish();
}

Tensor maxPool2d(Tensor x, Hw kernel, MaxPool2dOptions options) {
  OpBuilder op(OpKind::max_pool2d, "maxPool2d");
  op.input(x);
  const Hw stride = options.stride.value_or(kernel);
  ir::OpAttrs& attrs = op.attrs();
  attrs.kernel = {kernel.h, kernel.w};
  attrs.stride = {stride.h, stride.w};
  attrs.padding = {options.padding.h, options.padding.w};
  return op.finish();
}

Tensor nearestUpsample2d(Tensor x, std::int64_t factor) {
  OpBuilder op(OpKind::nearest_upsample2d, "nearestUpsample2d");
  op.input(x);
  op.attrs().count = factor;
  return op.finish();
}

}  // namespace nndna
