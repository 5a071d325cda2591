// Adjoints of the elementwise kinds. Broadcasting is undone with sum_to_shape; activations with
// a dedicated backward kernel in real frameworks get an internal *_grad kind, the rest compose.
#include <cmath>
#include <numbers>

#include "grad/rules.hpp"

namespace nndna::grad {

using ir::OpKind;
using ir::TensorId;

namespace {

TensorId activationGrad(Emitter& e, OpKind kind, TensorId dy, TensorId x, ir::OpAttrs attrs = {}) {
  Shape shape = e.shape(dy);
  return e.internal(kind, {dy, x}, std::move(attrs), std::move(shape));
}

// Gradient of a unary op w.r.t. its input x, given y = op(x).
TensorId unaryGrad(Emitter& e, const ir::Op& op, TensorId dy) {
  const TensorId x = op.inputs[0];
  const TensorId y = op.out;
  switch (op.kind) {
    case OpKind::neg: return e.unary(OpKind::neg, dy);
    case OpKind::exp: return e.binary(OpKind::mul, dy, y);
    case OpKind::log: return e.binary(OpKind::div, dy, x);
    case OpKind::sqrt:  // dy / (2 sqrt(x))
      return e.binary(OpKind::div, dy, e.scalar(OpKind::mul, y, 2.0));
    case OpKind::rsqrt:  // -0.5 x^(-3/2) dy = -0.5 (y / x) dy
      return e.scalar(OpKind::mul, e.binary(OpKind::mul, dy, e.binary(OpKind::div, y, x)), -0.5);
    case OpKind::square: return e.binary(OpKind::mul, dy, e.scalar(OpKind::mul, x, 2.0));
    case OpKind::sin: return e.binary(OpKind::mul, dy, e.unary(OpKind::cos, x));
    case OpKind::cos: return e.unary(OpKind::neg, e.binary(OpKind::mul, dy, e.unary(OpKind::sin, x)));
    case OpKind::erf: {  // 2/sqrt(pi) exp(-x^2)
      const TensorId bump = e.unary(OpKind::exp, e.unary(OpKind::neg, e.unary(OpKind::square, x)));
      return e.binary(OpKind::mul, dy, e.scalar(OpKind::mul, bump, 2.0 / std::sqrt(std::numbers::pi)));
    }
    case OpKind::abs: return activationGrad(e, OpKind::abs_grad, dy, x);
    case OpKind::relu: return activationGrad(e, OpKind::relu_grad, dy, x);
    case OpKind::tanh: return activationGrad(e, OpKind::tanh_grad, dy, y);
    case OpKind::sigmoid: return activationGrad(e, OpKind::sigmoid_grad, dy, y);
    case OpKind::silu: return activationGrad(e, OpKind::silu_grad, dy, x);
    case OpKind::softplus: return activationGrad(e, OpKind::softplus_grad, dy, x);
    case OpKind::gelu: {
      ir::OpAttrs attrs;
      attrs.approximate = op.attrs.approximate;
      return activationGrad(e, OpKind::gelu_grad, dy, x, std::move(attrs));
    }
    case OpKind::leaky_relu: {
      ir::OpAttrs attrs;
      attrs.scalar = op.attrs.scalar;
      return activationGrad(e, OpKind::leaky_relu_grad, dy, x, std::move(attrs));
    }
    case OpKind::clamp: {
      ir::OpAttrs attrs;
      attrs.scalar = op.attrs.scalar;
      attrs.scalar2 = op.attrs.scalar2;
      return activationGrad(e, OpKind::clamp_grad, dy, x, std::move(attrs));
    }
    default: return ir::kNone;
  }
}

// `x ⊕ s` or `s ⊕ x` with a number s.
TensorId scalarOperandGrad(Emitter& e, const ir::Op& op, TensorId dy) {
  const TensorId x = op.inputs[0];
  const double s = op.attrs.scalar;
  const bool left = op.attrs.scalarLeft;
  switch (op.kind) {
    case OpKind::add: return dy;
    case OpKind::sub: return left ? e.unary(OpKind::neg, dy) : dy;
    case OpKind::mul: return e.scalar(OpKind::mul, dy, s);
    case OpKind::div:
      if (!left) return e.scalar(OpKind::mul, dy, 1.0 / s);
      // d(s / x)/dx = -s / x^2 = -y / x
      return e.unary(OpKind::neg, e.binary(OpKind::div, e.binary(OpKind::mul, dy, op.out), x));
    case OpKind::max: return e.binary(OpKind::mul, dy, e.scalar(OpKind::greater, x, s));
    case OpKind::min: return e.binary(OpKind::mul, dy, e.scalar(OpKind::less, x, s));
    default: return ir::kNone;
  }
}

bool binaryGrads(Emitter& e, const AdjointCall& call) {
  const ir::Op& op = call.op;
  const TensorId a = op.inputs[0];
  const TensorId b = op.inputs[1];
  const TensorId dy = call.dy;
  const Shape shapeA = e.shape(a);
  const Shape shapeB = e.shape(b);
  auto toA = [&](TensorId g) { return e.sumToShape(g, shapeA); };
  auto toB = [&](TensorId g) { return e.sumToShape(g, shapeB); };
  switch (op.kind) {
    case OpKind::add:
      if (call.need(0)) call.grads[0] = toA(dy);
      if (call.need(1)) call.grads[1] = toB(dy);
      return true;
    case OpKind::sub:
      if (call.need(0)) call.grads[0] = toA(dy);
      if (call.need(1)) call.grads[1] = e.unary(OpKind::neg, toB(dy));
      return true;
    case OpKind::mul:
      if (call.need(0)) call.grads[0] = toA(e.binary(OpKind::mul, dy, b));
      if (call.need(1)) call.grads[1] = toB(e.binary(OpKind::mul, dy, a));
      return true;
    case OpKind::div:
      if (call.need(0)) call.grads[0] = toA(e.binary(OpKind::div, dy, b));
      if (call.need(1)) {  // d(a/b)/db = -y / b
        call.grads[1] =
            e.unary(OpKind::neg, toB(e.binary(OpKind::div, e.binary(OpKind::mul, dy, op.out), b)));
      }
      return true;
    case OpKind::max:
    case OpKind::min: {
      // The strict winner takes the gradient; a tie gives 0 to both.
      const OpKind wins = op.kind == OpKind::max ? OpKind::greater : OpKind::less;
      if (call.need(0)) call.grads[0] = toA(e.binary(OpKind::mul, dy, e.binary(wins, a, b)));
      if (call.need(1)) call.grads[1] = toB(e.binary(OpKind::mul, dy, e.binary(wins, b, a)));
      return true;
    }
    default: return false;
  }
}

}  // namespace

bool elementwiseAdjoint(Emitter& e, const AdjointCall& call) {
  const ir::Op& op = call.op;
  if (ir::isElementwiseUnary(op.kind)) {
    call.grads[0] = unaryGrad(e, op, call.dy);
    return call.grads[0] != ir::kNone;
  }
  if (ir::isElementwiseBinary(op.kind)) {
    if (op.attrs.scalarOperand) {
      call.grads[0] = scalarOperandGrad(e, op, call.dy);
      return call.grads[0] != ir::kNone;
    }
    return binaryGrads(e, call);
  }
  if (op.kind == OpKind::where) {
    // where(c, a, b): a takes dy where c holds, b the rest.
    const TensorId picked = e.binary(OpKind::mul, call.dy, op.inputs[0]);
    if (call.need(1)) call.grads[1] = e.sumToShape(picked, e.shape(op.inputs[1]));
    if (call.need(2)) {
      const Shape shapeB = e.shape(op.inputs[2]);
      call.grads[2] = e.sumToShape(e.binary(OpKind::sub, call.dy, picked), shapeB);
    }
    return true;
  }
  return false;
}

}  // namespace nndna::grad
