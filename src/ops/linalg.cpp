// matmul, conv2d, conv1d (a conv2d of height 1), maxPool2d, nearestUpsample2d.
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

namespace {
using ops::reshapeAs;

Tensor conv2dAs(std::string_view api, Tensor input, Tensor weight, Conv2dOptions options) {
  OpBuilder op(OpKind::conv2d, api);
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
}  // namespace

Tensor conv2d(Tensor input, Tensor weight, Conv2dOptions options) {
  return conv2dAs("conv2d", input, weight, options);
}

// [N, C, L] * [outC, C/groups, K]: the same op as conv2d over [N, C, 1, L] with a [1, K] kernel
// (the reshapes are views), so its FLOPs, kernels and gradients are conv2d's.
Tensor conv1d(Tensor input, Tensor weight, Conv1dOptions options) {
  Shape in, w;
  {
    OpBuilder check(OpKind::conv2d, "conv1d");
    in = check.input(input).shape;
    w = check.input(weight).shape;
    if (in.size() != 3) check.fail("input must be [N, C, L], got {}", ir::formatShape(in));
    if (w.size() != 3) check.fail("weight must be [outC, C/groups, K], got {}", ir::formatShape(w));
  }
  const Tensor y = conv2dAs("conv1d", reshapeAs("conv1d", input, {in[0], in[1], 1, in[2]}),
                            reshapeAs("conv1d", weight, {w[0], w[1], 1, w[2]}),
                            {.stride = {1, options.stride}, .padding = {0, options.padding},
                             .groups = options.groups});
  const Shape out = y.shape();
  return reshapeAs("conv1d", y, {out[0], out[1], out[3]});
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
