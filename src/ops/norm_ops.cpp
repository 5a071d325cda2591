#include "ops/norm_ops.hpp"

#include "ops/op_builder.hpp"

namespace nndna::ops {

using ir::OpKind;

namespace {
// One fused op over `inputs`.
Tensor norm(OpKind kind, std::string_view api, std::initializer_list<Tensor> inputs, double eps,
            double momentum = 0.0) {
  OpBuilder op(kind, api);
  for (const Tensor& t : inputs) op.input(t);
  op.attrs().scalar = eps;
  op.attrs().scalar2 = momentum;
  return op.finish();
}
}  // namespace

Tensor layerNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
  // A LayerNorm without a bias has two inputs.
  if (!bias.defined()) return norm(OpKind::layer_norm, "LayerNorm", {x, weight}, eps);
  return norm(OpKind::layer_norm, "LayerNorm", {x, weight, bias}, eps);
}

Tensor rmsNorm(Tensor x, Tensor weight, double eps) {
  return norm(OpKind::rms_norm, "RMSNorm", {x, weight}, eps);
}

Tensor batchNorm2d(Tensor x, Tensor weight, Tensor bias, double eps, double momentum) {
  return norm(OpKind::batch_norm2d, "BatchNorm2d", {x, weight, bias}, eps, momentum);
}

Tensor batchNorm2dInference(Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor var,
                            double eps) {
  return norm(OpKind::batch_norm2d_inference, "BatchNorm2d", {x, weight, bias, mean, var}, eps);
}

}  // namespace nndna::ops

namespace nndna {

Tensor groupNorm(Tensor x, std::int64_t groups, Tensor weight, Tensor bias, double eps) {
  ops::OpBuilder op(ir::OpKind::group_norm, "groupNorm");
  op.input(x);
  if (weight.defined() != bias.defined()) {
    op.fail("takes the weight and the bias together (affine), or neither");
  }
  if (weight.defined()) {
    op.input(weight);
    op.input(bias);
  }
  op.attrs().count = groups;
  op.attrs().scalar = eps;
  return op.finish();
}

}  // namespace nndna
