// Reductions: mean, sum (over one axis or every element), argmax, argmin.
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

}  // namespace nndna::eval
