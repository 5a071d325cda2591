// The op table: every kind of IR op, and everything the stages need to know about it.
//
// One row per kind, named one-to-one after the model API, plus the internal kinds autodiff and
// optimizer lowering make. Each row says how many inputs the kind takes, which attributes (fields
// of OpAttrs) it uses, its flags, and whether gradients flow through it. The classifiers below
// are generated from it; every other per-kind rule (shape rule, adjoint, evaluator kernel, FLOP
// rule) is an exhaustive `switch` or a table pinned to kOpKindCount. docs/ops.md is the
// checklist for adding a kind; tests/core/op_table_test.cpp checks that every kind has every rule.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "nndna/export.hpp"

NNDNA_API_BEGIN  // the whole header is libnndna's interface (export.hpp)

namespace nndna::ir {

// The attributes a kind uses, as a set. An op's attribute outside its kind's set must keep its
// default value (the JSON reader rejects it otherwise).
using AttrSet = std::uint32_t;
namespace attr {
inline constexpr AttrSet none = 0;
inline constexpr AttrSet name = 1u << 0;
inline constexpr AttrSet dims = 1u << 1;
inline constexpr AttrSet axis = 1u << 2;
inline constexpr AttrSet all_axes = 1u << 3;
inline constexpr AttrSet keep_dims = 1u << 4;
inline constexpr AttrSet start = 1u << 5;
inline constexpr AttrSet count = 1u << 6;
inline constexpr AttrSet scalar = 1u << 7;
inline constexpr AttrSet scalar2 = 1u << 8;
inline constexpr AttrSet scalar_operand = 1u << 9;
inline constexpr AttrSet scalar_left = 1u << 10;
inline constexpr AttrSet approximate = 1u << 11;
inline constexpr AttrSet dtype = 1u << 12;
inline constexpr AttrSet reduction = 1u << 13;
inline constexpr AttrSet kernel = 1u << 14;
inline constexpr AttrSet stride = 1u << 15;
inline constexpr AttrSet padding = 1u << 16;
inline constexpr AttrSet groups = 1u << 17;
inline constexpr AttrSet seed = 1u << 18;
// Axis names (OpAttrs::names) of `dims` or of `count`: see the kinds that take them.
inline constexpr AttrSet names = 1u << 19;
// A convolution's spacing between kernel taps (PyTorch's dilation), per spatial axis.
inline constexpr AttrSet dilation = 1u << 20;
// Bilinear upsampling's sampling grid (PyTorch's align_corners).
inline constexpr AttrSet align_corners = 1u << 21;
// A pool's last window may start past the last full one (PyTorch's ceil_mode).
inline constexpr AttrSet ceil_mode = 1u << 22;
// An embedding's row that reads as zeros and gets no gradient (PyTorch's padding_idx).
inline constexpr AttrSet padding_idx = 1u << 23;
// A binary op's number operand (`mul(x, 0.1)`, `sub(1, x)`).
inline constexpr AttrSet number = scalar | scalar_operand | scalar_left;
inline constexpr AttrSet conv = kernel | stride | padding | dilation | groups;
inline constexpr AttrSet window = kernel | stride | padding;
inline constexpr AttrSet pool = window | ceil_mode;
}  // namespace attr

using OpFlags = std::uint8_t;
namespace flag {
inline constexpr OpFlags none = 0;
// No inputs; its value comes from outside the graph (parameters, data inputs, state).
inline constexpr OpFlags leaf = 1u << 0;
// Elementwise on one input: the output has the input's shape.
inline constexpr OpFlags unary = 1u << 1;
// Elementwise on two NumPy-broadcast inputs, or on one input and a number (attr::number).
inline constexpr OpFlags binary = 1u << 2;
// The output is its input read another way (reshaped, permuted, broadcast, aliased): it
// launches no GPU kernel and holds no memory of its own. The one definition of "view": kernels,
// activation memory and the evaluator all read it.
inline constexpr OpFlags view = 1u << 3;
// Draws random numbers; the op carries the seed of its stream (attr::seed).
inline constexpr OpFlags stochastic = 1u << 4;
// Made by autodiff or optimizer lowering (src/grad, src/optim), never by a spec; never in the
// forward phase.
inline constexpr OpFlags internal = 1u << 5;
}  // namespace flag

// How gradients pass through a kind.
enum class Grad : std::uint8_t {
  adjoint,      // differentiable: src/grad has its adjoint rule
  blocked,      // no gradient flows through it (integer/boolean results, constants, leaves,
                // stop_gradient): autodiff treats its output as a constant, without error
  unsupported,  // differentiable in principle but without an adjoint rule (the internal kinds:
                // there is no second-order autodiff): needing its gradient is a TraceError at
                // the spec line
};

// Inputs of a variadic kind: at least the minimum, no maximum.
inline constexpr std::uint8_t kVariadic = 0xff;

// X(kind, min inputs, max inputs, attributes, flags, grad). Input roles, and the output rule of
// each internal kind, are in docs/ir.md; the shape and dtype rule of every kind is in
// src/ir/shape_rules.cpp.
#define NNDNA_OP_KINDS(X)                                                                     \
  /* leaves */                                                                                \
  X(param_input, 0, 0, attr::name, flag::leaf, Grad::blocked)                                 \
  X(tensor_input, 0, 0, attr::name, flag::leaf, Grad::blocked)                                \
  X(state_input, 0, 0, attr::name, flag::leaf, Grad::blocked)                                 \
  /* constants */                                                                             \
  X(zeros, 0, 0, attr::dims | attr::names | attr::dtype, flag::none, Grad::blocked)           \
  X(ones, 0, 0, attr::dims | attr::names | attr::dtype, flag::none, Grad::blocked)            \
  /* arange: count = the length, scalar = start, scalar2 = step */                            \
  X(arange, 0, 0, attr::count | attr::names | attr::scalar | attr::scalar2 | attr::dtype, flag::none, Grad::blocked) \
  X(randn, 0, 0, attr::dims | attr::names | attr::seed, flag::stochastic, Grad::blocked)      \
  /* elementwise unary */                                                                     \
  X(sqrt, 1, 1, attr::none, flag::unary, Grad::adjoint)                                       \
  X(rsqrt, 1, 1, attr::none, flag::unary, Grad::adjoint)                                      \
  X(log, 1, 1, attr::none, flag::unary, Grad::adjoint)                                        \
  X(exp, 1, 1, attr::none, flag::unary, Grad::adjoint)                                        \
  X(neg, 1, 1, attr::none, flag::unary, Grad::adjoint)                                        \
  X(abs, 1, 1, attr::none, flag::unary, Grad::adjoint)                                        \
  X(square, 1, 1, attr::none, flag::unary, Grad::adjoint)                                     \
  X(sin, 1, 1, attr::none, flag::unary, Grad::adjoint)                                        \
  X(cos, 1, 1, attr::none, flag::unary, Grad::adjoint)                                        \
  X(erf, 1, 1, attr::none, flag::unary, Grad::adjoint)                                        \
  X(relu, 1, 1, attr::none, flag::unary, Grad::adjoint)                                       \
  X(tanh, 1, 1, attr::none, flag::unary, Grad::adjoint)                                       \
  X(sigmoid, 1, 1, attr::none, flag::unary, Grad::adjoint)                                    \
  X(gelu, 1, 1, attr::approximate, flag::unary, Grad::adjoint)                                \
  X(silu, 1, 1, attr::none, flag::unary, Grad::adjoint)                                       \
  X(leaky_relu, 1, 1, attr::scalar, flag::unary, Grad::adjoint) /* scalar = alpha */          \
  X(softplus, 1, 1, attr::none, flag::unary, Grad::adjoint)                                   \
  X(clamp, 1, 1, attr::scalar | attr::scalar2, flag::unary, Grad::adjoint) /* low, high */    \
  X(pow, 1, 1, attr::scalar, flag::unary, Grad::adjoint) /* scalar = the exponent */          \
  /* elementwise binary: two inputs, or one input and a number */                             \
  X(add, 1, 2, attr::number, flag::binary, Grad::adjoint)                                     \
  X(sub, 1, 2, attr::number, flag::binary, Grad::adjoint)                                     \
  X(mul, 1, 2, attr::number, flag::binary, Grad::adjoint)                                     \
  X(div, 1, 2, attr::number, flag::binary, Grad::adjoint)                                     \
  X(min, 1, 2, attr::number, flag::binary, Grad::adjoint)                                     \
  X(max, 1, 2, attr::number, flag::binary, Grad::adjoint)                                     \
  X(less, 1, 2, attr::number, flag::binary, Grad::blocked)                                    \
  X(greater, 1, 2, attr::number, flag::binary, Grad::blocked)                                 \
  X(where, 3, 3, attr::none, flag::none, Grad::adjoint) /* cond, ifTrue, ifFalse */           \
  /* reductions: over `axis`, or every axis (all_axes) */                                     \
  X(mean, 1, 1, attr::axis | attr::all_axes | attr::keep_dims, flag::none, Grad::adjoint)     \
  X(sum, 1, 1, attr::axis | attr::all_axes | attr::keep_dims, flag::none, Grad::adjoint)      \
  X(argmax, 1, 1, attr::axis, flag::none, Grad::blocked)                                      \
  X(argmin, 1, 1, attr::axis, flag::none, Grad::blocked)                                      \
  X(cumsum, 1, 1, attr::axis, flag::none, Grad::adjoint) /* inclusive running sum */          \
  X(topk, 1, 1, attr::axis | attr::count | attr::names, flag::none, Grad::blocked) /* k; i32 indices */ \
  /* shape: dims = the target shape / the axes; swapAxes lowers to permute */                 \
  X(reshape, 1, 1, attr::dims | attr::names, flag::view, Grad::adjoint)                       \
  X(permute, 1, 1, attr::dims, flag::view, Grad::adjoint)                                     \
  X(broadcast_to, 1, 1, attr::dims | attr::names, flag::view, Grad::adjoint) /* NumPy broadcast, a view */ \
  /* linear algebra */                                                                        \
  X(matmul, 2, 2, attr::none, flag::none, Grad::adjoint)                                      \
  /* indexing */                                                                              \
  X(one_hot, 1, 1, attr::count | attr::names | attr::dtype, flag::none, Grad::blocked) /* count = depth */ \
  X(embedding, 2, 2, attr::padding_idx, flag::none, Grad::adjoint) /* table, indices */       \
  X(take_along_axis, 2, 2, attr::axis, flag::none, Grad::adjoint) /* input, indices */        \
  /* slicing and joining; split lowers to one narrow per piece */                             \
  X(narrow, 1, 1, attr::axis | attr::start | attr::count | attr::names, flag::none, Grad::adjoint) \
  /* pad: dims = (before, after) per axis; scalar = the fill value */                         \
  X(pad, 1, 1, attr::dims | attr::scalar, flag::none, Grad::adjoint)                          \
  X(concat, 1, kVariadic, attr::axis, flag::none, Grad::adjoint)                              \
  X(stack, 1, kVariadic, attr::axis, flag::none, Grad::adjoint)                               \
  /* fused ML ops */                                                                          \
  X(softmax, 1, 1, attr::axis, flag::none, Grad::adjoint)                                     \
  X(log_softmax, 1, 1, attr::axis, flag::none, Grad::adjoint)                                 \
  X(softmax_causal, 1, 1, attr::none, flag::none, Grad::adjoint)                              \
  X(where_causal, 1, 1, attr::scalar, flag::none, Grad::adjoint) /* scalar = fill */          \
  X(categorical, 1, 1, attr::axis | attr::seed, flag::stochastic, Grad::blocked)              \
  /* attention layout */                                                                      \
  X(split_heads, 1, 1, attr::count | attr::names, flag::view, Grad::adjoint) /* count = heads */ \
  X(merge_heads, 1, 1, attr::none, flag::none, Grad::adjoint)                                 \
  X(rope, 1, 1, attr::scalar, flag::none, Grad::adjoint) /* scalar = base */                  \
  /* convolution and pooling (kernel: the weight's kH, kW) */                                 \
  X(conv2d, 2, 2, attr::conv, flag::none, Grad::adjoint) /* input, weight */                  \
  /* x, weight [inC, outC/groups, kH, kW]; dims = output shape (fixes outputPadding) */       \
  X(conv_transpose2d, 2, 2, attr::conv | attr::dims, flag::none, Grad::adjoint)               \
  X(max_pool2d, 1, 1, attr::pool, flag::none, Grad::adjoint)                                  \
  X(avg_pool2d, 1, 1, attr::pool, flag::none, Grad::adjoint)                                  \
  X(nearest_upsample2d, 1, 1, attr::count, flag::none, Grad::adjoint) /* count = factor */    \
  X(bilinear_upsample2d, 1, 1, attr::count | attr::align_corners, flag::none, Grad::adjoint)  \
  /* channels to space and back; count = the factor r (each the other's gradient) */           \
  X(pixel_shuffle, 1, 1, attr::count, flag::none, Grad::adjoint)                              \
  X(pixel_unshuffle, 1, 1, attr::count, flag::none, Grad::adjoint)                            \
  /* stochastic and gradient control */                                                       \
  X(dropout, 1, 1, attr::scalar | attr::seed, flag::stochastic, Grad::adjoint) /* p */        \
  X(stop_gradient, 1, 1, attr::none, flag::view, Grad::blocked)                               \
  X(capture, 1, 1, attr::name, flag::view, Grad::adjoint)                                     \
  /* losses: logits | logProbs, targets */                                                    \
  X(cross_entropy, 2, 2, attr::reduction, flag::none, Grad::adjoint)                          \
  X(nll_loss, 2, 2, attr::reduction, flag::none, Grad::adjoint)                               \
  /* normalisation layers, one fused op each; scalar = eps (batch_norm2d: scalar2 = momentum) */ \
  X(layer_norm, 2, 3, attr::scalar, flag::none, Grad::adjoint) /* x, weight[, bias] */        \
  X(rms_norm, 2, 2, attr::scalar, flag::none, Grad::adjoint) /* x, weight */                  \
  X(batch_norm2d, 3, 3, attr::scalar | attr::scalar2, flag::none, Grad::adjoint)              \
  X(batch_norm2d_inference, 5, 5, attr::scalar, flag::none, Grad::adjoint)                    \
  /* group_norm: x [N, C, ...][, weight [C], bias [C]]; count = groups */                     \
  X(group_norm, 1, 3, attr::scalar | attr::count, flag::none, Grad::adjoint)                  \
  /* ===== internal kinds (docs/ir.md "Backward and optimizer kinds") ===== */                \
  X(sum_to_shape, 1, 1, attr::dims, flag::internal, Grad::unsupported)                        \
  X(relu_grad, 2, 2, attr::none, flag::internal, Grad::unsupported)                           \
  X(gelu_grad, 2, 2, attr::approximate, flag::internal, Grad::unsupported)                    \
  X(silu_grad, 2, 2, attr::none, flag::internal, Grad::unsupported)                           \
  X(leaky_relu_grad, 2, 2, attr::scalar, flag::internal, Grad::unsupported)                   \
  X(softplus_grad, 2, 2, attr::none, flag::internal, Grad::unsupported)                       \
  X(clamp_grad, 2, 2, attr::scalar | attr::scalar2, flag::internal, Grad::unsupported)        \
  X(abs_grad, 2, 2, attr::none, flag::internal, Grad::unsupported)                            \
  X(tanh_grad, 2, 2, attr::none, flag::internal, Grad::unsupported)                           \
  X(sigmoid_grad, 2, 2, attr::none, flag::internal, Grad::unsupported)                        \
  X(softmax_grad, 2, 2, attr::axis, flag::internal, Grad::unsupported)                        \
  X(log_softmax_grad, 2, 2, attr::axis, flag::internal, Grad::unsupported)                    \
  X(cross_entropy_grad, 3, 3, attr::reduction, flag::internal, Grad::unsupported)             \
  X(nll_loss_grad, 2, 2, attr::reduction | attr::dims, flag::internal, Grad::unsupported)     \
  X(embedding_grad, 2, 2, attr::count | attr::padding_idx, flag::internal, Grad::unsupported) \
  X(take_along_axis_grad, 2, 2, attr::axis | attr::dims, flag::internal, Grad::unsupported)   \
  X(narrow_grad, 1, 1, attr::axis | attr::start | attr::dims, flag::internal, Grad::unsupported) \
  X(cumsum_grad, 1, 1, attr::axis, flag::internal, Grad::unsupported)                         \
  X(rope_grad, 1, 1, attr::scalar, flag::internal, Grad::unsupported)                         \
  X(conv2d_input_grad, 2, 2, attr::conv | attr::dims, flag::internal, Grad::unsupported)      \
  X(conv2d_weight_grad, 2, 2, attr::conv | attr::dims, flag::internal, Grad::unsupported)     \
  X(max_pool2d_grad, 2, 2, attr::pool, flag::internal, Grad::unsupported)                     \
  X(avg_pool2d_grad, 1, 1, attr::pool | attr::dims, flag::internal, Grad::unsupported)        \
  X(nearest_upsample2d_grad, 1, 1, attr::count, flag::internal, Grad::unsupported)            \
  X(bilinear_upsample2d_grad, 1, 1, attr::count | attr::align_corners, flag::internal, Grad::unsupported) \
  X(layer_norm_input_grad, 3, 3, attr::scalar, flag::internal, Grad::unsupported)             \
  X(layer_norm_weight_grad, 2, 2, attr::scalar, flag::internal, Grad::unsupported)            \
  X(rms_norm_input_grad, 3, 3, attr::scalar, flag::internal, Grad::unsupported)               \
  X(rms_norm_weight_grad, 2, 2, attr::scalar, flag::internal, Grad::unsupported)              \
  X(batch_norm2d_input_grad, 3, 3, attr::scalar, flag::internal, Grad::unsupported)           \
  X(batch_norm2d_weight_grad, 2, 2, attr::scalar, flag::internal, Grad::unsupported)          \
  X(group_norm_input_grad, 2, 3, attr::scalar | attr::count, flag::internal, Grad::unsupported) \
  X(group_norm_weight_grad, 2, 2, attr::scalar | attr::count, flag::internal, Grad::unsupported) \
  /* state and parameter updates (Phase::optimizer) */                                        \
  X(batch_norm2d_running_mean, 2, 2, attr::scalar, flag::internal, Grad::unsupported)         \
  X(batch_norm2d_running_var, 2, 2, attr::scalar, flag::internal, Grad::unsupported)          \
  X(adam_moment1, 2, 2, attr::scalar, flag::internal, Grad::unsupported)                      \
  X(adam_moment2, 2, 2, attr::scalar, flag::internal, Grad::unsupported)                      \
  X(adam_update, 6, 6, attr::scalar | attr::scalar2, flag::internal, Grad::unsupported)       \
  X(sgd_momentum, 2, 2, attr::scalar, flag::internal, Grad::unsupported)                      \
  X(sgd_update, 3, 3, attr::none, flag::internal, Grad::unsupported)

enum class OpKind : std::uint8_t {
#define NNDNA_OP_ENUM(kind, ...) kind,
  NNDNA_OP_KINDS(NNDNA_OP_ENUM)
#undef NNDNA_OP_ENUM
};

// What the table says about one kind.
struct OpInfo {
  std::string_view name;  // "matmul", "param_input": the JSON and diagram spelling
  std::uint8_t minInputs = 0;
  std::uint8_t maxInputs = 0;  // kVariadic: no maximum
  AttrSet attrs = attr::none;
  OpFlags flags = flag::none;
  Grad grad = Grad::blocked;
};

inline constexpr std::array kOpTable = {
#define NNDNA_OP_INFO(kind, minIn, maxIn, attrs, flags, grad) \
  OpInfo{#kind, minIn, maxIn, attrs, flags, grad},
    NNDNA_OP_KINDS(NNDNA_OP_INFO)
#undef NNDNA_OP_INFO
};
inline constexpr std::size_t kOpKindCount = kOpTable.size();
// The enum and the table come from one list; a per-kind table elsewhere pins its size to this.
static_assert(static_cast<std::size_t>(OpKind::sgd_update) + 1 == kOpKindCount,
              "NNDNA_OP_KINDS must end with sgd_update (update this assert with the list)");
static_assert(kOpKindCount <= 256, "OpKind is one byte");

constexpr const OpInfo& opInfo(OpKind kind) { return kOpTable[static_cast<std::size_t>(kind)]; }
constexpr std::string_view opKindName(OpKind kind) { return opInfo(kind).name; }
std::optional<OpKind> opKindFromName(std::string_view name);
constexpr std::size_t opKindCount() { return kOpKindCount; }
// Every kind, in table order (for tests and tools that enumerate the table).
constexpr OpKind opKindAt(std::size_t index) { return static_cast<OpKind>(index); }

// Classifiers, generated from the table.
constexpr bool hasFlag(OpKind kind, OpFlags f) { return (opInfo(kind).flags & f) != 0; }
constexpr bool isLeafKind(OpKind kind) { return hasFlag(kind, flag::leaf); }
constexpr bool isElementwiseUnary(OpKind kind) { return hasFlag(kind, flag::unary); }
constexpr bool isElementwiseBinary(OpKind kind) { return hasFlag(kind, flag::binary); }
constexpr bool isViewKind(OpKind kind) { return hasFlag(kind, flag::view); }
constexpr bool isStochasticKind(OpKind kind) { return hasFlag(kind, flag::stochastic); }
constexpr bool isInternalKind(OpKind kind) { return hasFlag(kind, flag::internal); }
// Whether autodiff needs an adjoint rule for it (Grad::adjoint).
constexpr bool isDifferentiable(OpKind kind) { return opInfo(kind).grad == Grad::adjoint; }
// Whether no gradient flows through it (Grad::blocked).
constexpr bool blocksGradient(OpKind kind) { return opInfo(kind).grad == Grad::blocked; }
// Whether one op of this kind dispatches a GPU kernel: everything but leaves (data already in
// memory) and views (docs/ir.md "Kernels").
constexpr bool launchesKernel(OpKind kind) { return !isLeafKind(kind) && !isViewKind(kind); }
constexpr bool usesAttr(OpKind kind, AttrSet a) { return (opInfo(kind).attrs & a) == a; }

}  // namespace nndna::ir
NNDNA_API_END
