// Adjoints of the elementwise kinds. Broadcasting is undone with sum_to_shape; activations with
// a dedicated backward kernel in real frameworks get an internal *_grad kind (rules.hpp), the
// rest compose forward kinds.
#include <cmath>
#include <numbers>

#include "grad/rules.hpp"

namespace nndna::grad {

using ir::OpKind;
using ir::TensorId;

// ----- unary: y = f(x), gradient dy · f'(x) -----------------------------------------------------

void sqrtAdjoint(Emitter& e, const AdjointCall& c) {  // dy / (2 sqrt(x))
  c.grads[0] = e.binary(OpKind::div, c.dy, e.scalar(OpKind::mul, c.op.out, 2.0));
}

void rsqrtAdjoint(Emitter& e, const AdjointCall& c) {  // -0.5 x^(-3/2) dy = -0.5 (y / x) dy
  const TensorId yOverX = e.binary(OpKind::div, c.op.out, c.op.inputs[0]);
  c.grads[0] = e.scalar(OpKind::mul, e.binary(OpKind::mul, c.dy, yOverX), -0.5);
}

void logAdjoint(Emitter& e, const AdjointCall& c) {
  c.grads[0] = e.binary(OpKind::div, c.dy, c.op.inputs[0]);
}

void expAdjoint(Emitter& e, const AdjointCall& c) { c.grads[0] = e.binary(OpKind::mul, c.dy, c.op.out); }

void negAdjoint(Emitter& e, const AdjointCall& c) { c.grads[0] = e.unary(OpKind::neg, c.dy); }

void squareAdjoint(Emitter& e, const AdjointCall& c) {
  c.grads[0] = e.binary(OpKind::mul, c.dy, e.scalar(OpKind::mul, c.op.inputs[0], 2.0));
}

void powAdjoint(Emitter& e, const AdjointCall& c) {  // p x^(p-1) dy
  const double exponent = c.op.attrs->scalar;
  ir::OpAttrs lowered;
  lowered.scalar = exponent - 1;
  const TensorId slope = e.scalar(OpKind::mul, e.emit(OpKind::pow, {c.op.inputs[0]}, lowered), exponent);
  c.grads[0] = e.binary(OpKind::mul, c.dy, slope);
}

void sinAdjoint(Emitter& e, const AdjointCall& c) {
  c.grads[0] = e.binary(OpKind::mul, c.dy, e.unary(OpKind::cos, c.op.inputs[0]));
}

void cosAdjoint(Emitter& e, const AdjointCall& c) {
  c.grads[0] = e.unary(OpKind::neg, e.binary(OpKind::mul, c.dy, e.unary(OpKind::sin, c.op.inputs[0])));
}

void erfAdjoint(Emitter& e, const AdjointCall& c) {  // 2/sqrt(pi) exp(-x^2)
  const TensorId x = c.op.inputs[0];
  const TensorId bump = e.unary(OpKind::exp, e.unary(OpKind::neg, e.unary(OpKind::square, x)));
  c.grads[0] = e.binary(OpKind::mul, c.dy, e.scalar(OpKind::mul, bump, 2.0 / std::sqrt(std::numbers::pi)));
}

// ----- binary: a ⊕ b with broadcasting, or x ⊕ s / s ⊕ x with a number s --------------------------

namespace {
// The gradient `g` (of the output's shape) summed down to input i's shape.
TensorId toInput(Emitter& e, const AdjointCall& c, std::size_t i, TensorId g) {
  return e.sumToShape(g, e.shape(c.op.inputs[i]));
}
}  // namespace

void addAdjoint(Emitter& e, const AdjointCall& c) {
  if (c.op.attrs->scalarOperand) {
    c.grads[0] = c.dy;
    return;
  }
  if (c.need(0)) c.grads[0] = toInput(e, c, 0, c.dy);
  if (c.need(1)) c.grads[1] = toInput(e, c, 1, c.dy);
}

void subAdjoint(Emitter& e, const AdjointCall& c) {
  if (c.op.attrs->scalarOperand) {
    c.grads[0] = c.op.attrs->scalarLeft ? e.unary(OpKind::neg, c.dy) : c.dy;
    return;
  }
  if (c.need(0)) c.grads[0] = toInput(e, c, 0, c.dy);
  if (c.need(1)) c.grads[1] = e.unary(OpKind::neg, toInput(e, c, 1, c.dy));
}

void mulAdjoint(Emitter& e, const AdjointCall& c) {
  if (c.op.attrs->scalarOperand) {
    c.grads[0] = e.scalar(OpKind::mul, c.dy, c.op.attrs->scalar);
    return;
  }
  const TensorId a = c.op.inputs[0];
  const TensorId b = c.op.inputs[1];
  if (c.need(0)) c.grads[0] = toInput(e, c, 0, e.binary(OpKind::mul, c.dy, b));
  if (c.need(1)) c.grads[1] = toInput(e, c, 1, e.binary(OpKind::mul, c.dy, a));
}

void divAdjoint(Emitter& e, const AdjointCall& c) {
  if (c.op.attrs->scalarOperand) {
    if (!c.op.attrs->scalarLeft) {
      c.grads[0] = e.scalar(OpKind::mul, c.dy, 1.0 / c.op.attrs->scalar);
    } else {  // d(s / x)/dx = -s / x^2 = -y / x
      const TensorId x = c.op.inputs[0];
      c.grads[0] = e.unary(OpKind::neg, e.binary(OpKind::div, e.binary(OpKind::mul, c.dy, c.op.out), x));
    }
    return;
  }
  const TensorId b = c.op.inputs[1];
  if (c.need(0)) c.grads[0] = toInput(e, c, 0, e.binary(OpKind::div, c.dy, b));
  if (c.need(1)) {  // d(a/b)/db = -y / b
    const TensorId g = e.binary(OpKind::div, e.binary(OpKind::mul, c.dy, c.op.out), b);
    c.grads[1] = e.unary(OpKind::neg, toInput(e, c, 1, g));
  }
}

// The strict winner takes the gradient; a tie gives 0 to both (as relu does at 0).
void minMaxAdjoint(Emitter& e, const AdjointCall& c) {
  const OpKind wins = c.op.kind == OpKind::max ? OpKind::greater : OpKind::less;
  if (c.op.attrs->scalarOperand) {
    c.grads[0] = e.binary(OpKind::mul, c.dy, e.scalar(wins, c.op.inputs[0], c.op.attrs->scalar));
    return;
  }
  const TensorId a = c.op.inputs[0];
  const TensorId b = c.op.inputs[1];
  if (c.need(0)) c.grads[0] = toInput(e, c, 0, e.binary(OpKind::mul, c.dy, e.binary(wins, a, b)));
  if (c.need(1)) c.grads[1] = toInput(e, c, 1, e.binary(OpKind::mul, c.dy, e.binary(wins, b, a)));
}

// where(c, a, b): a takes dy where c holds, b the rest.
void whereAdjoint(Emitter& e, const AdjointCall& c) {
  const TensorId picked = e.binary(OpKind::mul, c.dy, c.op.inputs[0]);
  if (c.need(1)) c.grads[1] = toInput(e, c, 1, picked);
  if (c.need(2)) c.grads[2] = toInput(e, c, 2, e.binary(OpKind::sub, c.dy, picked));
}

}  // namespace nndna::grad
