// What the reference evaluation of one op sees, and the helpers the op families share.
#pragma once

#include <cmath>

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "nndna/eval.hpp"
#include "nndna/ir.hpp"

namespace nndna::eval {

// One op being evaluated: its inputs' values and the shape and dtype its output must have.
struct OpContext {
  const ir::Graph& graph;
  const ir::Op& op;
  std::span<const Value* const> inputs;
  const ir::TensorInfo& out;
  std::uint64_t runSeed = 0;

  const Value& in(std::size_t i) const;
  const ir::OpAttrs& attrs() const { return op.attrs; }
  // A zero-filled value of the output's shape and dtype.
  Value result() const;

  // Throws EvalError naming the op, its index and its spec line.
  [[noreturn]] void fail(std::string detail) const;
  template <class... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
    fail(fmt::format(format, std::forward<Args>(args)...));
  }
  // An axis attribute normalised to [0, rank).
  std::size_t axis(std::int64_t axis, std::size_t rank) const;
  // A tensor index read from an i32 value, checked against [0, size).
  std::int64_t index(double value, std::int64_t size, std::string_view what) const;
};

// Row-major strides of a shape.
std::vector<std::int64_t> stridesOf(const Shape& shape);

// Strides of `shape` read as if broadcast (NumPy trailing alignment) to `target`: 0 along
// broadcast axes.
std::vector<std::int64_t> broadcastStrides(const Shape& shape, const Shape& target);

// Visits every element of `shape` in row-major order, calling fn(flat, offsets) where
// offsets[k] = Σ index[d]·strides[k][d]. Constant work per element (an odometer).
template <std::size_t K, class Fn>
void forEachStrided(const Shape& shape, const std::array<std::vector<std::int64_t>, K>& strides,
                    Fn&& fn) {
  const std::size_t rank = shape.size();
  std::int64_t total = 1;
  for (const std::int64_t d : shape) total *= d;
  std::vector<std::int64_t> index(rank, 0);
  std::array<std::int64_t, K> offsets{};
  for (std::int64_t flat = 0; flat < total; ++flat) {
    fn(flat, offsets);
    for (std::size_t d = rank; d-- > 0;) {
      for (std::size_t k = 0; k < K; ++k) offsets[k] += strides[k][d];
      if (++index[d] < shape[d]) break;
      for (std::size_t k = 0; k < K; ++k) offsets[k] -= strides[k][d] * shape[d];
      index[d] = 0;
    }
  }
}

// A shape seen as [outer, size(axis), inner] around one axis.
struct AxisSplit {
  std::int64_t outer = 1;
  std::int64_t size = 1;
  std::int64_t inner = 1;
};
AxisSplit splitAt(const Shape& shape, std::size_t axis);

// Every (output position, in-image window tap) pair of a 2-D window (pooling) over the planes of
// x [N, C, H, W] giving y [N, C, H', W']: fn(flat index into y, flat index into x). Taps over the
// padding are skipped.
template <class Fn>
void forEachWindowTap(const Shape& x, const Shape& y, const ir::OpAttrs& a, Fn&& fn) {
  const std::int64_t planes = x[0] * x[1], h = x[2], w = x[3], oh = y[2], ow = y[3];
  for (std::int64_t p = 0; p < planes; ++p) {
    for (std::int64_t oy = 0; oy < oh; ++oy) {
      for (std::int64_t ox = 0; ox < ow; ++ox) {
        for (std::int64_t ky = 0; ky < a.kernel[0]; ++ky) {
          const std::int64_t iy = oy * a.stride[0] - a.padding[0] + ky;
          if (iy < 0 || iy >= h) continue;
          for (std::int64_t kx = 0; kx < a.kernel[1]; ++kx) {
            const std::int64_t ix = ox * a.stride[1] - a.padding[1] + kx;
            if (ix < 0 || ix >= w) continue;
            fn((p * oh + oy) * ow + ox, (p * h + iy) * w + ix);
          }
        }
      }
    }
  }
}

// x [N, C, ...] seen by GroupNorm: each (sample, group) is one contiguous row of `row` elements
// (C/groups channels of `spatial` elements each), rows in sample-major order.
struct GroupRows {
  GroupRows(const Shape& x, std::int64_t groupCount)
      : groups(groupCount), channelsPerGroup(x[1] / groupCount), spatial(ir::numel(x) / (x[0] * x[1])),
        row(channelsPerGroup * spatial), count(x[0] * groupCount) {}
  std::int64_t groups, channelsPerGroup, spatial, row, count;
  // The channel of element j of row r.
  std::size_t channel(std::int64_t r, std::int64_t j) const {
    return static_cast<std::size_t>((r % groups) * channelsPerGroup + j / spatial);
  }
};

// avg_pool2d's divisor for each output position of one plane of y [N, C, H', W'] (row-major):
// kH·kW (padding counts, PyTorch's count_include_pad), or for a ceil_mode window that runs past
// the padding, the part of the window inside the padded input. Forward and backward share it.
std::vector<double> avgPoolDivisors(const Shape& x, const Shape& y, const ir::OpAttrs& a);

// Where output index `o` of a bilinear upsampling (factor f, PyTorch's align_corners or not)
// reads along one axis of `in` elements: (1 - weight) of `low` plus weight of `high`. Forward and
// backward kernels share it.
struct BilinearTap {
  std::int64_t low = 0;
  std::int64_t high = 0;
  double weight = 0.0;
};
std::vector<BilinearTap> bilinearTaps(std::int64_t in, std::int64_t factor, bool alignCorners);

// Every (output element, input pixel, weight) of the bilinear upsampling of x [N, C, H, W] that
// `a` describes: fn(flat index into the output, flat index into x, weight), four per output
// element (a pixel may come twice at the edges, where both taps clamp to it).
template <class Fn>
void forEachBilinearTap(const Shape& x, const ir::OpAttrs& a, Fn&& fn) {
  const std::int64_t planes = x[0] * x[1], h = x[2], w = x[3];
  const std::vector<BilinearTap> rows = bilinearTaps(h, a.count, a.alignCorners);
  const std::vector<BilinearTap> cols = bilinearTaps(w, a.count, a.alignCorners);
  std::int64_t k = 0;
  for (std::int64_t p = 0; p < planes; ++p) {
    for (const BilinearTap& r : rows) {
      const std::int64_t low = (p * h + r.low) * w, high = (p * h + r.high) * w;
      for (const BilinearTap& c : cols) {
        fn(k, low + c.low, (1.0 - r.weight) * (1.0 - c.weight));
        fn(k, low + c.high, (1.0 - r.weight) * c.weight);
        fn(k, high + c.low, r.weight * (1.0 - c.weight));
        fn(k, high + c.high, r.weight * c.weight);
        ++k;
      }
    }
  }
}

// Mean and 1/sqrt(var + eps) of `n` values `stride` apart (biased variance): the norms' statistics.
struct Moments {
  double mean = 0.0;
  double inv = 0.0;
};
Moments momentsOf(const double* x, std::int64_t n, std::int64_t stride, double eps);

// Wraps an integer-valued result to 32 bits, as i32 arithmetic on a GPU would.
double wrapI32(std::int64_t value);

// The logistic function, stable on both tails (forward and backward kernels share it).
inline double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

// ----- Elementwise families: one per-element function per kind (evaluator.cpp's table picks it).

// f(x) of a unary kind, in double; its i32 form (neg, abs, square, clamp) or nullptr.
using UnaryFn = double (*)(double x, const ir::OpAttrs& attrs);
using UnaryIntFn = std::int64_t (*)(std::int64_t x, const ir::OpAttrs& attrs);
// a ⊕ b of a binary kind; its i32 form (may fail through ctx: division by zero) or nullptr.
using BinaryFn = double (*)(double a, double b);
using BinaryIntFn = double (*)(const OpContext& ctx, std::int64_t a, std::int64_t b);
// The local derivative of an activation at its saved input (x) or output (y).
using DerivativeFn = double (*)(double v, const ir::OpAttrs& attrs);
// The new optimizer state from the old one, the gradient and the rate (beta, momentum).
using MomentFn = double (*)(double state, double g, double rate);

Value evalUnary(const OpContext& ctx, UnaryFn f, UnaryIntFn i);
Value evalBinary(const OpContext& ctx, BinaryFn f, BinaryIntFn i);
Value evalActivationGrad(const OpContext& ctx, DerivativeFn derivative);  // relu_grad ... sigmoid_grad
Value evalMoment(const OpContext& ctx, MomentFn f);  // adam_moment1, adam_moment2, sgd_momentum

// As kernels (function pointers with the per-kind function bound at compile time).
template <UnaryFn F, UnaryIntFn I = nullptr>
Value unaryKernel(const OpContext& ctx) { return evalUnary(ctx, F, I); }
template <BinaryFn F, BinaryIntFn I = nullptr>
Value binaryKernel(const OpContext& ctx) { return evalBinary(ctx, F, I); }
template <DerivativeFn D>
Value activationGradKernel(const OpContext& ctx) { return evalActivationGrad(ctx, D); }
template <MomentFn F>
Value momentKernel(const OpContext& ctx) { return evalMoment(ctx, F); }

// The per-element functions (elementwise.cpp, grad_ops.cpp, optim_ops.cpp).
namespace math {
double sqrt(double x, const ir::OpAttrs&);
double rsqrt(double x, const ir::OpAttrs&);
double log(double x, const ir::OpAttrs&);
double exp(double x, const ir::OpAttrs&);
double neg(double x, const ir::OpAttrs&);
double abs(double x, const ir::OpAttrs&);
double square(double x, const ir::OpAttrs&);
double sin(double x, const ir::OpAttrs&);
double cos(double x, const ir::OpAttrs&);
double erf(double x, const ir::OpAttrs&);
double relu(double x, const ir::OpAttrs&);
double tanh(double x, const ir::OpAttrs&);
double sigmoid(double x, const ir::OpAttrs&);
double gelu(double x, const ir::OpAttrs&);
double silu(double x, const ir::OpAttrs&);
double leakyRelu(double x, const ir::OpAttrs&);
double softplus(double x, const ir::OpAttrs&);
double clamp(double x, const ir::OpAttrs&);
double pow(double x, const ir::OpAttrs&);
std::int64_t negInt(std::int64_t x, const ir::OpAttrs&);
std::int64_t absInt(std::int64_t x, const ir::OpAttrs&);
std::int64_t squareInt(std::int64_t x, const ir::OpAttrs&);
std::int64_t clampInt(std::int64_t x, const ir::OpAttrs&);

double add(double a, double b);
double sub(double a, double b);
double mul(double a, double b);
double div(double a, double b);
double min(double a, double b);
double max(double a, double b);
double less(double a, double b);
double greater(double a, double b);
double addInt(const OpContext&, std::int64_t a, std::int64_t b);
double subInt(const OpContext&, std::int64_t a, std::int64_t b);
double mulInt(const OpContext&, std::int64_t a, std::int64_t b);
double divInt(const OpContext& ctx, std::int64_t a, std::int64_t b);
double minInt(const OpContext&, std::int64_t a, std::int64_t b);
double maxInt(const OpContext&, std::int64_t a, std::int64_t b);

double reluDerivative(double v, const ir::OpAttrs&);
double geluDerivative(double v, const ir::OpAttrs&);
double siluDerivative(double v, const ir::OpAttrs&);
double leakyReluDerivative(double v, const ir::OpAttrs&);
double softplusDerivative(double v, const ir::OpAttrs&);
double clampDerivative(double v, const ir::OpAttrs&);
double absDerivative(double v, const ir::OpAttrs&);
double tanhDerivative(double y, const ir::OpAttrs&);
double sigmoidDerivative(double y, const ir::OpAttrs&);

double adamMoment1(double m, double g, double beta);
double adamMoment2(double v, double g, double beta);
double sgdMomentum(double buf, double g, double momentum);
}  // namespace math

// ----- Views: a strided read of the input, no arithmetic (ir::isViewKind) ------------------------

// The input strides each output axis reads (over the output's shape).
using ViewStrides = std::vector<std::int64_t> (*)(const OpContext& ctx);
Value evalView(const OpContext& ctx, ViewStrides strides);
std::vector<std::int64_t> aliasStrides(const OpContext& ctx);      // reshape, stop_gradient, capture
std::vector<std::int64_t> permuteStrides(const OpContext& ctx);    // permute
std::vector<std::int64_t> broadcastToStrides(const OpContext& ctx);  // broadcast_to
std::vector<std::int64_t> splitHeadsStrides(const OpContext& ctx);  // split_heads

// ----- The other kinds, by family; each returns the op's output value ----------------------------
Value evalZeros(const OpContext& ctx);
Value evalOnes(const OpContext& ctx);
Value evalArange(const OpContext& ctx);
Value evalRandn(const OpContext& ctx);
Value evalWhere(const OpContext& ctx);
Value evalReduce(const OpContext& ctx);       // mean, sum
Value evalArgReduce(const OpContext& ctx);    // argmax, argmin
Value evalCumsum(const OpContext& ctx);
Value evalTopk(const OpContext& ctx);
Value evalNarrow(const OpContext& ctx);
Value evalPad(const OpContext& ctx);
Value evalConcat(const OpContext& ctx);
Value evalStack(const OpContext& ctx);
Value evalMergeHeads(const OpContext& ctx);
Value evalOneHot(const OpContext& ctx);
Value evalEmbedding(const OpContext& ctx);
Value evalTakeAlongAxis(const OpContext& ctx);
Value evalNearestUpsample2d(const OpContext& ctx);
Value evalBilinearUpsample2d(const OpContext& ctx);
Value evalPixelShuffle(const OpContext& ctx);
Value evalPixelUnshuffle(const OpContext& ctx);
Value evalMatmul(const OpContext& ctx);
Value evalConv2d(const OpContext& ctx);
Value evalMaxPool2d(const OpContext& ctx);
Value evalAvgPool2d(const OpContext& ctx);
Value evalSoftmax(const OpContext& ctx);      // softmax, log_softmax
Value evalSoftmaxCausal(const OpContext& ctx);
Value evalWhereCausal(const OpContext& ctx);
Value evalCategorical(const OpContext& ctx);
Value evalRope(const OpContext& ctx);
Value evalDropout(const OpContext& ctx);
Value evalLoss(const OpContext& ctx);         // cross_entropy, nll_loss
Value evalLayerNorm(const OpContext& ctx);
Value evalRmsNorm(const OpContext& ctx);
Value evalBatchNorm2d(const OpContext& ctx);  // batch_norm2d, batch_norm2d_inference
Value evalGroupNorm(const OpContext& ctx);

// Backward kinds (grad_ops.cpp).
Value evalSumToShape(const OpContext& ctx);
Value evalSoftmaxGrad(const OpContext& ctx);      // softmax_grad, log_softmax_grad
Value evalLossGrad(const OpContext& ctx);         // cross_entropy_grad, nll_loss_grad
Value evalEmbeddingGrad(const OpContext& ctx);
Value evalTakeAlongAxisGrad(const OpContext& ctx);
Value evalNarrowGrad(const OpContext& ctx);
Value evalCumsumGrad(const OpContext& ctx);       // reduce.cpp, beside cumsum
Value evalRopeGrad(const OpContext& ctx);
Value evalConv2dInputGrad(const OpContext& ctx);    // also conv_transpose2d: the same sum
Value evalConv2dWeightGrad(const OpContext& ctx);
Value evalMaxPool2dGrad(const OpContext& ctx);
Value evalAvgPool2dGrad(const OpContext& ctx);
Value evalNearestUpsample2dGrad(const OpContext& ctx);
Value evalBilinearUpsample2dGrad(const OpContext& ctx);
Value evalRowNormGrad(const OpContext& ctx);      // layer_norm_*_grad, rms_norm_*_grad
Value evalBatchNormGrad(const OpContext& ctx);    // batch_norm2d_input_grad, _weight_grad
Value evalGroupNormGrad(const OpContext& ctx);    // group_norm_input_grad, _weight_grad

// Optimizer and state-update kinds (optim_ops.cpp).
Value evalBatchNormRunning(const OpContext& ctx); // batch_norm2d_running_mean, _var
Value evalAdamUpdate(const OpContext& ctx);
Value evalSgdUpdate(const OpContext& ctx);

}  // namespace nndna::eval
