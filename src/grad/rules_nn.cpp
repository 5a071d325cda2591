// Adjoints of the fused ML kinds: softmax family, losses, rope, convolution and pooling,
// dropout, normalisation layers. Each maps to the backward kernel a real framework runs.
#include "grad/rules.hpp"

namespace nndna::grad {

using ir::OpKind;
using ir::TensorId;

namespace {

ir::OpAttrs withAxis(std::int64_t axis) {
  ir::OpAttrs attrs;
  attrs.axis = axis;
  return attrs;
}

ir::OpAttrs withScalar(double scalar) {
  ir::OpAttrs attrs;
  attrs.scalar = scalar;
  return attrs;
}

ir::OpAttrs convAttrs(const ir::OpAttrs& forward, Shape dims) {
  ir::OpAttrs attrs;
  attrs.kernel = forward.kernel;
  attrs.stride = forward.stride;
  attrs.padding = forward.padding;
  attrs.dilation = forward.dilation;
  attrs.groups = forward.groups;
  attrs.dims = std::move(dims);
  return attrs;
}

// LayerNorm / RMSNorm / BatchNorm2d: the input's and the weight's gradient kinds; the bias's is
// a sum of dy down to `biasShape` (then reshaped to the bias's own shape).
void normGrads(Emitter& e, const AdjointCall& c, OpKind inputKind, OpKind weightKind,
               const Shape& biasShape) {
  const TensorId x = c.op.inputs[0];
  const TensorId w = c.op.inputs[1];
  const double eps = c.op.attrs->scalar;
  if (c.need(0)) c.grads[0] = e.emit(inputKind, {c.dy, x, w}, withScalar(eps));
  if (c.need(1)) c.grads[1] = e.emit(weightKind, {c.dy, x}, withScalar(eps));
  if (c.op.inputs.size() > 2 && c.need(2)) {
    c.grads[2] = e.reshape(e.sumToShape(c.dy, biasShape), e.shape(c.op.inputs[2]));
  }
}

}  // namespace

void softmaxAdjoint(Emitter& e, const AdjointCall& c) {
  c.grads[0] = e.emit(OpKind::softmax_grad, {c.dy, c.op.out}, withAxis(c.op.attrs->axis));
}

void logSoftmaxAdjoint(Emitter& e, const AdjointCall& c) {
  c.grads[0] = e.emit(OpKind::log_softmax_grad, {c.dy, c.op.out}, withAxis(c.op.attrs->axis));
}

// Masked entries have y = 0, so softmax_grad gives them 0.
void softmaxCausalAdjoint(Emitter& e, const AdjointCall& c) {
  const auto last = static_cast<std::int64_t>(e.shape(c.dy).size()) - 1;
  c.grads[0] = e.emit(OpKind::softmax_grad, {c.dy, c.op.out}, withAxis(last));
}

void whereCausalAdjoint(Emitter& e, const AdjointCall& c) {
  c.grads[0] = e.emit(OpKind::where_causal, {c.dy}, withScalar(0.0));
}

void crossEntropyAdjoint(Emitter& e, const AdjointCall& c) {
  if (!c.need(0)) return;
  ir::OpAttrs attrs;
  attrs.reduction = c.op.attrs->reduction;
  c.grads[0] = e.emit(OpKind::cross_entropy_grad, {c.dy, c.op.inputs[0], c.op.inputs[1]}, std::move(attrs));
}

void nllLossAdjoint(Emitter& e, const AdjointCall& c) {
  if (!c.need(0)) return;
  ir::OpAttrs attrs;
  attrs.reduction = c.op.attrs->reduction;
  attrs.dims = e.shape(c.op.inputs[0]);
  c.grads[0] = e.emit(OpKind::nll_loss_grad, {c.dy, c.op.inputs[1]}, std::move(attrs));
}

void ropeAdjoint(Emitter& e, const AdjointCall& c) {
  c.grads[0] = e.emit(OpKind::rope_grad, {c.dy}, withScalar(c.op.attrs->scalar));
}

// The same p and seed: the backward applies the forward's mask and scale.
void dropoutAdjoint(Emitter& e, const AdjointCall& c) {
  ir::OpAttrs attrs;
  attrs.scalar = c.op.attrs->scalar;
  attrs.seed = c.op.attrs->seed;
  c.grads[0] = e.emit(OpKind::dropout, {c.dy}, std::move(attrs));
}

void conv2dAdjoint(Emitter& e, const AdjointCall& c) {
  const TensorId x = c.op.inputs[0];
  const TensorId w = c.op.inputs[1];
  if (c.need(0)) c.grads[0] = e.emit(OpKind::conv2d_input_grad, {c.dy, w}, convAttrs(c.op.attrs, e.shape(x)));
  if (c.need(1)) c.grads[1] = e.emit(OpKind::conv2d_weight_grad, {x, c.dy}, convAttrs(c.op.attrs, e.shape(w)));
}

// A transposed convolution is a convolution's input gradient: its own input gradient is that
// convolution (forward), its weight gradient the convolution's weight gradient with the roles of
// input and output swapped (the conv's input is our output).
void convTranspose2dAdjoint(Emitter& e, const AdjointCall& c) {
  const TensorId x = c.op.inputs[0];
  const TensorId w = c.op.inputs[1];
  if (c.need(0)) c.grads[0] = e.emit(OpKind::conv2d, {c.dy, w}, convAttrs(c.op.attrs, {}));
  if (c.need(1)) c.grads[1] = e.emit(OpKind::conv2d_weight_grad, {c.dy, x}, convAttrs(c.op.attrs, e.shape(w)));
}

void maxPool2dAdjoint(Emitter& e, const AdjointCall& c) {
  ir::OpAttrs attrs;
  attrs.kernel = c.op.attrs->kernel;
  attrs.stride = c.op.attrs->stride;
  attrs.padding = c.op.attrs->padding;
  attrs.ceilMode = c.op.attrs->ceilMode;
  c.grads[0] = e.emit(OpKind::max_pool2d_grad, {c.dy, c.op.inputs[0]}, std::move(attrs));
}

void avgPool2dAdjoint(Emitter& e, const AdjointCall& c) {
  ir::OpAttrs attrs;
  attrs.kernel = c.op.attrs->kernel;
  attrs.stride = c.op.attrs->stride;
  attrs.padding = c.op.attrs->padding;
  attrs.ceilMode = c.op.attrs->ceilMode;
  attrs.dims = e.shape(c.op.inputs[0]);
  c.grads[0] = e.emit(OpKind::avg_pool2d_grad, {c.dy}, std::move(attrs));
}

void nearestUpsample2dAdjoint(Emitter& e, const AdjointCall& c) {
  ir::OpAttrs attrs;
  attrs.count = c.op.attrs->count;
  c.grads[0] = e.emit(OpKind::nearest_upsample2d_grad, {c.dy}, std::move(attrs));
}

// Each is the other's transpose (a permutation of the elements).
void pixelShuffleAdjoint(Emitter& e, const AdjointCall& c) {
  ir::OpAttrs attrs;
  attrs.count = c.op.attrs->count;
  const OpKind inverse = c.op.kind == OpKind::pixel_shuffle ? OpKind::pixel_unshuffle : OpKind::pixel_shuffle;
  c.grads[0] = e.emit(inverse, {c.dy}, std::move(attrs));
}

void bilinearUpsample2dAdjoint(Emitter& e, const AdjointCall& c) {
  ir::OpAttrs attrs;
  attrs.count = c.op.attrs->count;
  attrs.alignCorners = c.op.attrs->alignCorners;
  c.grads[0] = e.emit(OpKind::bilinear_upsample2d_grad, {c.dy}, std::move(attrs));
}

void layerNormAdjoint(Emitter& e, const AdjointCall& c) {
  normGrads(e, c, OpKind::layer_norm_input_grad, OpKind::layer_norm_weight_grad, {e.shape(c.dy).back()});
}

void rmsNormAdjoint(Emitter& e, const AdjointCall& c) {
  normGrads(e, c, OpKind::rms_norm_input_grad, OpKind::rms_norm_weight_grad, {});
}

void batchNorm2dAdjoint(Emitter& e, const AdjointCall& c) {
  const Shape& dy = e.shape(c.dy);
  normGrads(e, c, OpKind::batch_norm2d_input_grad, OpKind::batch_norm2d_weight_grad, {dy.at(1), 1, 1});
}

// With the running statistics, y = (x - mean) · s + bias where s = weight / sqrt(var + eps) per
// channel: affine in x, so dx = dy · s, dweight = Σ dy · (x - mean) / sqrt(var + eps) and dbias =
// Σ dy over N, H, W. The running statistics are state (no gradient). Built from elementwise kinds
// on [C]-vectors and one [N, C, H, W] product each, as a framework's frozen BN backward is.
void batchNorm2dInferenceAdjoint(Emitter& e, const AdjointCall& c) {
  const TensorId x = c.op.inputs[0];
  const TensorId w = c.op.inputs[1];
  const TensorId mean = c.op.inputs[3];
  const TensorId var = c.op.inputs[4];
  const std::int64_t channels = e.shape(x).at(1);
  const Shape perChannel = {channels, 1, 1};
  if (c.need(2)) c.grads[2] = e.reshape(e.sumToShape(c.dy, perChannel), {channels});
  if (!c.need(0) && !c.need(1)) return;
  const TensorId inv = e.unary(OpKind::rsqrt, e.scalar(OpKind::add, var, c.op.attrs->scalar));
  if (c.need(0)) {
    c.grads[0] = e.binary(OpKind::mul, c.dy, e.reshape(e.binary(OpKind::mul, w, inv), perChannel));
  }
  if (c.need(1)) {
    const TensorId xhat = e.binary(OpKind::mul, e.binary(OpKind::sub, x, e.reshape(mean, perChannel)),
                                   e.reshape(inv, perChannel));
    c.grads[1] = e.reshape(e.sumToShape(e.binary(OpKind::mul, c.dy, xhat), perChannel), {channels});
  }
}

// GroupNorm's own backward kinds (one fused kernel each, as for the other norms); the bias's
// gradient is dy summed to [C, 1, ...].
void groupNormAdjoint(Emitter& e, const AdjointCall& c) {
  const TensorId x = c.op.inputs[0];
  const bool affine = c.op.inputs.size() == 3;
  ir::OpAttrs attrs;
  attrs.scalar = c.op.attrs->scalar;
  attrs.count = c.op.attrs->count;
  if (c.need(0)) {
    std::vector<TensorId> inputs = {c.dy, x};
    if (affine) inputs.push_back(c.op.inputs[1]);
    c.grads[0] = e.emit(OpKind::group_norm_input_grad, std::move(inputs), attrs);
  }
  if (!affine) return;
  if (c.need(1)) c.grads[1] = e.emit(OpKind::group_norm_weight_grad, {c.dy, x}, attrs);
  if (c.need(2)) {
    Shape perChannel(e.shape(x).size() - 1, 1);
    perChannel[0] = e.shape(x)[1];
    c.grads[2] = e.reshape(e.sumToShape(c.dy, perChannel), e.shape(c.op.inputs[2]));
  }
}

}  // namespace nndna::grad
