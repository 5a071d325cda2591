// The kinds of IR ops, named one-to-one after the model API, plus internal kinds.
//
// Adding an op touches, in order:
//   1. this list (name, attributes it uses);
//   2. its builder and shape/dtype rule (src/ops/*.cpp), declared in nndna.hpp if public;
//   3. its adjoint rule (src/grad), or its entry in the non-differentiable list;
//   4. its reference evaluation (src/eval);
//   5. its kernel rule (src/compile/kernels.cpp) and FLOP rule if it has one (diagram metrics);
//      internal kinds: their output shape rule lives where they are made (src/grad/emit.cpp);
//   6. the JSON reader's attribute validation (src/ir/ir_json.cpp) if it has attributes;
//   7. tests: its shape rule and errors (tests/core), its finite-difference check (tests/eval);
//   8. docs/ir.md (internal kinds: section "Backward and optimizer kinds").
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
  X(batch_norm2d_inference) /* inputs x, weight, bias, mean, var; scalar = eps */            \
  /* ===== internal kinds: made by autodiff (src/grad) and optimizer lowering (src/optim), */ \
  /* never by a spec. Semantics in docs/ir.md "Backward and optimizer kinds". dy is the   */ \
  /* gradient flowing into the forward op's output; x its input; y its output.            */ \
  /* layout */                                                                              \
  X(broadcast_to)  /* x; dims = target: NumPy-broadcast x to dims (a view, no kernel) */    \
  X(sum_to_shape)  /* dy; dims = target: sum dy over the axes broadcasting added */         \
  /* activation backward */                                                                 \
  X(relu_grad)     /* dy, x: dy where x > 0, else 0 */                                      \
  X(gelu_grad)     /* dy, x; approximate: dy * gelu'(x) */                                  \
  X(silu_grad)     /* dy, x: dy * s * (1 + x * (1 - s)), s = sigmoid(x) */                  \
  X(leaky_relu_grad) /* dy, x; scalar = alpha: dy where x > 0, else alpha * dy */           \
  X(softplus_grad) /* dy, x: dy * sigmoid(x) */                                             \
  X(clamp_grad)    /* dy, x; scalar = low, scalar2 = high: dy where low <= x <= high else 0 */ \
  X(abs_grad)      /* dy, x: dy * sign(x) (0 at x = 0) */                                   \
  X(tanh_grad)     /* dy, y: dy * (1 - y^2) */                                              \
  X(sigmoid_grad)  /* dy, y: dy * y * (1 - y) */                                            \
  /* fused backward */                                                                      \
  X(softmax_grad)  /* dy, y; axis: y * (dy - sum(dy * y, axis)) */                          \
  X(log_softmax_grad) /* dy, y; axis: dy - exp(y) * sum(dy, axis) */                        \
  X(cross_entropy_grad) /* dy, logits, targets; reduction: [..., C] */                      \
  X(nll_loss_grad) /* dy, targets; reduction, dims = logProbs shape [..., C] */             \
  X(embedding_grad) /* dy, indices; count = vocab: [vocab, dim] scatter-add */              \
  X(take_along_axis_grad) /* dy, indices; axis, dims = input shape: scatter-add */          \
  X(narrow_grad)   /* dy; axis, start, dims = input shape: zero-padded dy */                \
  X(rope_grad)     /* dy; scalar = base: the transpose of rope (rotate by -theta) */        \
  X(conv2d_input_grad)  /* dy, weight; stride, padding, groups, dims = input shape */       \
  X(conv2d_weight_grad) /* x, dy; stride, padding, groups, kernel, dims = weight shape */   \
  X(max_pool2d_grad) /* dy, x; kernel, stride, padding: dy to each window's first max */    \
  X(nearest_upsample2d_grad) /* dy; count = factor: sum of each factor x factor block */    \
  X(layer_norm_input_grad)  /* dy, x, weight; scalar = eps: dL/dx */                        \
  X(layer_norm_weight_grad) /* dy, x; scalar = eps: sum over leading axes of dy * xhat */   \
  X(rms_norm_input_grad)    /* dy, x, weight; scalar = eps: dL/dx */                        \
  X(rms_norm_weight_grad)   /* dy, x; scalar = eps: sum over leading axes of dy * xhat */   \
  X(batch_norm2d_input_grad)  /* dy, x, weight; scalar = eps: dL/dx (batch statistics) */   \
  X(batch_norm2d_weight_grad) /* dy, x; scalar = eps: sum over N, H, W of dy * xhat: [C] */ \
  /* state and parameter updates (Phase::optimizer) */                                      \
  X(batch_norm2d_running_mean) /* x, running_mean; scalar = momentum */                     \
  X(batch_norm2d_running_var)  /* x, running_var; scalar = momentum (unbiased variance) */  \
  X(adam_moment1)  /* m, g; scalar = beta1: beta1 * m + (1 - beta1) * g */                  \
  X(adam_moment2)  /* v, g; scalar = beta2: beta2 * v + (1 - beta2) * g^2 */                \
  X(adam_update)   /* p, m, v, lr, bc1, bc2; scalar = eps, scalar2 = weight decay */        \
  X(sgd_momentum)  /* buf, g; scalar = momentum: momentum * buf + g */                      \
  X(sgd_update)    /* p, d, lr: p - lr * d */

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
