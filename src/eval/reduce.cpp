// Reductions: mean, sum (over one axis or every element), argmax, argmin; the scans along an
// axis: cumsum (and its backward, cumsum_grad), topk.
#include <algorithm>
#include <numeric>

#include "eval/kernel.hpp"

namespace nndna::eval {

using ir::OpKind;

Value evalReduce(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  Value out = ctx.result();
  const bool isMean = ctx.op.kind == OpKind::mean;
  const bool integer = ctx.out.dtype == DType::i32;
  if (ctx.attrs().allAxes) {
    double total = 0.0;
    std::int64_t itotal = 0;
    for (const double v : x.data) {
      total += v;
      itotal += static_cast<std::int64_t>(v);
    }
    if (integer) {
      out.data[0] = wrapI32(itotal);
    } else {
      out.data[0] = isMean ? total / static_cast<double>(x.data.size()) : total;
    }
    return out;
  }
  const AxisSplit s = splitAt(x.shape, ctx.axis(ctx.attrs().axis, x.shape.size()));
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      double total = 0.0;
      std::int64_t itotal = 0;
      for (std::int64_t j = 0; j < s.size; ++j) {
        const double v = x.data[static_cast<std::size_t>((o * s.size + j) * s.inner + i)];
        total += v;
        itotal += static_cast<std::int64_t>(v);
      }
      double& r = out.data[static_cast<std::size_t>(o * s.inner + i)];
      if (integer) {
        r = wrapI32(itotal);
      } else {
        r = isMean ? total / static_cast<double>(s.size) : total;
      }
    }
  }
  return out;
}

// The first index of the largest (argmax) or smallest (argmin) value, as PyTorch.
Value evalArgReduce(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  Value out = ctx.result();
  const bool isMax = ctx.op.kind == OpKind::argmax;
  const AxisSplit s = splitAt(x.shape, ctx.axis(ctx.attrs().axis, x.shape.size()));
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      std::int64_t best = 0;
      double bestValue = x.data[static_cast<std::size_t>(o * s.size * s.inner + i)];
      for (std::int64_t j = 1; j < s.size; ++j) {
        const double v = x.data[static_cast<std::size_t>((o * s.size + j) * s.inner + i)];
        if (isMax ? v > bestValue : v < bestValue) {
          best = j;
          bestValue = v;
        }
      }
      out.data[static_cast<std::size_t>(o * s.inner + i)] = static_cast<double>(best);
    }
  }
  return out;
}

namespace {
// The inclusive running sum along the axis, from its start or (fromEnd) from its end; i32
// wraps as GPU arithmetic does.
Value runningSum(const OpContext& ctx, bool fromEnd) {
  const Value& x = ctx.in(0);
  Value out = ctx.result();
  const bool integer = ctx.out.dtype == DType::i32;
  const AxisSplit s = splitAt(x.shape, ctx.axis(ctx.attrs().axis, x.shape.size()));
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      double total = 0.0;
      std::int64_t itotal = 0;
      for (std::int64_t step = 0; step < s.size; ++step) {
        const std::int64_t j = fromEnd ? s.size - 1 - step : step;
        const auto at = static_cast<std::size_t>((o * s.size + j) * s.inner + i);
        if (integer) {
          itotal = static_cast<std::int64_t>(wrapI32(itotal + static_cast<std::int64_t>(x.data[at])));
          out.data[at] = static_cast<double>(itotal);
        } else {
          total += x.data[at];
          out.data[at] = total;
        }
      }
    }
  }
  return out;
}
}  // namespace

Value evalCumsum(const OpContext& ctx) { return runningSum(ctx, false); }

// The adjoint of a running sum: dx[j] = dy[j] + ... + dy[n - 1].
Value evalCumsumGrad(const OpContext& ctx) { return runningSum(ctx, true); }

// The indices of the k largest values along the axis, largest first; equal values keep their
// order (the lower index first), and NaN counts as larger than any number, as in PyTorch.
Value evalTopk(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  Value out = ctx.result();
  const AxisSplit s = splitAt(x.shape, ctx.axis(ctx.attrs().axis, x.shape.size()));
  const std::int64_t k = ctx.attrs().count;
  if (k < 1 || k > s.size) ctx.fail("k {} does not fit an axis of size {}", k, s.size);
  std::vector<std::int64_t> order(static_cast<std::size_t>(s.size));
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      auto value = [&](std::int64_t j) { return x.data[static_cast<std::size_t>((o * s.size + j) * s.inner + i)]; };
      auto larger = [&](std::int64_t a, std::int64_t b) {
        const double va = value(a), vb = value(b);
        if (std::isnan(va) || std::isnan(vb)) return !std::isnan(vb);
        return va > vb;
      };
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), larger);
      for (std::int64_t j = 0; j < k; ++j) {
        out.data[static_cast<std::size_t>((o * k + j) * s.inner + i)] =
            static_cast<double>(order[static_cast<std::size_t>(j)]);
      }
    }
  }
  return out;
}

}  // namespace nndna::eval
