// Fused ML ops: softmax family, causal masking, categorical sampling, rope, dropout, losses and
// normalisation layers.
#include <cmath>
#include <limits>

#include "eval/kernel.hpp"
#include "eval/random.hpp"

namespace nndna::eval {

using ir::OpKind;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// log Σ exp over `n` values `stride` apart, shifted by the maximum for stability.
double logSumExp(const double* x, std::int64_t n, std::int64_t stride) {
  double m = -kInf;
  for (std::int64_t j = 0; j < n; ++j) m = std::max(m, x[j * stride]);
  if (m == -kInf) return -kInf;
  double s = 0.0;
  for (std::int64_t j = 0; j < n; ++j) s += std::exp(x[j * stride] - m);
  return m + std::log(s);
}
}  // namespace

Value evalSoftmax(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const bool isLog = ctx.op.kind == OpKind::log_softmax;
  const AxisSplit s = splitAt(x.shape, ctx.axis(ctx.attrs().axis, x.shape.size()));
  Value out = ctx.result();
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      const std::int64_t base = o * s.size * s.inner + i;
      const double lse = logSumExp(x.data.data() + base, s.size, s.inner);
      for (std::int64_t j = 0; j < s.size; ++j) {
        const auto at = static_cast<std::size_t>(base + j * s.inner);
        out.data[at] = isLog ? x.data[at] - lse : std::exp(x.data[at] - lse);
      }
    }
  }
  return out;
}

// Softmax over the last axis of [.., T, T] with key positions after the query masked out.
Value evalSoftmaxCausal(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const std::int64_t t = x.shape.back();
  Value out = ctx.result();
  const std::int64_t rows = x.numel() / t;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t q = r % t;  // the query position: keys 0..q are visible
    const double* row = x.data.data() + r * t;
    const double lse = logSumExp(row, q + 1, 1);
    for (std::int64_t k = 0; k <= q; ++k) {
      out.data[static_cast<std::size_t>(r * t + k)] = std::exp(row[k] - lse);
    }
  }
  return out;
}

Value evalWhereCausal(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const std::int64_t t = x.shape.back();
  Value out = ctx.result();
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    const auto col = static_cast<std::int64_t>(i) % t;
    const auto row = (static_cast<std::int64_t>(i) / t) % t;
    out.data[i] = col > row ? ctx.attrs().scalar : x.data[i];
  }
  return out;
}

// Gumbel-max: argmax over the axis of logits + Gumbel noise (one draw per logit).
Value evalCategorical(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const AxisSplit s = splitAt(x.shape, ctx.axis(ctx.attrs().axis, x.shape.size()));
  const RandomStream stream(ctx.runSeed, ctx.attrs().seed);
  Value out = ctx.result();
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      std::int64_t best = 0;
      double bestScore = -kInf;
      for (std::int64_t j = 0; j < s.size; ++j) {
        const auto at = static_cast<std::uint64_t>((o * s.size + j) * s.inner + i);
        const double gumbel = -std::log(-std::log(stream.uniformOpen(at)));
        const double score = x.data[at] + gumbel;
        if (score > bestScore) {
          bestScore = score;
          best = j;
        }
      }
      out.data[static_cast<std::size_t>(o * s.inner + i)] = static_cast<double>(best);
    }
  }
  return out;
}

// Rotary embedding, "rotate half" layout (GPT-NeoX, Hugging Face LLaMA): for position t (axis -2)
// and i < Dh/2, θ = t · base^(-2i/Dh) rotates the pair (x[i], x[i + Dh/2]).
Value evalRope(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const std::size_t r = x.shape.size();
  const std::int64_t t = x.shape[r - 2];
  const std::int64_t dh = x.shape[r - 1];
  const std::int64_t half = dh / 2;
  const double base = ctx.attrs().scalar;
  Value out = ctx.result();
  const std::int64_t rows = x.numel() / dh;
  for (std::int64_t row = 0; row < rows; ++row) {
    const auto pos = static_cast<double>(row % t);
    const double* in = x.data.data() + row * dh;
    double* o = out.data.data() + row * dh;
    for (std::int64_t i = 0; i < half; ++i) {
      const double theta = pos * std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(dh));
      const double c = std::cos(theta), s = std::sin(theta);
      o[i] = in[i] * c - in[i + half] * s;
      o[i + half] = in[i + half] * c + in[i] * s;
    }
  }
  return out;
}

// Inverted dropout: element i is dropped when its draw is below p, kept ones scale by 1/(1-p).
Value evalDropout(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const double p = ctx.attrs().scalar;
  if (!(p >= 0.0 && p < 1.0)) ctx.fail("p must be in [0, 1), got {}", p);
  const RandomStream stream(ctx.runSeed, ctx.attrs().seed);
  Value out = ctx.result();
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    out.data[i] = stream.uniform(i) < p ? 0.0 : x.data[i] / (1.0 - p);
  }
  return out;
}

// crossEntropy(logits, t) = logsumexp(logits) - logits[t]; nllLoss(logProbs, t) = -logProbs[t].
Value evalLoss(const OpContext& ctx) {
  const Value& scores = ctx.in(0);
  const Value& targets = ctx.in(1);
  const std::int64_t classes = scores.shape.back();
  const std::int64_t rows = targets.numel();
  std::vector<double> losses(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    const double* row = scores.data.data() + r * classes;
    const std::int64_t t = ctx.index(targets.data[static_cast<std::size_t>(r)], classes, "target");
    losses[static_cast<std::size_t>(r)] =
        ctx.op.kind == OpKind::cross_entropy ? logSumExp(row, classes, 1) - row[t] : -row[t];
  }
  Value out = ctx.result();
  switch (ctx.attrs().reduction) {
    case Reduction::none: out.data = std::move(losses); break;
    case Reduction::sum:
    case Reduction::mean: {
      double total = 0.0;
      for (const double l : losses) total += l;
      out.data[0] = ctx.attrs().reduction == Reduction::mean ? total / static_cast<double>(rows)
                                                             : total;
      break;
    }
  }
  return out;
}

// Over the last axis: (x - mean) / sqrt(var + eps) · weight + bias, var biased.
Value evalLayerNorm(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const Value& w = ctx.in(1);
  const Value* b = ctx.inputs.size() > 2 ? ctx.inputs[2] : nullptr;
  const std::int64_t d = x.shape.back();
  Value out = ctx.result();
  for (std::int64_t r = 0; r < x.numel() / d; ++r) {
    const double* in = x.data.data() + r * d;
    double mean = 0.0, var = 0.0;
    for (std::int64_t j = 0; j < d; ++j) mean += in[j];
    mean /= static_cast<double>(d);
    for (std::int64_t j = 0; j < d; ++j) var += (in[j] - mean) * (in[j] - mean);
    var /= static_cast<double>(d);
    const double inv = 1.0 / std::sqrt(var + ctx.attrs().scalar);
    for (std::int64_t j = 0; j < d; ++j) {
      const auto k = static_cast<std::size_t>(j);
      out.data[static_cast<std::size_t>(r * d + j)] =
          (in[j] - mean) * inv * w.data[k] + (b != nullptr ? b->data[k] : 0.0);
    }
  }
  return out;
}

// Over the last axis: x / sqrt(mean(x²) + eps) · weight.
Value evalRmsNorm(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const Value& w = ctx.in(1);
  const std::int64_t d = x.shape.back();
  Value out = ctx.result();
  for (std::int64_t r = 0; r < x.numel() / d; ++r) {
    const double* in = x.data.data() + r * d;
    double ms = 0.0;
    for (std::int64_t j = 0; j < d; ++j) ms += in[j] * in[j];
    const double inv = 1.0 / std::sqrt(ms / static_cast<double>(d) + ctx.attrs().scalar);
    for (std::int64_t j = 0; j < d; ++j) {
      out.data[static_cast<std::size_t>(r * d + j)] = in[j] * inv * w.data[static_cast<std::size_t>(j)];
    }
  }
  return out;
}

// Per channel of NCHW: (x - mean) / sqrt(var + eps) · weight + bias, with the batch's biased
// statistics over N, H, W (batch_norm2d) or the given running ones (batch_norm2d_inference).
Value evalBatchNorm2d(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const Value& w = ctx.in(1);
  const Value& b = ctx.in(2);
  const bool inference = ctx.op.kind == OpKind::batch_norm2d_inference;
  const std::int64_t n = x.shape[0], c = x.shape[1], hw = x.shape[2] * x.shape[3];
  const auto count = static_cast<double>(n * hw);
  Value out = ctx.result();
  for (std::int64_t ch = 0; ch < c; ++ch) {
    const auto k = static_cast<std::size_t>(ch);
    double mean = 0.0, var = 0.0;
    if (inference) {
      mean = ctx.in(3).data[k];
      var = ctx.in(4).data[k];
    } else {
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = 0; j < hw; ++j) mean += x.data[static_cast<std::size_t>((i * c + ch) * hw + j)];
      }
      mean /= count;
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = 0; j < hw; ++j) {
          const double dv = x.data[static_cast<std::size_t>((i * c + ch) * hw + j)] - mean;
          var += dv * dv;
        }
      }
      var /= count;
    }
    const double inv = 1.0 / std::sqrt(var + ctx.attrs().scalar);
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < hw; ++j) {
        const auto at = static_cast<std::size_t>((i * c + ch) * hw + j);
        out.data[at] = (x.data[at] - mean) * inv * w.data[k] + b.data[k];
      }
    }
  }
  return out;
}

// x [N, C, ...] in groups of C/groups channels: each (sample, group) is one contiguous row,
// normalised by its own biased statistics, then weight and bias per channel (when affine).
Value evalGroupNorm(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const bool affine = ctx.inputs.size() == 3;
  const GroupRows g(x.shape, ctx.attrs().count);
  Value out = ctx.result();
  for (std::int64_t r = 0; r < g.count; ++r) {
    const double* in = x.data.data() + r * g.row;
    const Moments m = momentsOf(in, g.row, 1, ctx.attrs().scalar);
    for (std::int64_t j = 0; j < g.row; ++j) {
      double y = (in[j] - m.mean) * m.inv;
      if (affine) y = y * ctx.in(1).data[g.channel(r, j)] + ctx.in(2).data[g.channel(r, j)];
      out.data[static_cast<std::size_t>(r * g.row + j)] = y;
    }
  }
  return out;
}

}  // namespace nndna::eval
