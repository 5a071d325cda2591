// Backward kinds made by autodiff (src/grad); their semantics are in docs/ir.md "Backward and
// optimizer kinds". dy is the gradient flowing into the forward op's output, x its input, y its
// output.
#include <cmath>
#include <numbers>

#include "eval/kernel.hpp"

namespace nndna::eval {

using ir::OpKind;

namespace {

void requireSameSize(const OpContext& ctx, const Value& a, const Value& b) {
  if (a.shape != b.shape) ctx.fail("operands {} and {} must have one shape", describe(a), describe(b));
}

}  // namespace

Moments momentsOf(const double* x, std::int64_t n, std::int64_t stride, double eps) {
  double mean = 0.0, var = 0.0;
  for (std::int64_t j = 0; j < n; ++j) mean += x[j * stride];
  mean /= static_cast<double>(n);
  for (std::int64_t j = 0; j < n; ++j) var += (x[j * stride] - mean) * (x[j * stride] - mean);
  var /= static_cast<double>(n);
  return {mean, 1.0 / std::sqrt(var + eps)};
}

namespace math {
double reluDerivative(double v, const ir::OpAttrs&) { return v > 0 ? 1.0 : 0.0; }
double geluDerivative(double x, const ir::OpAttrs& a) {
  if (!a.approximate) {
    const double cdf = 0.5 * (1.0 + std::erf(x / std::numbers::sqrt2));
    const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
    return cdf + x * pdf;
  }
  const double c = std::sqrt(2.0 / std::numbers::pi);
  const double t = std::tanh(c * (x + 0.044715 * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * c * (1.0 + 3.0 * 0.044715 * x * x);
}
double siluDerivative(double v, const ir::OpAttrs&) {
  const double s = eval::sigmoid(v);
  return s * (1.0 + v * (1.0 - s));
}
double leakyReluDerivative(double v, const ir::OpAttrs& a) { return v > 0 ? 1.0 : a.scalar; }
double softplusDerivative(double v, const ir::OpAttrs&) { return eval::sigmoid(v); }
double clampDerivative(double v, const ir::OpAttrs& a) { return v >= a.scalar && v <= a.scalar2 ? 1.0 : 0.0; }
double absDerivative(double v, const ir::OpAttrs&) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }
double tanhDerivative(double y, const ir::OpAttrs&) { return 1.0 - y * y; }
double sigmoidDerivative(double y, const ir::OpAttrs&) { return y * (1.0 - y); }
}  // namespace math

Value evalSumToShape(const OpContext& ctx) {
  const Value& dy = ctx.in(0);
  Value out = ctx.result();
  if (out.shape.size() > dy.shape.size()) {
    ctx.fail("cannot sum {} down to {}", describe(dy), ir::formatShape(out.shape));
  }
  forEachStrided<1>(dy.shape, {broadcastStrides(out.shape, dy.shape)},
                    [&](std::int64_t flat, const std::array<std::int64_t, 1>& off) {
                      out.data[static_cast<std::size_t>(off[0])] += dy.data[static_cast<std::size_t>(flat)];
                    });
  return out;
}

// relu_grad ... sigmoid_grad: dy times the local derivative at x (or y).
Value evalActivationGrad(const OpContext& ctx, DerivativeFn derivative) {
  const Value& dy = ctx.in(0);
  const Value& v = ctx.in(1);
  requireSameSize(ctx, dy, v);
  Value out = ctx.result();
  for (std::size_t i = 0; i < dy.data.size(); ++i) out.data[i] = dy.data[i] * derivative(v.data[i], ctx.attrs());
  return out;
}

// softmax_grad: y · (dy - Σ dy·y); log_softmax_grad: dy - exp(y) · Σ dy.
Value evalSoftmaxGrad(const OpContext& ctx) {
  const Value& dy = ctx.in(0);
  const Value& y = ctx.in(1);
  requireSameSize(ctx, dy, y);
  const bool isLog = ctx.op.kind == OpKind::log_softmax_grad;
  const AxisSplit s = splitAt(y.shape, ctx.axis(ctx.attrs().axis, y.shape.size()));
  Value out = ctx.result();
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      const std::int64_t base = o * s.size * s.inner + i;
      double dot = 0.0;
      for (std::int64_t j = 0; j < s.size; ++j) {
        const auto at = static_cast<std::size_t>(base + j * s.inner);
        dot += isLog ? dy.data[at] : dy.data[at] * y.data[at];
      }
      for (std::int64_t j = 0; j < s.size; ++j) {
        const auto at = static_cast<std::size_t>(base + j * s.inner);
        out.data[at] = isLog ? dy.data[at] - std::exp(y.data[at]) * dot
                             : y.data[at] * (dy.data[at] - dot);
      }
    }
  }
  return out;
}

// The gradient of crossEntropy / nllLoss w.r.t. the logits / logProbs [..., C].
Value evalLossGrad(const OpContext& ctx) {
  const bool isCe = ctx.op.kind == OpKind::cross_entropy_grad;
  const Value& dy = ctx.in(0);
  const Value& targets = ctx.in(isCe ? 2 : 1);
  Value out = ctx.result();
  const std::int64_t classes = out.shape.back();
  const std::int64_t rows = targets.numel();
  const Reduction reduction = ctx.attrs().reduction;
  if (reduction == Reduction::none ? dy.numel() != rows : dy.numel() != 1) {
    ctx.fail("dy {} does not fit {} targets", describe(dy), rows);
  }
  for (std::int64_t r = 0; r < rows; ++r) {
    double scale = reduction == Reduction::none ? dy.data[static_cast<std::size_t>(r)] : dy.data[0];
    if (reduction == Reduction::mean) scale /= static_cast<double>(rows);
    const std::int64_t t = ctx.index(targets.data[static_cast<std::size_t>(r)], classes, "target");
    double* o = out.data.data() + r * classes;
    if (isCe) {
      const double* row = ctx.in(1).data.data() + r * classes;
      double m = row[0];
      for (std::int64_t j = 1; j < classes; ++j) m = std::max(m, row[j]);
      double total = 0.0;
      for (std::int64_t j = 0; j < classes; ++j) total += std::exp(row[j] - m);
      for (std::int64_t j = 0; j < classes; ++j) o[j] = scale * std::exp(row[j] - m) / total;
      o[t] -= scale;
    } else {
      o[t] = -scale;
    }
  }
  return out;
}

Value evalEmbeddingGrad(const OpContext& ctx) {
  const Value& dy = ctx.in(0);
  const Value& idx = ctx.in(1);
  Value out = ctx.result();
  const std::int64_t vocab = out.shape[0];
  const std::int64_t dim = out.shape[1];
  for (std::size_t i = 0; i < idx.data.size(); ++i) {
    const std::int64_t row = ctx.index(idx.data[i], vocab, "token index");
    if (row == ctx.attrs().paddingIdx) continue;  // no gradient
    for (std::int64_t j = 0; j < dim; ++j) {
      out.data[static_cast<std::size_t>(row * dim + j)] +=
          dy.data[i * static_cast<std::size_t>(dim) + static_cast<std::size_t>(j)];
    }
  }
  return out;
}

Value evalTakeAlongAxisGrad(const OpContext& ctx) {
  const Value& dy = ctx.in(0);
  const Value& idx = ctx.in(1);
  Value out = ctx.result();
  const std::size_t axis = ctx.axis(ctx.attrs().axis, out.shape.size());
  const AxisSplit xs = splitAt(out.shape, axis);
  const AxisSplit is = splitAt(idx.shape, axis);
  for (std::int64_t o = 0; o < is.outer; ++o) {
    for (std::int64_t j = 0; j < is.size; ++j) {
      for (std::int64_t i = 0; i < is.inner; ++i) {
        const auto at = static_cast<std::size_t>((o * is.size + j) * is.inner + i);
        const std::int64_t k = ctx.index(idx.data[at], xs.size, "index");
        out.data[static_cast<std::size_t>((o * xs.size + k) * xs.inner + i)] += dy.data[at];
      }
    }
  }
  return out;
}

Value evalNarrowGrad(const OpContext& ctx) {
  const Value& dy = ctx.in(0);
  Value out = ctx.result();
  const AxisSplit s = splitAt(out.shape, ctx.axis(ctx.attrs().axis, out.shape.size()));
  const std::int64_t length = dy.shape.empty() ? 1 : splitAt(dy.shape, ctx.axis(ctx.attrs().axis, dy.shape.size())).size;
  if (ctx.attrs().start < 0 || ctx.attrs().start + length > s.size) {
    ctx.fail("dy {} at start {} does not fit {}", describe(dy), ctx.attrs().start,
             ir::formatShape(out.shape));
  }
  const std::int64_t chunk = length * s.inner;
  for (std::int64_t o = 0; o < s.outer; ++o) {
    const auto from = dy.data.begin() + o * chunk;
    std::copy(from, from + chunk, out.data.begin() + (o * s.size + ctx.attrs().start) * s.inner);
  }
  return out;
}

// The transpose of rope: the same pairs rotated by -θ.
Value evalRopeGrad(const OpContext& ctx) {
  const Value& dy = ctx.in(0);
  const std::size_t r = dy.shape.size();
  const std::int64_t t = dy.shape[r - 2];
  const std::int64_t dh = dy.shape[r - 1];
  const std::int64_t half = dh / 2;
  Value out = ctx.result();
  for (std::int64_t row = 0; row < dy.numel() / dh; ++row) {
    const auto pos = static_cast<double>(row % t);
    const double* in = dy.data.data() + row * dh;
    double* o = out.data.data() + row * dh;
    for (std::int64_t i = 0; i < half; ++i) {
      const double theta =
          pos * std::pow(ctx.attrs().scalar, -2.0 * static_cast<double>(i) / static_cast<double>(dh));
      const double c = std::cos(theta), s = std::sin(theta);
      o[i] = in[i] * c + in[i + half] * s;
      o[i + half] = in[i + half] * c - in[i] * s;
    }
  }
  return out;
}

namespace {
// Visits every (output position, kernel tap) pair of a conv2d whose input position is inside the
// image: fn(flat index into the output, into the input, into the weight).
template <class Fn>
void forEachConvTap(const Shape& x, const Shape& w, const Shape& y, const ir::OpAttrs& a, Fn&& fn) {
  const std::int64_t batch = x[0], channels = x[1], h = x[2], wd = x[3];
  const std::int64_t outC = w[0], groupC = w[1], kh = w[2], kw = w[3];
  const std::int64_t oh = y[2], ow = y[3];
  const std::int64_t outPerGroup = outC / a.groups;
  for (std::int64_t n = 0; n < batch; ++n) {
    for (std::int64_t oc = 0; oc < outC; ++oc) {
      const std::int64_t c0 = (oc / outPerGroup) * groupC;
      for (std::int64_t cw = 0; cw < groupC; ++cw) {
        const std::int64_t c = c0 + cw;
        for (std::int64_t ky = 0; ky < kh; ++ky) {
          for (std::int64_t kx = 0; kx < kw; ++kx) {
            const std::int64_t wAt = ((oc * groupC + cw) * kh + ky) * kw + kx;
            for (std::int64_t yy = 0; yy < oh; ++yy) {
              const std::int64_t iy = yy * a.stride[0] - a.padding[0] + ky * a.dilation[0];
              if (iy < 0 || iy >= h) continue;
              for (std::int64_t xx = 0; xx < ow; ++xx) {
                const std::int64_t ix = xx * a.stride[1] - a.padding[1] + kx * a.dilation[1];
                if (ix < 0 || ix >= wd) continue;
                fn(((n * outC + oc) * oh + yy) * ow + xx, ((n * channels + c) * h + iy) * wd + ix,
                   wAt);
              }
            }
          }
        }
      }
    }
  }
}

void checkConvShapes(const OpContext& ctx, const Shape& x, const Shape& w, const Shape& y) {
  const std::int64_t groups = ctx.attrs().groups;
  if (x.size() != 4 || w.size() != 4 || y.size() != 4 || groups <= 0 ||
      w[1] * groups != x[1] || w[0] % groups != 0 || y[1] != w[0] || y[0] != x[0]) {
    ctx.fail("input {}, weight {} and output {} do not form a conv2d with {} groups",
             ir::formatShape(x), ir::formatShape(w), ir::formatShape(y), groups);
  }
}
}  // namespace

Value evalConv2dInputGrad(const OpContext& ctx) {
  const Value& dy = ctx.in(0);
  const Value& w = ctx.in(1);
  Value out = ctx.result();
  checkConvShapes(ctx, out.shape, w.shape, dy.shape);
  forEachConvTap(out.shape, w.shape, dy.shape, ctx.attrs(),
                 [&](std::int64_t yAt, std::int64_t xAt, std::int64_t wAt) {
                   out.data[static_cast<std::size_t>(xAt)] +=
                       dy.data[static_cast<std::size_t>(yAt)] * w.data[static_cast<std::size_t>(wAt)];
                 });
  return out;
}

Value evalConv2dWeightGrad(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const Value& dy = ctx.in(1);
  Value out = ctx.result();
  checkConvShapes(ctx, x.shape, out.shape, dy.shape);
  forEachConvTap(x.shape, out.shape, dy.shape, ctx.attrs(),
                 [&](std::int64_t yAt, std::int64_t xAt, std::int64_t wAt) {
                   out.data[static_cast<std::size_t>(wAt)] +=
                       dy.data[static_cast<std::size_t>(yAt)] * x.data[static_cast<std::size_t>(xAt)];
                 });
  return out;
}

// Each window's dy goes to the first position (row-major in the window) holding its maximum.
Value evalMaxPool2dGrad(const OpContext& ctx) {
  const Value& dy = ctx.in(0);
  const Value& x = ctx.in(1);
  const ir::OpAttrs& a = ctx.attrs();
  const std::int64_t planes = x.shape[0] * x.shape[1], h = x.shape[2], wd = x.shape[3];
  const std::int64_t oh = dy.shape[2], ow = dy.shape[3];
  Value out = ctx.result();
  for (std::int64_t p = 0; p < planes; ++p) {
    const double* in = x.data.data() + p * h * wd;
    for (std::int64_t y = 0; y < oh; ++y) {
      for (std::int64_t xx = 0; xx < ow; ++xx) {
        std::int64_t best = -1;
        for (std::int64_t ky = 0; ky < a.kernel[0]; ++ky) {
          const std::int64_t iy = y * a.stride[0] - a.padding[0] + ky;
          if (iy < 0 || iy >= h) continue;
          for (std::int64_t kx = 0; kx < a.kernel[1]; ++kx) {
            const std::int64_t ix = xx * a.stride[1] - a.padding[1] + kx;
            if (ix < 0 || ix >= wd) continue;
            if (best < 0 || in[iy * wd + ix] > in[best]) best = iy * wd + ix;
          }
        }
        if (best >= 0) {
          out.data[static_cast<std::size_t>(p * h * wd + best)] +=
              dy.data[static_cast<std::size_t>((p * oh + y) * ow + xx)];
        }
      }
    }
  }
  return out;
}

// count_include_pad: a window divides by kH·kW (a ceil_mode window past the padding by its part
// inside it), so each tap passes dy / that back.
Value evalAvgPool2dGrad(const OpContext& ctx) {
  const Value& dy = ctx.in(0);
  const ir::OpAttrs& a = ctx.attrs();
  Value out = ctx.result();
  const std::vector<double> divisors = avgPoolDivisors(out.shape, dy.shape, a);
  const auto plane = static_cast<std::int64_t>(divisors.size());
  forEachWindowTap(out.shape, dy.shape, a, [&](std::int64_t yAt, std::int64_t xAt) {
    out.data[static_cast<std::size_t>(xAt)] +=
        dy.data[static_cast<std::size_t>(yAt)] / divisors[static_cast<std::size_t>(yAt % plane)];
  });
  return out;
}

Value evalNearestUpsample2dGrad(const OpContext& ctx) {
  const Value& dy = ctx.in(0);
  const std::int64_t f = ctx.attrs().count;
  Value out = ctx.result();
  const std::int64_t planes = out.shape[0] * out.shape[1], h = out.shape[2], w = out.shape[3];
  std::size_t k = 0;
  for (std::int64_t p = 0; p < planes; ++p) {
    for (std::int64_t y = 0; y < h * f; ++y) {
      for (std::int64_t xx = 0; xx < w * f; ++xx) {
        out.data[static_cast<std::size_t>((p * h + y / f) * w + xx / f)] += dy.data[k++];
      }
    }
  }
  return out;
}

// Each dy element back to the four input pixels it was mixed from, by their weights.
Value evalBilinearUpsample2dGrad(const OpContext& ctx) {
  const Value& dy = ctx.in(0);
  Value out = ctx.result();
  forEachBilinearTap(out.shape, ctx.attrs(), [&](std::int64_t yAt, std::int64_t xAt, double weight) {
    out.data[static_cast<std::size_t>(xAt)] += weight * dy.data[static_cast<std::size_t>(yAt)];
  });
  return out;
}

// layer_norm_input_grad, rms_norm_input_grad (dy, x, weight) and the weight grads (dy, x), over
// the last axis.
Value evalRowNormGrad(const OpContext& ctx) {
  const OpKind kind = ctx.op.kind;
  const bool rms = kind == OpKind::rms_norm_input_grad || kind == OpKind::rms_norm_weight_grad;
  const bool input = kind == OpKind::layer_norm_input_grad || kind == OpKind::rms_norm_input_grad;
  const Value& dy = ctx.in(0);
  const Value& x = ctx.in(1);
  requireSameSize(ctx, dy, x);
  const double eps = ctx.attrs().scalar;
  const std::int64_t d = x.shape.back();
  Value out = ctx.result();
  std::vector<double> xhat(static_cast<std::size_t>(d));
  std::vector<double> g(static_cast<std::size_t>(d));
  for (std::int64_t r = 0; r < x.numel() / d; ++r) {
    const double* xr = x.data.data() + r * d;
    const double* dyr = dy.data.data() + r * d;
    double inv = 0.0;
    if (rms) {
      double ms = 0.0;
      for (std::int64_t j = 0; j < d; ++j) ms += xr[j] * xr[j];
      inv = 1.0 / std::sqrt(ms / static_cast<double>(d) + eps);
      for (std::int64_t j = 0; j < d; ++j) xhat[static_cast<std::size_t>(j)] = xr[j] * inv;
    } else {
      const Moments m = momentsOf(xr, d, 1, eps);
      inv = m.inv;
      for (std::int64_t j = 0; j < d; ++j) xhat[static_cast<std::size_t>(j)] = (xr[j] - m.mean) * inv;
    }
    if (!input) {
      for (std::int64_t j = 0; j < d; ++j) out.data[static_cast<std::size_t>(j)] += dyr[j] * xhat[static_cast<std::size_t>(j)];
      continue;
    }
    const Value& w = ctx.in(2);
    double meanG = 0.0, meanGx = 0.0;
    for (std::int64_t j = 0; j < d; ++j) {
      const auto k = static_cast<std::size_t>(j);
      g[k] = dyr[j] * w.data[k];
      meanG += g[k];
      meanGx += g[k] * xhat[k];
    }
    meanG /= static_cast<double>(d);
    meanGx /= static_cast<double>(d);
    double* o = out.data.data() + r * d;
    for (std::int64_t j = 0; j < d; ++j) {
      const auto k = static_cast<std::size_t>(j);
      // rms: d(x·inv)/dx has no mean term; layer norm subtracts the mean of g as well.
      o[j] = inv * (g[k] - (rms ? 0.0 : meanG) - xhat[k] * meanGx);
    }
  }
  return out;
}

// batch_norm2d_input_grad (dy, x, weight) and batch_norm2d_weight_grad (dy, x), per channel over
// N, H, W with the batch statistics.
Value evalBatchNormGrad(const OpContext& ctx) {
  const bool input = ctx.op.kind == OpKind::batch_norm2d_input_grad;
  const Value& dy = ctx.in(0);
  const Value& x = ctx.in(1);
  requireSameSize(ctx, dy, x);
  const std::int64_t n = x.shape[0], c = x.shape[1], hw = x.shape[2] * x.shape[3];
  const auto count = static_cast<double>(n * hw);
  Value out = ctx.result();
  for (std::int64_t ch = 0; ch < c; ++ch) {
    double mean = 0.0, var = 0.0;
    auto at = [&](std::int64_t i, std::int64_t j) { return static_cast<std::size_t>((i * c + ch) * hw + j); };
    for (std::int64_t i = 0; i < n; ++i) for (std::int64_t j = 0; j < hw; ++j) mean += x.data[at(i, j)];
    mean /= count;
    for (std::int64_t i = 0; i < n; ++i) for (std::int64_t j = 0; j < hw; ++j) var += (x.data[at(i, j)] - mean) * (x.data[at(i, j)] - mean);
    var /= count;
    const double inv = 1.0 / std::sqrt(var + ctx.attrs().scalar);
    double sumG = 0.0, sumGx = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < hw; ++j) {
        const double xhat = (x.data[at(i, j)] - mean) * inv;
        sumG += dy.data[at(i, j)];
        sumGx += dy.data[at(i, j)] * xhat;
      }
    }
    if (!input) {
      out.data[static_cast<std::size_t>(ch)] = sumGx;
      continue;
    }
    const double w = ctx.in(2).data[static_cast<std::size_t>(ch)];
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < hw; ++j) {
        const double xhat = (x.data[at(i, j)] - mean) * inv;
        out.data[at(i, j)] = w * inv * (dy.data[at(i, j)] - sumG / count - xhat * sumGx / count);
      }
    }
  }
  return out;
}

// group_norm_input_grad (dy, x[, weight]) and group_norm_weight_grad (dy, x). Each (sample,
// group) is one contiguous row of C/groups · spatial elements normalised by its own statistics:
// layer norm's backward over the row, with a per-channel weight.
Value evalGroupNormGrad(const OpContext& ctx) {
  const bool input = ctx.op.kind == OpKind::group_norm_input_grad;
  const Value& dy = ctx.in(0);
  const Value& x = ctx.in(1);
  requireSameSize(ctx, dy, x);
  const Value* w = ctx.inputs.size() > 2 ? ctx.inputs[2] : nullptr;
  const GroupRows rows(x.shape, ctx.attrs().count);
  const std::int64_t n = rows.row;
  Value out = ctx.result();
  for (std::int64_t r = 0; r < rows.count; ++r) {
    const double* xr = x.data.data() + r * n;
    const double* dyr = dy.data.data() + r * n;
    const Moments m = momentsOf(xr, n, 1, ctx.attrs().scalar);
    auto xhat = [&](std::int64_t j) { return (xr[j] - m.mean) * m.inv; };
    if (!input) {
      for (std::int64_t j = 0; j < n; ++j) out.data[rows.channel(r, j)] += dyr[j] * xhat(j);
      continue;
    }
    auto g = [&](std::int64_t j) { return dyr[j] * (w != nullptr ? w->data[rows.channel(r, j)] : 1.0); };
    double meanG = 0.0, meanGx = 0.0;
    for (std::int64_t j = 0; j < n; ++j) {
      meanG += g(j);
      meanGx += g(j) * xhat(j);
    }
    meanG /= static_cast<double>(n);
    meanGx /= static_cast<double>(n);
    double* o = out.data.data() + r * n;
    for (std::int64_t j = 0; j < n; ++j) o[j] = m.inv * (g(j) - meanG - xhat(j) * meanGx);
  }
  return out;
}

}  // namespace nndna::eval
