// Which adjoint rule each kind has: the one per-kind table of autodiff.
#include "grad/rules.hpp"

namespace nndna::grad {

using ir::OpKind;

AdjointRule adjointFor(OpKind kind) {
  switch (kind) {
    case OpKind::sqrt: return sqrtAdjoint;
    case OpKind::rsqrt: return rsqrtAdjoint;
    case OpKind::log: return logAdjoint;
    case OpKind::exp: return expAdjoint;
    case OpKind::neg: return negAdjoint;
    case OpKind::square: return squareAdjoint;
    case OpKind::pow: return powAdjoint;
    case OpKind::sin: return sinAdjoint;
    case OpKind::cos: return cosAdjoint;
    case OpKind::erf: return erfAdjoint;
    case OpKind::abs: return activationAdjoint<OpKind::abs_grad, false>;
    case OpKind::relu: return activationAdjoint<OpKind::relu_grad, false>;
    case OpKind::tanh: return activationAdjoint<OpKind::tanh_grad, true>;
    case OpKind::sigmoid: return activationAdjoint<OpKind::sigmoid_grad, true>;
    case OpKind::gelu: return activationAdjoint<OpKind::gelu_grad, false>;
    case OpKind::silu: return activationAdjoint<OpKind::silu_grad, false>;
    case OpKind::leaky_relu: return activationAdjoint<OpKind::leaky_relu_grad, false>;
    case OpKind::softplus: return activationAdjoint<OpKind::softplus_grad, false>;
    case OpKind::clamp: return activationAdjoint<OpKind::clamp_grad, false>;
    case OpKind::add: return addAdjoint;
    case OpKind::sub: return subAdjoint;
    case OpKind::mul: return mulAdjoint;
    case OpKind::div: return divAdjoint;
    case OpKind::min: case OpKind::max: return minMaxAdjoint;
    case OpKind::where: return whereAdjoint;
    case OpKind::mean: case OpKind::sum: return reduceAdjoint;
    case OpKind::cumsum: return cumsumAdjoint;
    case OpKind::reshape: return reshapeAdjoint;
    case OpKind::permute: return permuteAdjoint;
    case OpKind::broadcast_to: return broadcastToAdjoint;
    case OpKind::matmul: return matmulAdjoint;
    case OpKind::embedding: return embeddingAdjoint;
    case OpKind::take_along_axis: return takeAlongAxisAdjoint;
    case OpKind::narrow: return narrowAdjoint;
    case OpKind::pad: return padAdjoint;
    case OpKind::concat: return concatAdjoint;
    case OpKind::stack: return stackAdjoint;
    case OpKind::softmax: return softmaxAdjoint;
    case OpKind::log_softmax: return logSoftmaxAdjoint;
    case OpKind::softmax_causal: return softmaxCausalAdjoint;
    case OpKind::where_causal: return whereCausalAdjoint;
    case OpKind::split_heads: return splitHeadsAdjoint;
    case OpKind::merge_heads: return mergeHeadsAdjoint;
    case OpKind::rope: return ropeAdjoint;
    case OpKind::conv2d: return conv2dAdjoint;
    case OpKind::conv_transpose2d: return convTranspose2dAdjoint;
    case OpKind::max_pool2d: return maxPool2dAdjoint;
    case OpKind::avg_pool2d: return avgPool2dAdjoint;
    case OpKind::nearest_upsample2d: return nearestUpsample2dAdjoint;
    case OpKind::bilinear_upsample2d: return bilinearUpsample2dAdjoint;
    case OpKind::pixel_shuffle: case OpKind::pixel_unshuffle: return pixelShuffleAdjoint;
    case OpKind::dropout: return dropoutAdjoint;
    case OpKind::capture: return identityAdjoint;
    case OpKind::cross_entropy: return crossEntropyAdjoint;
    case OpKind::nll_loss: return nllLossAdjoint;
    case OpKind::layer_norm: return layerNormAdjoint;
    case OpKind::rms_norm: return rmsNormAdjoint;
    case OpKind::batch_norm2d: return batchNorm2dAdjoint;
    case OpKind::batch_norm2d_inference: return batchNorm2dInferenceAdjoint;
    case OpKind::group_norm: return groupNormAdjoint;
    // Grad::blocked: no gradient flows through them.
    case OpKind::param_input: case OpKind::tensor_input: case OpKind::state_input:
    case OpKind::zeros: case OpKind::ones: case OpKind::arange: case OpKind::randn:
    case OpKind::less: case OpKind::greater: case OpKind::argmax: case OpKind::argmin:
    case OpKind::topk:
    case OpKind::one_hot: case OpKind::categorical: case OpKind::stop_gradient:
    // Grad::unsupported: no second-order autodiff.
    case OpKind::sum_to_shape: case OpKind::relu_grad:
    case OpKind::gelu_grad: case OpKind::silu_grad: case OpKind::leaky_relu_grad:
    case OpKind::softplus_grad: case OpKind::clamp_grad: case OpKind::abs_grad:
    case OpKind::tanh_grad: case OpKind::sigmoid_grad: case OpKind::softmax_grad:
    case OpKind::log_softmax_grad: case OpKind::cross_entropy_grad: case OpKind::nll_loss_grad:
    case OpKind::embedding_grad: case OpKind::take_along_axis_grad: case OpKind::narrow_grad:
    case OpKind::cumsum_grad:
    case OpKind::rope_grad: case OpKind::conv2d_input_grad: case OpKind::conv2d_weight_grad:
    case OpKind::max_pool2d_grad: case OpKind::avg_pool2d_grad: case OpKind::nearest_upsample2d_grad:
    case OpKind::bilinear_upsample2d_grad:
    case OpKind::layer_norm_input_grad: case OpKind::layer_norm_weight_grad:
    case OpKind::rms_norm_input_grad: case OpKind::rms_norm_weight_grad:
    case OpKind::batch_norm2d_input_grad: case OpKind::batch_norm2d_weight_grad:
    case OpKind::group_norm_input_grad: case OpKind::group_norm_weight_grad:
    case OpKind::batch_norm2d_running_mean: case OpKind::batch_norm2d_running_var:
    case OpKind::adam_moment1: case OpKind::adam_moment2: case OpKind::adam_update:
    case OpKind::sgd_momentum: case OpKind::sgd_update:
      return nullptr;
  }
  return nullptr;
}

}  // namespace nndna::grad
