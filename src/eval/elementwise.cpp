// Elementwise ops: unary math and activations, arithmetic and comparisons with broadcasting,
// where. The per-element function of each kind is chosen in evaluator.cpp's table.
#include <cmath>
#include <numbers>

#include "eval/kernel.hpp"

namespace nndna::eval {

namespace math {
double sqrt(double x, const ir::OpAttrs&) { return std::sqrt(x); }
double rsqrt(double x, const ir::OpAttrs&) { return 1.0 / std::sqrt(x); }
double log(double x, const ir::OpAttrs&) { return std::log(x); }
double exp(double x, const ir::OpAttrs&) { return std::exp(x); }
double neg(double x, const ir::OpAttrs&) { return -x; }
double abs(double x, const ir::OpAttrs&) { return std::abs(x); }
double square(double x, const ir::OpAttrs&) { return x * x; }
double sin(double x, const ir::OpAttrs&) { return std::sin(x); }
double cos(double x, const ir::OpAttrs&) { return std::cos(x); }
double erf(double x, const ir::OpAttrs&) { return std::erf(x); }
double relu(double x, const ir::OpAttrs&) { return x > 0 ? x : 0.0; }
double tanh(double x, const ir::OpAttrs&) { return std::tanh(x); }
double sigmoid(double x, const ir::OpAttrs&) { return eval::sigmoid(x); }
double gelu(double x, const ir::OpAttrs& a) {
  if (!a.approximate) return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
  const double c = std::sqrt(2.0 / std::numbers::pi);
  return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}
double silu(double x, const ir::OpAttrs&) { return x * eval::sigmoid(x); }
double leakyRelu(double x, const ir::OpAttrs& a) { return x > 0 ? x : a.scalar * x; }
double softplus(double x, const ir::OpAttrs&) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }
double pow(double x, const ir::OpAttrs& a) { return std::pow(x, a.scalar); }
double clamp(double x, const ir::OpAttrs& a) { return std::min(std::max(x, a.scalar), a.scalar2); }

std::int64_t negInt(std::int64_t x, const ir::OpAttrs&) { return -x; }
std::int64_t absInt(std::int64_t x, const ir::OpAttrs&) { return x < 0 ? -x : x; }
std::int64_t squareInt(std::int64_t x, const ir::OpAttrs&) { return x * x; }
std::int64_t clampInt(std::int64_t x, const ir::OpAttrs& a) {
  // Integer bounds inside the i32 range, so the result converts back exactly.
  const double lo = std::max(std::ceil(a.scalar), -2147483648.0);
  const double hi = std::min(std::floor(a.scalar2), 2147483647.0);
  return static_cast<std::int64_t>(std::min(std::max(static_cast<double>(x), lo), hi));
}

double add(double a, double b) { return a + b; }
double sub(double a, double b) { return a - b; }
double mul(double a, double b) { return a * b; }
double div(double a, double b) { return a / b; }
double min(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan("") : std::min(a, b); }
double max(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b); }
double less(double a, double b) { return a < b ? 1.0 : 0.0; }
double greater(double a, double b) { return a > b ? 1.0 : 0.0; }
double addInt(const OpContext&, std::int64_t a, std::int64_t b) { return wrapI32(a + b); }
double subInt(const OpContext&, std::int64_t a, std::int64_t b) { return wrapI32(a - b); }
double mulInt(const OpContext&, std::int64_t a, std::int64_t b) { return wrapI32(a * b); }
double divInt(const OpContext& ctx, std::int64_t a, std::int64_t b) {
  if (b == 0) ctx.fail("integer division by zero");
  return wrapI32(a / b);  // truncates toward zero
}
double minInt(const OpContext&, std::int64_t a, std::int64_t b) { return static_cast<double>(std::min(a, b)); }
double maxInt(const OpContext&, std::int64_t a, std::int64_t b) { return static_cast<double>(std::max(a, b)); }
}  // namespace math

Value evalUnary(const OpContext& ctx, UnaryFn f, UnaryIntFn i) {
  const Value& x = ctx.in(0);
  Value out = ctx.result();
  if (ctx.out.dtype == DType::i32) {
    if (i == nullptr) ctx.fail("has no i32 form");
    for (std::size_t k = 0; k < x.data.size(); ++k) {
      out.data[k] = wrapI32(i(static_cast<std::int64_t>(x.data[k]), ctx.attrs()));
    }
    return out;
  }
  for (std::size_t k = 0; k < x.data.size(); ++k) out.data[k] = f(x.data[k], ctx.attrs());
  return out;
}

Value evalBinary(const OpContext& ctx, BinaryFn f, BinaryIntFn i) {
  const ir::OpAttrs& attrs = ctx.attrs();
  const Value& a = ctx.in(0);
  Value out = ctx.result();
  const bool integer = ctx.out.dtype == DType::i32;
  if (integer && i == nullptr) ctx.fail("has no i32 form");
  auto apply = [&](double x, double y) -> double {
    return integer ? i(ctx, static_cast<std::int64_t>(x), static_cast<std::int64_t>(y)) : f(x, y);
  };
  if (attrs.scalarOperand) {
    const double s = attrs.scalar;
    if (integer && std::trunc(s) != s) ctx.fail("the scalar {} of an i32 op is not an integer", s);
    for (std::size_t k = 0; k < a.data.size(); ++k) {
      out.data[k] = attrs.scalarLeft ? apply(s, a.data[k]) : apply(a.data[k], s);
    }
    return out;
  }
  const Value& b = ctx.in(1);
  forEachStrided<2>(out.shape,
                    {broadcastStrides(a.shape, out.shape), broadcastStrides(b.shape, out.shape)},
                    [&](std::int64_t flat, const std::array<std::int64_t, 2>& off) {
                      out.data[static_cast<std::size_t>(flat)] =
                          apply(a.data[static_cast<std::size_t>(off[0])],
                                b.data[static_cast<std::size_t>(off[1])]);
                    });
  return out;
}

Value evalWhere(const OpContext& ctx) {
  const Value& c = ctx.in(0);
  const Value& a = ctx.in(1);
  const Value& b = ctx.in(2);
  Value out = ctx.result();
  forEachStrided<3>(out.shape,
                    {broadcastStrides(c.shape, out.shape), broadcastStrides(a.shape, out.shape),
                     broadcastStrides(b.shape, out.shape)},
                    [&](std::int64_t flat, const std::array<std::int64_t, 3>& off) {
                      const bool cond = c.data[static_cast<std::size_t>(off[0])] != 0.0;
                      out.data[static_cast<std::size_t>(flat)] =
                          cond ? a.data[static_cast<std::size_t>(off[1])]
                               : b.data[static_cast<std::size_t>(off[2])];
                    });
  return out;
}

}  // namespace nndna::eval
