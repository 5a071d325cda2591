// Adjoint rules, one per differentiable kind, grouped by family. Each family's function handles
// the kinds it knows and returns false for the others.
#pragma once

#include <cstdint>
#include <span>

#include "grad/emitter.hpp"

namespace nndna::grad {

struct AdjointCall {
  const ir::Op& op;                    // the forward op (a copy: the graph grows meanwhile)
  ir::TensorId dy;                     // gradient of op.out
  std::span<const std::uint8_t> needs; // per input: whether it needs a gradient
  std::span<ir::TensorId> grads;       // per input: set to its gradient contribution
  bool need(std::size_t i) const { return needs[i] != 0; }
};

// add sub mul div min max where, unary math and activations.
bool elementwiseAdjoint(Emitter& e, const AdjointCall& call);
// reductions, reshape/permute, matmul, indexing, slicing and joining, heads, identities.
bool structuralAdjoint(Emitter& e, const AdjointCall& call);
// softmax family, losses, rope, conv/pool/upsample, dropout, norms.
bool nnAdjoint(Emitter& e, const AdjointCall& call);

}  // namespace nndna::grad
