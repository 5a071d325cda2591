// Optimizer and state-update kinds (Phase::optimizer), made by optimizer lowering (src/optim) and
// BatchNorm2d's running statistics; semantics in docs/ir.md "Backward and optimizer kinds".
#include <algorithm>
#include <cmath>

#include "eval/kernel.hpp"

namespace nndna::eval {

using ir::OpKind;

namespace {
// Element i of an operand that is either as large as the output or a single (rank-0) value.
double element(const OpContext& ctx, const Value& v, std::size_t i, std::size_t n) {
  if (v.data.size() == n) return v.data[i];
  if (v.data.size() == 1) return v.data[0];
  ctx.fail("operand {} is neither a scalar nor {} values", describe(v), n);
}
}  // namespace

// (1 - momentum) · running + momentum · batch statistic, per channel of NCHW x; the variance is
// the unbiased one, as PyTorch keeps (one value per channel divides by 1).
Value evalBatchNormRunning(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const Value& running = ctx.in(1);
  const double momentum = ctx.attrs().scalar;
  const bool isVar = ctx.op.kind == OpKind::batch_norm2d_running_var;
  const std::int64_t n = x.shape[0], c = x.shape[1], hw = x.shape[2] * x.shape[3];
  const std::int64_t count = n * hw;
  Value out = ctx.result();
  for (std::int64_t ch = 0; ch < c; ++ch) {
    double mean = 0.0, ss = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < hw; ++j) mean += x.data[static_cast<std::size_t>((i * c + ch) * hw + j)];
    }
    mean /= static_cast<double>(count);
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < hw; ++j) {
        const double d = x.data[static_cast<std::size_t>((i * c + ch) * hw + j)] - mean;
        ss += d * d;
      }
    }
    const double stat = isVar ? ss / static_cast<double>(std::max<std::int64_t>(count - 1, 1)) : mean;
    const auto k = static_cast<std::size_t>(ch);
    out.data[k] = (1.0 - momentum) * running.data[k] + momentum * stat;
  }
  return out;
}

// adam_moment1: β1·m + (1-β1)·g; adam_moment2: β2·v + (1-β2)·g²; sgd_momentum: μ·buf + g.
Value evalMoment(const OpContext& ctx, MomentFn f) {
  const Value& m = ctx.in(0);
  const Value& g = ctx.in(1);
  if (m.shape != g.shape) ctx.fail("state {} and gradient {} differ", describe(m), describe(g));
  const double b = ctx.attrs().scalar;
  Value out = ctx.result();
  for (std::size_t i = 0; i < m.data.size(); ++i) out.data[i] = f(m.data[i], g.data[i], b);
  return out;
}

namespace math {
double adamMoment1(double m, double g, double beta) { return beta * m + (1.0 - beta) * g; }
double adamMoment2(double v, double g, double beta) { return beta * v + (1.0 - beta) * g * g; }
double sgdMomentum(double buf, double g, double momentum) { return momentum * buf + g; }
}  // namespace math

// p - lr · (m̂ / (sqrt(v̂) + eps) + wd · p) with m̂ = m / bc1, v̂ = v / bc2 (decoupled decay).
Value evalAdamUpdate(const OpContext& ctx) {
  const Value& p = ctx.in(0);
  const Value& m = ctx.in(1);
  const Value& v = ctx.in(2);
  const std::size_t n = p.data.size();
  const double eps = ctx.attrs().scalar;
  const double wd = ctx.attrs().scalar2;
  Value out = ctx.result();
  for (std::size_t i = 0; i < n; ++i) {
    const double lr = element(ctx, ctx.in(3), i, n);
    const double mhat = element(ctx, m, i, n) / element(ctx, ctx.in(4), i, n);
    const double vhat = element(ctx, v, i, n) / element(ctx, ctx.in(5), i, n);
    out.data[i] = p.data[i] - lr * (mhat / (std::sqrt(vhat) + eps) + wd * p.data[i]);
  }
  return out;
}

// p - lr · d.
Value evalSgdUpdate(const OpContext& ctx) {
  const Value& p = ctx.in(0);
  const std::size_t n = p.data.size();
  Value out = ctx.result();
  for (std::size_t i = 0; i < n; ++i) {
    out.data[i] = p.data[i] - element(ctx, ctx.in(2), i, n) * element(ctx, ctx.in(1), i, n);
  }
  return out;
}

}  // namespace nndna::eval
