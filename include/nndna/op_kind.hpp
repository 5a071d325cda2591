// The kinds of IR ops, named one-to-one after the model API, plus internal kinds.
//
// Adding an op touches, in order:
//   1. this list (name, attributes it uses);
//   2. its builder and shape/dtype rule (src/ops/*.cpp), declared in nndna.hpp if public;
//   3. its adjoint rule (src/grad), or its entry in the non-differentiable list;
//   4. its reference evaluation (src/eval);
//   5. its kernel rule (src/compile/kernels.cpp) and FLOP rule if it has one (diagram metrics);
//   6. the JSON reader's attribute validation (src/ir/ir_json.cpp) if it has attributes;
//   7. tests: its shape rule and errors (tests/core), its finite-difference check (tests/grad);
//   8. docs/ir.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace nndna::ir {

// X(kind) for every op kind. Attributes used (fields of OpAttrs) in the trailing comment.
#define NNDNA_OP_KINDS(X)                                                                   \
  /* leaves: no inputs */                                                                   \
  X(param_input)   /* name */                                                               \
  X(tensor_input)  /* name */                                                               \
  X(state_input)   /* name */                                                               \
  /* constants */                                                                           \
  X(zeros)         /* dims, dtype */                                                        \
  X(ones)          /* dims, dtype */                                                        \
  X(arange)        /* count, dtype */                                                       \
  X(randn)         /* dims, seed */                                                         \
  /* elementwise unary */                                                                   \
  X(sqrt) X(rsqrt) X(log) X(exp) X(neg) X(abs) X(square) X(sin) X(cos) X(erf)               \
  X(relu) X(tanh) X(sigmoid)                                                                \
  X(gelu)          /* approximate */                                                        \
  X(silu)                                                                                   \
  X(leaky_relu)    /* scalar = alpha */                                                     \
  X(softplus)                                                                               \
  X(clamp)         /* scalar = low, scalar2 = high */                                       \
  /* elementwise binary: 2 inputs, or 1 input + scalar (scalarOperand, scalarLeft) */       \
  X(add) X(sub) X(mul) X(div) X(min) X(max) X(less) X(greater)                              \
  X(where)         /* 3 inputs: cond, ifTrue, ifFalse */                                    \
  /* reductions */                                                                          \
  X(mean)          /* axis | allAxes, keepDims */                                           \
  X(sum)           /* axis | allAxes, keepDims */                                           \
  X(argmax)        /* axis */                                                               \
  X(argmin)        /* axis */                                                               \
  /* shape (reshape and permute are views: no kernel) */                                    \
  X(reshape)       /* dims = target shape */                                                \
  X(permute)       /* dims = axes; swapAxes lowers to permute */                            \
  /* linear algebra */                                                                      \
  X(matmul)                                                                                 \
  /* indexing */                                                                            \
  X(one_hot)       /* count = depth */                                                      \
  X(embedding)     /* inputs: table, indices */                                             \
  X(take_along_axis) /* axis */                                                             \
  /* slicing and joining; split lowers to one narrow per piece */                           \
  X(narrow)        /* axis, start, count = length */                                        \
  X(concat)        /* axis */                                                               \
  X(stack)         /* axis */                                                               \
  /* fused ML ops */                                                                        \
  X(softmax)       /* axis */                                                               \
  X(log_softmax)   /* axis */                                                               \
  X(softmax_causal)                                                                         \
  X(where_causal)  /* scalar = fill */                                                      \
  X(categorical)   /* axis, seed */                                                         \
  /* attention layout */                                                                    \
  X(split_heads)   /* count = heads */                                                      \
  X(merge_heads)                                                                            \
  X(rope)          /* scalar = base; one op per rotated tensor */                           \
  /* convolution and pooling */                                                             \
  X(conv2d)        /* stride, padding, groups (kernel from the weight) */                   \
  X(max_pool2d)    /* kernel, stride, padding */                                            \
  X(nearest_upsample2d) /* count = factor */                                                \
  /* stochastic and gradient control */                                                     \
  X(dropout)       /* scalar = p, seed */                                                   \
  X(stop_gradient)                                                                          \
  X(capture)       /* name */                                                               \
  /* losses: inputs logits|logProbs, targets */                                             \
  X(cross_entropy) /* reduction */                                                          \
  X(nll_loss)      /* reduction */                                                          \
  /* normalisation layers, each one fused op */                                             \
  X(layer_norm)    /* inputs x, weight[, bias]; scalar = eps */                             \
  X(rms_norm)      /* inputs x, weight; scalar = eps */                                     \
  X(batch_norm2d)  /* inputs x, weight, bias; scalar = eps (batch statistics) */            \
  X(batch_norm2d_inference) /* inputs x, weight, bias, mean, var; scalar = eps */

enum class OpKind : std::uint8_t {
#define NNDNA_OP_ENUM(name) name,
  NNDNA_OP_KINDS(NNDNA_OP_ENUM)
#undef NNDNA_OP_ENUM
};

// "matmul", "param_input", ... (the JSON and diagram spelling).
std::string_view opKindName(OpKind kind);
std::optional<OpKind> opKindFromName(std::string_view name);
// Number of op kinds.
std::size_t opKindCount();

// Classification used across stages.
bool isLeafKind(OpKind kind);  // param_input, tensor_input, state_input
bool isElementwiseUnary(OpKind kind);
bool isElementwiseBinary(OpKind kind);
// Shape-only views that launch no kernel and allocate no memory.
bool isViewKind(OpKind kind);

}  // namespace nndna::ir
