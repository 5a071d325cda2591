// Elementwise ops: unary math, activations, arithmetic, comparisons, where.
#include <cmath>

#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

namespace {

Tensor unaryFloat(OpKind kind, std::string_view api, Tensor x) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& in = op.input(x);
  op.requireFloat(in);
  return op.finish(in.shape, in.dtype);
}

// neg, abs, square also work on integers.
Tensor unaryNumeric(OpKind kind, std::string_view api, Tensor x) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& in = op.input(x);
  if (in.dtype == DType::boolean) op.fail("input must be f32 or i32, got {}", ops::describe(in));
  return op.finish(in.shape, in.dtype);
}

bool isComparison(OpKind kind) { return kind == OpKind::less || kind == OpKind::greater; }

// Booleans take part in arithmetic as 0/1 of the other operand's type (f32 when both are bool);
// f32 and i32 never mix silently.
DType arithmeticDtype(const OpBuilder& op, const ir::TensorInfo& a, const ir::TensorInfo& b) {
  if (a.dtype == b.dtype) return a.dtype == DType::boolean ? DType::f32 : a.dtype;
  if (a.dtype == DType::boolean) return b.dtype;
  if (b.dtype == DType::boolean) return a.dtype;
  op.fail("operand dtypes differ: {} and {} (use arange(n, f32) or zeros(.., f32) for float math)",
          ops::describe(a), ops::describe(b));
}

Tensor binary(OpKind kind, std::string_view api, Tensor a, Tensor b) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& ta = op.input(a);
  const ir::TensorInfo& tb = op.input(b);
  const DType dtype = arithmeticDtype(op, ta, tb);
  Shape shape = ops::broadcastShapes(op, ta.shape, tb.shape);
  return op.finish(std::move(shape), isComparison(kind) ? DType::boolean : dtype);
}

Tensor binaryScalar(OpKind kind, std::string_view api, Tensor a, double scalar, bool scalarLeft) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& ta = op.input(a);
  if (!std::isfinite(scalar) && kind != OpKind::min && kind != OpKind::max &&
      !isComparison(kind)) {
    op.fail("the scalar operand must be finite, got {}", scalar);
  }
  op.attrs().scalar = scalar;
  op.attrs().scalarOperand = true;
  op.attrs().scalarLeft = scalarLeft;
  const DType dtype = ta.dtype == DType::boolean ? DType::f32 : ta.dtype;
  return op.finish(ta.shape, isComparison(kind) ? DType::boolean : dtype);
}

}  // namespace

Tensor add(Tensor a, Tensor b) { return binary(OpKind::add, "add", a, b); }
Tensor add(Tensor a, double b) { return binaryScalar(OpKind::add, "add", a, b, false); }
Tensor add(double a, Tensor b) { return binaryScalar(OpKind::add, "add", b, a, true); }
Tensor sub(Tensor a, Tensor b) { return binary(OpKind::sub, "sub", a, b); }
Tensor sub(Tensor a, double b) { return binaryScalar(OpKind::sub, "sub", a, b, false); }
Tensor sub(double a, Tensor b) { return binaryScalar(OpKind::sub, "sub", b, a, true); }
Tensor mul(Tensor a, Tensor b) { return binary(OpKind::mul, "mul", a, b); }
Tensor mul(Tensor a, double b) { return binaryScalar(OpKind::mul, "mul", a, b, false); }
Tensor mul(double a, Tensor b) { return binaryScalar(OpKind::mul, "mul", b, a, true); }
Tensor div(Tensor a, Tensor b) { return binary(OpKind::div, "div", a, b); }
Tensor div(Tensor a, double b) { return binaryScalar(OpKind::div, "div", a, b, false); }
Tensor div(double a, Tensor b) { return binaryScalar(OpKind::div, "div", b, a, true); }
Tensor min(Tensor a, Tensor b) { return binary(OpKind::min, "min", a, b); }
Tensor min(Tensor a, double b) { return binaryScalar(OpKind::min, "min", a, b, false); }
Tensor max(Tensor a, Tensor b) { return binary(OpKind::max, "max", a, b); }
Tensor max(Tensor a, double b) { return binaryScalar(OpKind::max, "max", a, b, false); }
Tensor less(Tensor a, Tensor b) { return binary(OpKind::less, "less", a, b); }
Tensor less(Tensor a, double b) { return binaryScalar(OpKind::less, "less", a, b, false); }
Tensor greater(Tensor a, Tensor b) { return binary(OpKind::greater, "greater", a, b); }
Tensor greater(Tensor a, double b) {
  return binaryScalar(OpKind::greater, "greater", a, b, false);
}

Tensor where(Tensor cond, Tensor ifTrue, Tensor ifFalse) {
  OpBuilder op(OpKind::where, "where");
  const ir::TensorInfo& c = op.input(cond);
  const ir::TensorInfo& a = op.input(ifTrue);
  const ir::TensorInfo& b = op.input(ifFalse);
  if (c.dtype != DType::boolean) {
    op.fail("the condition must be boolean (from less/greater), got {}", ops::describe(c));
  }
  const DType dtype = arithmeticDtype(op, a, b);
  Shape shape = ops::broadcastShapes(op, ops::broadcastShapes(op, c.shape, a.shape), b.shape);
  return op.finish(std::move(shape), dtype);
}

Tensor sqrt(Tensor x) { return unaryFloat(OpKind::sqrt, "sqrt", x); }
Tensor rsqrt(Tensor x) { return unaryFloat(OpKind::rsqrt, "rsqrt", x); }
Tensor log(Tensor x) { return unaryFloat(OpKind::log, "log", x); }
Tensor exp(Tensor x) { return unaryFloat(OpKind::exp, "exp", x); }
Tensor neg(Tensor x) { return unaryNumeric(OpKind::neg, "neg", x); }
Tensor abs(Tensor x) { return unaryNumeric(OpKind::abs, "abs", x); }
Tensor square(Tensor x) { return unaryNumeric(OpKind::square, "square", x); }
Tensor sin(Tensor x) { return unaryFloat(OpKind::sin, "sin", x); }
Tensor cos(Tensor x) { return unaryFloat(OpKind::cos, "cos", x); }
Tensor erf(Tensor x) { return unaryFloat(OpKind::erf, "erf", x); }
Tensor relu(Tensor x) { return unaryFloat(OpKind::relu, "relu", x); }
Tensor tanh(Tensor x) { return unaryFloat(OpKind::tanh, "tanh", x); }
Tensor sigmoid(Tensor x) { return unaryFloat(OpKind::sigmoid, "sigmoid", x); }
Tensor silu(Tensor x) { return unaryFloat(OpKind::silu, "silu", x); }
Tensor softplus(Tensor x) { return unaryFloat(OpKind::softplus, "softplus", x); }

Tensor gelu(Tensor x, GeluOptions options) {
  OpBuilder op(OpKind::gelu, "gelu");
  const ir::TensorInfo& in = op.input(x);
  op.requireFloat(in);
  op.attrs().approximate = options.approximate == GeluApproximate::tanh;
  return op.finish(in.shape, in.dtype);
}

Tensor leakyRelu(Tensor x, double alpha) {
  OpBuilder op(OpKind::leaky_relu, "leakyRelu");
  const ir::TensorInfo& in = op.input(x);
  op.requireFloat(in);
  if (!std::isfinite(alpha)) op.fail("alpha must be finite, got {}", alpha);
  op.attrs().scalar = alpha;
  return op.finish(in.shape, in.dtype);
}

Tensor clamp(Tensor x, double lo, double hi) {
  OpBuilder op(OpKind::clamp, "clamp");
  const ir::TensorInfo& in = op.input(x);
  if (in.dtype == DType::boolean) op.fail("input must be f32 or i32, got {}", ops::describe(in));
  if (std::isnan(lo) || std::isnan(hi) || lo > hi) {
    op.fail("bounds must satisfy lo <= hi, got lo = {}, hi = {}", lo, hi);
  }
  op.attrs().scalar = lo;
  op.attrs().scalar2 = hi;
  return op.finish(in.shape, in.dtype);
}

}  // namespace nndna
