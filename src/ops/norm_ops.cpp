#include "ops/norm_ops.hpp"

#include "ops/op_builder.hpp"

namespace nndna::ops {

using ir::OpKind;

namespace {
void requireVector(OpBuilder& op, const ir::TensorInfo& t, std::int64_t size,
                   std::string_view what) {
  if (t.shape.size() != 1 || t.shape[0] != size) {
    op.fail("{} must be [{}], got {}", what, size, ir::formatShape(t.shape));
  }
}
}  // namespace

Tensor layerNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
  OpBuilder op(OpKind::layer_norm, "LayerNorm");
  const ir::TensorInfo& in = op.input(x);
  op.requireFloat(in);
  if (in.shape.empty()) op.fail("input must have rank >= 1");
  const std::int64_t d = in.shape.back();
  requireVector(op, op.input(weight), d, "the last axis of the input (weight size)");
  if (bias.defined()) requireVector(op, op.input(bias), d, "bias");
  op.attrs().scalar = eps;
  return op.finish(in.shape, in.dtype);
}

Tensor rmsNorm(Tensor x, Tensor weight, double eps) {
  OpBuilder op(OpKind::rms_norm, "RMSNorm");
  const ir::TensorInfo& in = op.input(x);
  op.requireFloat(in);
  if (in.shape.empty()) op.fail("input must have rank >= 1");
  requireVector(op, op.input(weight), in.shape.back(), "the last axis of the input (weight size)");
  op.attrs().scalar = eps;
  return op.finish(in.shape, in.dtype);
}

Tensor batchNorm2d(Tensor x, Tensor weight, Tensor bias, double eps, double momentum) {
  OpBuilder op(OpKind::batch_norm2d, "BatchNorm2d");
  const ir::TensorInfo& in = op.input(x);
  op.requireFloat(in);
  op.requireRank(in, 4, "input ([N, C, H, W])");
  const std::int64_t c = in.shape[1];
  requireVector(op, op.input(weight), c, "the channel axis of the input (weight size)");
  requireVector(op, op.input(bias), c, "bias");
  op.attrs().scalar = eps;
  op.attrs().scalar2 = momentum;
  return op.finish(in.shape, in.dtype);
}

Tensor batchNorm2dInference(Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor var,
                            double eps) {
  OpBuilder op(OpKind::batch_norm2d_inference, "BatchNorm2d");
  const ir::TensorInfo& in = op.input(x);
  op.requireFloat(in);
  op.requireRank(in, 4, "input ([N, C, H, W])");
  const std::int64_t c = in.shape[1];
  requireVector(op, op.input(weight), c, "the channel axis of the input (weight size)");
  requireVector(op, op.input(bias), c, "bias");
  requireVector(op, op.input(mean), c, "running mean");
  requireVector(op, op.input(var), c, "running variance");
  op.attrs().scalar = eps;
  return op.finish(in.shape, in.dtype);
}

}  // namespace nndna::ops
