// matmul, conv2d, conv1d (a conv2d of height 1), convTranspose2d, maxPool2d, avgPool2d,
// adaptiveAvgPool2d (an avgPool2d), nearestUpsample2d, bilinearUpsample2d.
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
  attrs.dilation = {options.dilation.h, options.dilation.w};
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
                             .groups = options.groups, .dilation = {1, options.dilation}});
  const Shape out = y.shape();
  return reshapeAs("conv1d", y, {out[0], out[1], out[3]});
}

// The IR records the output shape (dims), from which outputPadding follows; the rule checks that
// the input is what a conv2d of that shape by this weight gives.
Tensor convTranspose2d(Tensor input, Tensor weight, ConvTranspose2dOptions options) {
  OpBuilder op(OpKind::conv_transpose2d, "convTranspose2d");
  const Shape x = op.input(input).shape;
  const Shape w = op.input(weight).shape;
  ir::OpAttrs& attrs = op.attrs();
  attrs.stride = {options.stride.h, options.stride.w};
  attrs.padding = {options.padding.h, options.padding.w};
  attrs.groups = options.groups;
  const Hw outPad = options.outputPadding;
  if (x.size() != 4 || w.size() != 4 || options.stride.h <= 0 || options.stride.w <= 0 ||
      options.groups <= 0) {
    return op.finish();  // the rule names the rank, the stride or the groups
  }
  if (outPad.h < 0 || outPad.w < 0 || outPad.h >= options.stride.h || outPad.w >= options.stride.w) {
    op.fail("outputPadding ({}, {}) must be >= 0 and smaller than the stride ({}, {})", outPad.h,
            outPad.w, options.stride.h, options.stride.w);
  }
  // (in - 1)·stride - 2·padding + kernel + outputPadding, in 64 bits or an error.
  auto outSize = [&](std::int64_t in, std::int64_t stride, std::int64_t padding, std::int64_t kernel,
                     std::int64_t extra) {
    std::int64_t v = 0;
    if (__builtin_mul_overflow(in - 1, stride, &v) || __builtin_mul_overflow(padding, 2, &padding) ||
        __builtin_sub_overflow(v, padding, &v) || __builtin_add_overflow(v, kernel, &v) ||
        __builtin_add_overflow(v, extra, &v)) {
      op.fail("the output size overflows 64 bits");
    }
    return v;
  };
  std::int64_t outChannels = 0;
  if (__builtin_mul_overflow(w[1], options.groups, &outChannels)) op.fail("the output channels overflow 64 bits");
  attrs.kernel = {w[2], w[3]};
  attrs.dims = {x[0], outChannels,
                outSize(x[2], options.stride.h, options.padding.h, w[2], outPad.h),
                outSize(x[3], options.stride.w, options.padding.w, w[3], outPad.w)};
  return op.finish();
}

namespace {
Tensor pool2d(OpKind kind, std::string_view api, Tensor x, Hw kernel, Hw stride, Hw padding, bool ceilMode) {
  OpBuilder op(kind, api);
  op.input(x);
  ir::OpAttrs& attrs = op.attrs();
  attrs.kernel = {kernel.h, kernel.w};
  attrs.stride = {stride.h, stride.w};
  attrs.padding = {padding.h, padding.w};
  attrs.ceilMode = ceilMode;
  return op.finish();
}
}  // namespace

Tensor maxPool2d(Tensor x, Hw kernel, MaxPool2dOptions options) {
  return pool2d(OpKind::max_pool2d, "maxPool2d", x, kernel, options.stride.value_or(kernel),
                options.padding, options.ceilMode);
}

Tensor avgPool2d(Tensor x, Hw kernel, AvgPool2dOptions options) {
  return pool2d(OpKind::avg_pool2d, "avgPool2d", x, kernel, options.stride.value_or(kernel),
                options.padding, options.ceilMode);
}

namespace {
// x [N, C, L] pooled as [N, C, 1, L] by the 2-d op of the same kind (as conv1d is a conv2d).
Tensor pool1d(OpKind kind, std::string_view api, Tensor x, std::int64_t kernel, const Pool1dOptions& options) {
  const std::int64_t stride = options.stride.value_or(kernel);
  Shape in;
  {
    OpBuilder check(kind, api);
    in = check.input(x).shape;
    if (in.size() != 3) check.fail("input must be [N, C, L], got {}", ir::formatShape(in));
    if (kernel <= 0 || stride <= 0 || options.padding < 0) {
      check.fail("kernel ({}) and stride ({}) must be positive and padding ({}) at least 0", kernel, stride,
                 options.padding);
    }
  }
  const Tensor y = pool2d(kind, api, reshapeAs(api, x, {in[0], in[1], 1, in[2]}), {1, kernel}, {1, stride},
                          {0, options.padding}, options.ceilMode);
  const Shape out = y.shape();
  return reshapeAs(api, y, {out[0], out[1], out[3]});
}
}  // namespace

Tensor maxPool1d(Tensor x, std::int64_t kernel, Pool1dOptions options) {
  return pool1d(OpKind::max_pool2d, "maxPool1d", x, kernel, options);
}

Tensor avgPool1d(Tensor x, std::int64_t kernel, Pool1dOptions options) {
  return pool1d(OpKind::avg_pool2d, "avgPool1d", x, kernel, options);
}

// PyTorch's adaptive window i spans [floor(i·H/out), ceil((i+1)·H/out)); when out divides H that
// is the window H/out at stride H/out, one avg_pool2d. Other sizes have windows of two lengths,
// which no single pooling op expresses: they are an error rather than a silently different op.
Tensor adaptiveAvgPool2d(Tensor x, Hw outputSize) {
  Shape in;
  {
    OpBuilder check(OpKind::avg_pool2d, "adaptiveAvgPool2d");
    in = check.input(x).shape;
    if (in.size() != 4) check.fail("input must be [N, C, H, W], got {}", ir::formatShape(in));
    if (outputSize.h <= 0 || outputSize.w <= 0) {
      check.fail("output size ({}, {}) must be positive", outputSize.h, outputSize.w);
    }
    if (in[2] % outputSize.h != 0 || in[3] % outputSize.w != 0) {
      check.fail("output size ({}, {}) must divide the input's ({}, {}) (windows of one size)",
                 outputSize.h, outputSize.w, in[2], in[3]);
    }
  }
  const Hw window(in[2] / outputSize.h, in[3] / outputSize.w);
  return pool2d(OpKind::avg_pool2d, "adaptiveAvgPool2d", x, window, window, 0, false);
}

Tensor nearestUpsample2d(Tensor x, std::int64_t factor) {
  OpBuilder op(OpKind::nearest_upsample2d, "nearestUpsample2d");
  op.input(x);
  op.attrs().count = factor;
  return op.finish();
}

Tensor pixelShuffle(Tensor x, std::int64_t upscaleFactor) {
  OpBuilder op(OpKind::pixel_shuffle, "pixelShuffle");
  op.input(x);
  op.attrs().count = upscaleFactor;
  return op.finish();
}

Tensor pixelUnshuffle(Tensor x, std::int64_t downscaleFactor) {
  OpBuilder op(OpKind::pixel_unshuffle, "pixelUnshuffle");
  op.input(x);
  op.attrs().count = downscaleFactor;
  return op.finish();
}

Tensor bilinearUpsample2d(Tensor x, std::int64_t factor, BilinearUpsampleOptions options) {
  OpBuilder op(OpKind::bilinear_upsample2d, "bilinearUpsample2d");
  op.input(x);
  op.attrs().count = factor;
  op.attrs().alignCorners = options.alignCorners;
  return op.finish();
}

}  // namespace nndna
