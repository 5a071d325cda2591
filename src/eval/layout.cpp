// Constants, layout and indexing ops: zeros/ones/arange/randn, reshape, permute, narrow, concat,
// stack, heads, oneHot, embedding, takeAlongAxis, nearestUpsample2d.
#include <algorithm>
#include <numeric>

#include "eval/kernel.hpp"
#include "eval/random.hpp"

namespace nndna::eval {

using ir::OpKind;

namespace {
// out[i] = x[permuted index]: `axes[i]` is the input axis that output axis i reads.
Value permuted(const OpContext& ctx, const Value& x, std::span<const std::int64_t> axes,
               Value out) {
  const std::vector<std::int64_t> inStrides = stridesOf(x.shape);
  Shape shape(axes.size());
  std::vector<std::int64_t> strides(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::size_t a = ctx.axis(axes[i], x.shape.size());
    shape[i] = x.shape[a];
    strides[i] = inStrides[a];
  }
  if (shape != out.shape) {
    ctx.fail("permuting {} by the axes gives {}, the IR says {}", ir::formatShape(x.shape),
             ir::formatShape(shape), ir::formatShape(out.shape));
  }
  forEachStrided<1>(shape, {strides}, [&](std::int64_t flat, const std::array<std::int64_t, 1>& off) {
    out.data[static_cast<std::size_t>(flat)] = x.data[static_cast<std::size_t>(off[0])];
  });
  return out;
}
}  // namespace

Value evalConstant(const OpContext& ctx) {
  Value out = ctx.result();
  switch (ctx.op.kind) {
    case OpKind::ones: std::fill(out.data.begin(), out.data.end(), 1.0); break;
    case OpKind::arange: std::iota(out.data.begin(), out.data.end(), 0.0); break;
    case OpKind::randn: {
      const RandomStream stream(ctx.runSeed, ctx.attrs().seed);
      for (std::size_t i = 0; i < out.data.size(); ++i) out.data[i] = stream.normal(i);
      break;
    }
    default: break;  // zeros
  }
  return out;
}

// reshape, and the identities stop_gradient and capture: the row-major data is unchanged.
Value evalReshape(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  if (static_cast<std::int64_t>(x.data.size()) != ir::numel(ctx.out.shape)) {
    ctx.fail("{} cannot become {}", describe(x), ir::formatShape(ctx.out.shape));
  }
  Value out = x;
  out.shape = ctx.out.shape;
  out.dtype = ctx.out.dtype;
  return out;
}

Value evalPermute(const OpContext& ctx) {
  return permuted(ctx, ctx.in(0), ctx.attrs().dims, ctx.result());
}

Value evalNarrow(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const ir::OpAttrs& a = ctx.attrs();
  const AxisSplit s = splitAt(x.shape, ctx.axis(a.axis, x.shape.size()));
  if (a.start < 0 || a.count < 0 || a.start + a.count > s.size) {
    ctx.fail("range start {} length {} does not fit an axis of size {}", a.start, a.count, s.size);
  }
  Value out = ctx.result();
  const std::int64_t chunk = a.count * s.inner;
  for (std::int64_t o = 0; o < s.outer; ++o) {
    const auto from = x.data.begin() + (o * s.size + a.start) * s.inner;
    std::copy(from, from + chunk, out.data.begin() + o * chunk);
  }
  return out;
}

// Joins inputs along an existing axis (concat), or along a new one (stack: each input counts
// as size 1 on it).
namespace {
Value joined(const OpContext& ctx, std::size_t axis) {
  Value out = ctx.result();
  const AxisSplit os = splitAt(out.shape, axis);
  std::int64_t offset = 0;  // along the axis
  for (const Value* v : ctx.inputs) {
    const std::int64_t size = ctx.op.kind == OpKind::stack ? 1 : v->shape[axis];
    const std::int64_t chunk = size * os.inner;
    for (std::int64_t o = 0; o < os.outer; ++o) {
      const auto from = v->data.begin() + o * chunk;
      std::copy(from, from + chunk, out.data.begin() + (o * os.size + offset) * os.inner);
    }
    offset += size;
  }
  if (offset != os.size) ctx.fail("inputs fill {} of the {} places along the axis", offset, os.size);
  return out;
}
}  // namespace

Value evalConcat(const OpContext& ctx) {
  return joined(ctx, ctx.axis(ctx.attrs().axis, ctx.out.shape.size()));
}

Value evalStack(const OpContext& ctx) {
  return joined(ctx, ctx.axis(ctx.attrs().axis, ctx.out.shape.size()));
}

// [B, T, D] -> [B, H, T, D/H]: a reshape to [B, T, H, D/H] and a swap of T and H.
Value evalSplitHeads(const OpContext& ctx) {
  Value x = ctx.in(0);
  const Shape& o = ctx.out.shape;
  x.shape = {o[0], o[2], o[1], o[3]};
  const std::array<std::int64_t, 4> axes{0, 2, 1, 3};
  return permuted(ctx, x, axes, ctx.result());
}

// [B, H, T, Dh] -> [B, T, H·Dh].
Value evalMergeHeads(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const std::array<std::int64_t, 4> axes{0, 2, 1, 3};
  Value tmp;
  tmp.shape = {x.shape[0], x.shape[2], x.shape[1], x.shape[3]};
  tmp.dtype = x.dtype;
  tmp.data.assign(x.data.size(), 0.0);
  Value out = permuted(ctx, x, axes, std::move(tmp));
  out.shape = ctx.out.shape;
  return out;
}

Value evalOneHot(const OpContext& ctx) {
  const Value& idx = ctx.in(0);
  Value out = ctx.result();
  const std::int64_t depth = ctx.attrs().count;
  for (std::size_t i = 0; i < idx.data.size(); ++i) {
    const std::int64_t k = ctx.index(idx.data[i], depth, "index");
    out.data[i * static_cast<std::size_t>(depth) + static_cast<std::size_t>(k)] = 1.0;
  }
  return out;
}

Value evalEmbedding(const OpContext& ctx) {
  const Value& table = ctx.in(0);
  const Value& idx = ctx.in(1);
  Value out = ctx.result();
  const std::int64_t vocab = table.shape[0];
  const std::int64_t dim = table.shape[1];
  for (std::size_t i = 0; i < idx.data.size(); ++i) {
    const std::int64_t row = ctx.index(idx.data[i], vocab, "token index");
    const auto from = table.data.begin() + row * dim;
    std::copy(from, from + dim, out.data.begin() + static_cast<std::int64_t>(i) * dim);
  }
  return out;
}

// out[o, j, i] = x[o, idx[o, j, i], i] around the axis (PyTorch's gather).
Value evalTakeAlongAxis(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const Value& idx = ctx.in(1);
  const std::size_t axis = ctx.axis(ctx.attrs().axis, x.shape.size());
  const AxisSplit xs = splitAt(x.shape, axis);
  const AxisSplit is = splitAt(idx.shape, axis);
  if (xs.outer != is.outer || xs.inner != is.inner) {
    ctx.fail("indices {} do not match the input {} outside axis {}", describe(idx), describe(x),
             axis);
  }
  Value out = ctx.result();
  for (std::int64_t o = 0; o < is.outer; ++o) {
    for (std::int64_t j = 0; j < is.size; ++j) {
      for (std::int64_t i = 0; i < is.inner; ++i) {
        const auto at = static_cast<std::size_t>((o * is.size + j) * is.inner + i);
        const std::int64_t k = ctx.index(idx.data[at], xs.size, "index");
        out.data[at] = x.data[static_cast<std::size_t>((o * xs.size + k) * xs.inner + i)];
      }
    }
  }
  return out;
}

Value evalNearestUpsample2d(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const std::int64_t f = ctx.attrs().count;
  Value out = ctx.result();
  const std::int64_t planes = x.shape[0] * x.shape[1];
  const std::int64_t h = x.shape[2];
  const std::int64_t w = x.shape[3];
  std::size_t k = 0;
  for (std::int64_t p = 0; p < planes; ++p) {
    for (std::int64_t y = 0; y < h * f; ++y) {
      for (std::int64_t xx = 0; xx < w * f; ++xx) {
        out.data[k++] = x.data[static_cast<std::size_t>((p * h + y / f) * w + xx / f)];
      }
    }
  }
  return out;
}

}  // namespace nndna::eval
