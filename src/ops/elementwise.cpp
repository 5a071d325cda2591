// Elementwise ops: unary math, activations, arithmetic, comparisons, where.
#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

namespace {

Tensor unary(OpKind kind, std::string_view api, Tensor x) {
  OpBuilder op(kind, api);
  op.input(x);
  return op.finish();
}

Tensor binary(OpKind kind, std::string_view api, Tensor a, Tensor b) {
  OpBuilder op(kind, api);
  op.input(a);
  op.input(b);
  return op.finish();
}

// A number operand is an attribute, not a constant tensor.
Tensor binaryScalar(OpKind kind, std::string_view api, Tensor a, double scalar, bool scalarLeft) {
  OpBuilder op(kind, api);
  op.input(a);
  op.attrs().scalar = scalar;
  op.attrs().scalarOperand = true;
  op.attrs().scalarLeft = scalarLeft;
  return op.finish();
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
  op.input(cond);
  op.input(ifTrue);
  op.input(ifFalse);
  return op.finish();
}

Tensor sqrt(Tensor x) { return unary(OpKind::sqrt, "sqrt", x); }
Tensor rsqrt(Tensor x) { return unary(OpKind::rsqrt, "rsqrt", x); }
Tensor log(Tensor x) { return unary(OpKind::log, "log", x); }
Tensor exp(Tensor x) { return unary(OpKind::exp, "exp", x); }
Tensor neg(Tensor x) { return unary(OpKind::neg, "neg", x); }
Tensor abs(Tensor x) { return unary(OpKind::abs, "abs", x); }
Tensor square(Tensor x) { return unary(OpKind::square, "square", x); }
Tensor sin(Tensor x) { return unary(OpKind::sin, "sin", x); }
Tensor cos(Tensor x) { return unary(OpKind::cos, "cos", x); }
Tensor erf(Tensor x) { return unary(OpKind::erf, "erf", x); }
Tensor relu(Tensor x) { return unary(OpKind::relu, "relu", x); }
Tensor tanh(Tensor x) { return unary(OpKind::tanh, "tanh", x); }
Tensor sigmoid(Tensor x) { return unary(OpKind::sigmoid, "sigmoid", x); }
Tensor silu(Tensor x) { return unary(OpKind::silu, "silu", x); }
Tensor softplus(Tensor x) { return unary(OpKind::softplus, "softplus", x); }

Tensor gelu(Tensor x, GeluOptions options) {
  OpBuilder op(OpKind::gelu, "gelu");
  op.input(x);
  op.attrs().approximate = options.approximate == GeluApproximate::tanh;
  return op.finish();
}

Tensor leakyRelu(Tensor x, double alpha) {
  OpBuilder op(OpKind::leaky_relu, "leakyRelu");
  op.input(x);
  op.attrs().scalar = alpha;
  return op.finish();
}

Tensor pow(Tensor x, double exponent) {
  OpBuilder op(OpKind::pow, "pow");
  op.input(x);
  op.attrs().scalar = exponent;
  return op.finish();
}

Tensor clamp(Tensor x, double lo, double hi) {
  OpBuilder op(OpKind::clamp, "clamp");
  op.input(x);
  op.attrs().scalar = lo;
  op.attrs().scalar2 = hi;
  return op.finish();
}

// The hard activations of MobileNetV2 and V3, as PyTorch defines them (composites: a clamp, and
// for the hard ones an add and a division, each drawn in the caller's box).
Tensor relu6(Tensor x) { return clamp(x, 0.0, 6.0); }
Tensor hardsigmoid(Tensor x) { return div(clamp(add(x, 3.0), 0.0, 6.0), 6.0); }
Tensor hardswish(Tensor x) { return mul(x, hardsigmoid(x)); }

// e^x of min(x, 0) only: the branch where() drops never overflows, so its gradient is 0, not NaN.
Tensor elu(Tensor x, double alpha) { return where(greater(x, 0.0), x, mul(sub(exp(min(x, 0.0)), 1.0), alpha)); }
Tensor mish(Tensor x) { return mul(x, tanh(softplus(x))); }

}  // namespace nndna
