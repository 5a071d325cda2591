// Adjoint rules: one per differentiable kind (ir::Grad::adjoint in the op table), grouped by
// family in the rules_*.cpp files; adjoints.cpp maps each kind to its rule.
#pragma once

#include <cstdint>
#include <span>

#include "grad/emitter.hpp"
#include "nndna/export.hpp"

namespace nndna::grad {

struct AdjointCall {
  const ir::Op& op;                    // the forward op (a copy: the graph grows meanwhile)
  ir::TensorId dy;                     // gradient of op.out
  std::span<const std::uint8_t> needs; // per input: whether it needs a gradient
  std::span<ir::TensorId> grads;       // per input: set to its gradient contribution
  bool need(std::size_t i) const { return needs[i] != 0; }
};

// Sets call.grads[i] for every input i the call needs (leaving ir::kNone where no gradient flows).
using AdjointRule = void (*)(Emitter& e, const AdjointCall& call);

// The adjoint rule of `kind`; nullptr exactly for the kinds the op table marks Grad::blocked or
// Grad::unsupported (tests/core/op_table_test.cpp checks both directions).
// Exported (NNDNA_API) for that test, which links the shared libnndna.
NNDNA_API AdjointRule adjointFor(ir::OpKind kind);

// rules_elementwise.cpp: unary math, activations, arithmetic, where.
void sqrtAdjoint(Emitter& e, const AdjointCall& call);
void rsqrtAdjoint(Emitter& e, const AdjointCall& call);
void logAdjoint(Emitter& e, const AdjointCall& call);
void expAdjoint(Emitter& e, const AdjointCall& call);
void negAdjoint(Emitter& e, const AdjointCall& call);
void squareAdjoint(Emitter& e, const AdjointCall& call);
void powAdjoint(Emitter& e, const AdjointCall& call);
void sinAdjoint(Emitter& e, const AdjointCall& call);
void cosAdjoint(Emitter& e, const AdjointCall& call);
void erfAdjoint(Emitter& e, const AdjointCall& call);
// Activations with a backward kernel of their own (relu -> relu_grad, ...): GradKind(dy, saved)
// with the forward op's attributes (alpha, bounds, approximate), where `saved` is the forward's
// output (FromOutput: tanh, sigmoid) or its input.
template <ir::OpKind GradKind, bool FromOutput>
void activationAdjoint(Emitter& e, const AdjointCall& call) {
  const ir::TensorId saved = FromOutput ? call.op.out : call.op.inputs[0];
  call.grads[0] = e.emit(GradKind, {call.dy, saved}, call.op.attrs);
}
void addAdjoint(Emitter& e, const AdjointCall& call);
void subAdjoint(Emitter& e, const AdjointCall& call);
void mulAdjoint(Emitter& e, const AdjointCall& call);
void divAdjoint(Emitter& e, const AdjointCall& call);
void minMaxAdjoint(Emitter& e, const AdjointCall& call);
void whereAdjoint(Emitter& e, const AdjointCall& call);

// rules_structural.cpp: reductions, layout, matmul, indexing, slicing and joining, identities.
void reduceAdjoint(Emitter& e, const AdjointCall& call);
void broadcastToAdjoint(Emitter& e, const AdjointCall& c);
void reshapeAdjoint(Emitter& e, const AdjointCall& call);
void permuteAdjoint(Emitter& e, const AdjointCall& call);
void matmulAdjoint(Emitter& e, const AdjointCall& call);
void embeddingAdjoint(Emitter& e, const AdjointCall& call);
void takeAlongAxisAdjoint(Emitter& e, const AdjointCall& call);
void narrowAdjoint(Emitter& e, const AdjointCall& call);
void padAdjoint(Emitter& e, const AdjointCall& call);
void cumsumAdjoint(Emitter& e, const AdjointCall& call);
void concatAdjoint(Emitter& e, const AdjointCall& call);
void stackAdjoint(Emitter& e, const AdjointCall& call);
void splitHeadsAdjoint(Emitter& e, const AdjointCall& call);
void mergeHeadsAdjoint(Emitter& e, const AdjointCall& call);
void identityAdjoint(Emitter& e, const AdjointCall& call);

// rules_nn.cpp: softmax family, losses, rope, convolution and pooling, dropout, norms.
void softmaxAdjoint(Emitter& e, const AdjointCall& call);
void logSoftmaxAdjoint(Emitter& e, const AdjointCall& call);
void softmaxCausalAdjoint(Emitter& e, const AdjointCall& call);
void whereCausalAdjoint(Emitter& e, const AdjointCall& call);
void crossEntropyAdjoint(Emitter& e, const AdjointCall& call);
void nllLossAdjoint(Emitter& e, const AdjointCall& call);
void ropeAdjoint(Emitter& e, const AdjointCall& call);
void dropoutAdjoint(Emitter& e, const AdjointCall& call);
void conv2dAdjoint(Emitter& e, const AdjointCall& call);
void convTranspose2dAdjoint(Emitter& e, const AdjointCall& call);
void maxPool2dAdjoint(Emitter& e, const AdjointCall& call);
void avgPool2dAdjoint(Emitter& e, const AdjointCall& call);
void nearestUpsample2dAdjoint(Emitter& e, const AdjointCall& call);
void bilinearUpsample2dAdjoint(Emitter& e, const AdjointCall& call);
void pixelShuffleAdjoint(Emitter& e, const AdjointCall& call);  // and pixel_unshuffle's
void layerNormAdjoint(Emitter& e, const AdjointCall& call);
void rmsNormAdjoint(Emitter& e, const AdjointCall& call);
void batchNorm2dAdjoint(Emitter& e, const AdjointCall& call);
void batchNorm2dInferenceAdjoint(Emitter& e, const AdjointCall& call);
void groupNormAdjoint(Emitter& e, const AdjointCall& call);

}  // namespace nndna::grad
