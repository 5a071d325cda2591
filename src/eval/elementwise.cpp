// Elementwise ops: unary math and activations, arithmetic and comparisons with broadcasting,
// where.
#include <cmath>
#include <numbers>

#include "eval/kernel.hpp"

namespace nndna::eval {

using ir::OpKind;

namespace {

double gelu(double x, bool approximate) {
  if (!approximate) return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
  const double c = std::sqrt(2.0 / std::numbers::pi);
  return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}

double unaryFloat(OpKind kind, const ir::OpAttrs& a, double x) {
  switch (kind) {
    case OpKind::sqrt: return std::sqrt(x);
    case OpKind::rsqrt: return 1.0 / std::sqrt(x);
    case OpKind::log: return std::log(x);
    case OpKind::exp: return std::exp(x);
    case OpKind::neg: return -x;
    case OpKind::abs: return std::abs(x);
    case OpKind::square: return x * x;
    case OpKind::sin: return std::sin(x);
    case OpKind::cos: return std::cos(x);
    case OpKind::erf: return std::erf(x);
    case OpKind::relu: return x > 0 ? x : 0.0;
    case OpKind::tanh: return std::tanh(x);
    case OpKind::sigmoid: return sigmoid(x);
    case OpKind::gelu: return gelu(x, a.approximate);
    case OpKind::silu: return x * sigmoid(x);
    case OpKind::leaky_relu: return x > 0 ? x : a.scalar * x;
    case OpKind::softplus: return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x)));
    case OpKind::clamp: return std::min(std::max(x, a.scalar), a.scalar2);
    default: return std::nan("");
  }
}

// neg, abs, square and clamp on i32: 32-bit integer results.
std::int64_t unaryInt(OpKind kind, const ir::OpAttrs& a, std::int64_t x) {
  switch (kind) {
    case OpKind::neg: return -x;
    case OpKind::abs: return x < 0 ? -x : x;
    case OpKind::square: return x * x;
    case OpKind::clamp: {
      // Integer bounds inside the i32 range, so the result converts back exactly.
      const double lo = std::max(std::ceil(a.scalar), -2147483648.0);
      const double hi = std::min(std::floor(a.scalar2), 2147483647.0);
      return static_cast<std::int64_t>(std::min(std::max(static_cast<double>(x), lo), hi));
    }
    default: return 0;
  }
}

double binaryFloat(OpKind kind, double a, double b) {
  switch (kind) {
    case OpKind::add: return a + b;
    case OpKind::sub: return a - b;
    case OpKind::mul: return a * b;
    case OpKind::div: return a / b;
    case OpKind::min: return std::isnan(a) || std::isnan(b) ? std::nan("") : std::min(a, b);
    case OpKind::max: return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b);
    case OpKind::less: return a < b ? 1.0 : 0.0;
    case OpKind::greater: return a > b ? 1.0 : 0.0;
    default: return std::nan("");
  }
}

}  // namespace

Value evalUnary(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  Value out = ctx.result();
  const OpKind kind = ctx.op.kind;
  const bool integer = ctx.out.dtype == DType::i32;
  if (integer && kind != OpKind::neg && kind != OpKind::abs && kind != OpKind::square &&
      kind != OpKind::clamp) {
    ctx.fail("has no i32 form");
  }
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    out.data[i] = integer ? wrapI32(unaryInt(kind, ctx.attrs(), static_cast<std::int64_t>(x.data[i])))
                          : unaryFloat(kind, ctx.attrs(), x.data[i]);
  }
  return out;
}

Value evalBinary(const OpContext& ctx) {
  const ir::OpAttrs& attrs = ctx.attrs();
  const OpKind kind = ctx.op.kind;
  const Value& a = ctx.in(0);
  Value out = ctx.result();
  const bool integer = ctx.out.dtype == DType::i32;
  auto apply = [&](double x, double y) -> double {
    if (!integer) return binaryFloat(kind, x, y);
    const auto i = static_cast<std::int64_t>(x);
    const auto j = static_cast<std::int64_t>(y);
    switch (kind) {
      case OpKind::add: return wrapI32(i + j);
      case OpKind::sub: return wrapI32(i - j);
      case OpKind::mul: return wrapI32(i * j);
      case OpKind::div:
        if (j == 0) ctx.fail("integer division by zero");
        return wrapI32(i / j);  // truncates toward zero
      case OpKind::min: return static_cast<double>(std::min(i, j));
      case OpKind::max: return static_cast<double>(std::max(i, j));
      default: return 0.0;
    }
  };
  if (attrs.scalarOperand) {
    const double s = attrs.scalar;
    if (integer && std::trunc(s) != s) ctx.fail("the scalar {} of an i32 op is not an integer", s);
    for (std::size_t i = 0; i < a.data.size(); ++i) {
      out.data[i] = attrs.scalarLeft ? apply(s, a.data[i]) : apply(a.data[i], s);
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
