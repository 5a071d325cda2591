// Constants, layout and indexing ops: zeros/ones/arange/randn, reshape, permute, narrow, pad,
// concat, stack, heads, oneHot, embedding, takeAlongAxis, nearestUpsample2d, bilinearUpsample2d.
#include <algorithm>
#include <numeric>

#include "eval/kernel.hpp"
#include "eval/random.hpp"

namespace nndna::eval {

using ir::OpKind;

// ----- views: each output element is an input element at a strided offset -----------------------

Value evalView(const OpContext& ctx, ViewStrides strides) {
  const Value& x = ctx.in(0);
  Value out = ctx.result();
  forEachStrided<1>(out.shape, {strides(ctx)}, [&](std::int64_t flat, const std::array<std::int64_t, 1>& off) {
    out.data[static_cast<std::size_t>(flat)] = x.data[static_cast<std::size_t>(off[0])];
  });
  return out;
}

// reshape and the identities stop_gradient, capture: the row-major data is unchanged.
std::vector<std::int64_t> aliasStrides(const OpContext& ctx) {
  if (ctx.in(0).numel() != ir::numel(ctx.out.shape)) {
    ctx.fail("{} cannot become {}", describe(ctx.in(0)), ir::formatShape(ctx.out.shape));
  }
  return stridesOf(ctx.out.shape);
}

// Output axis i reads input axis axes[i].
std::vector<std::int64_t> permuteStrides(const OpContext& ctx) {
  const Shape& in = ctx.in(0).shape;
  const std::vector<std::int64_t>& axes = ctx.attrs().dims;
  const std::vector<std::int64_t> inStrides = stridesOf(in);
  Shape shape(axes.size());
  std::vector<std::int64_t> strides(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::size_t a = ctx.axis(axes[i], in.size());
    shape[i] = in[a];
    strides[i] = inStrides[a];
  }
  if (shape != ctx.out.shape) {
    ctx.fail("permuting {} by the axes gives {}, the IR says {}", ir::formatShape(in),
             ir::formatShape(shape), ir::formatShape(ctx.out.shape));
  }
  return strides;
}

std::vector<std::int64_t> broadcastToStrides(const OpContext& ctx) {
  return broadcastStrides(ctx.in(0).shape, ctx.out.shape);
}

// [B, T, D] -> [B, H, T, D/H]: out[b, h, t, d] = in[b, t, h·(D/H) + d].
std::vector<std::int64_t> splitHeadsStrides(const OpContext& ctx) {
  const Shape& o = ctx.out.shape;
  const std::int64_t d = o[1] * o[3];
  return {o[2] * d, o[3], d, 1};
}

// ----- constants ------------------------------------------------------------------------------

Value evalZeros(const OpContext& ctx) { return ctx.result(); }

Value evalOnes(const OpContext& ctx) {
  Value out = ctx.result();
  std::fill(out.data.begin(), out.data.end(), 1.0);
  return out;
}

// start + i·step (exact for i32 ranges: whole numbers within i32).
Value evalArange(const OpContext& ctx) {
  Value out = ctx.result();
  for (std::size_t i = 0; i < out.data.size(); ++i) {
    out.data[i] = ctx.attrs().scalar + static_cast<double>(i) * ctx.attrs().scalar2;
  }
  return out;
}

Value evalRandn(const OpContext& ctx) {
  Value out = ctx.result();
  const RandomStream stream(ctx.runSeed, ctx.attrs().seed);
  for (std::size_t i = 0; i < out.data.size(); ++i) out.data[i] = stream.normal(i);
  return out;
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

// out[i] = x[i - before] on every axis, the fill value where that is outside x (negative amounts
// crop).
Value evalPad(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const std::vector<std::int64_t>& amounts = ctx.attrs().dims;
  const std::size_t rank = x.shape.size();
  if (amounts.size() != 2 * rank) ctx.fail("{} pad amounts for the {} axes of {}", amounts.size(), rank, describe(x));
  Value out = ctx.result();
  std::fill(out.data.begin(), out.data.end(), ctx.attrs().scalar);
  const std::vector<std::int64_t> inStrides = stridesOf(x.shape);
  const std::vector<std::int64_t> outStrides = stridesOf(out.shape);
  for (std::size_t flat = 0; flat < out.data.size(); ++flat) {
    std::int64_t from = 0;
    bool inside = true;
    auto rest = static_cast<std::int64_t>(flat);
    for (std::size_t d = 0; d < rank; ++d) {
      const std::int64_t source = rest / outStrides[d] - amounts[2 * d];
      rest %= outStrides[d];
      inside = inside && source >= 0 && source < x.shape[d];
      from += source * inStrides[d];
    }
    if (inside) out.data[flat] = x.data[static_cast<std::size_t>(from)];
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

// [B, H, T, Dh] -> [B, T, H·Dh]: a transpose made contiguous (a kernel, unlike split_heads).
Value evalMergeHeads(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const Shape& s = x.shape;  // [B, H, T, Dh]
  const std::vector<std::int64_t> in = stridesOf(s);
  Value out = ctx.result();
  // Output [B, T, H, Dh] (row-major = [B, T, H·Dh]) reads input axes 0, 2, 1, 3.
  const Shape transposed{s[0], s[2], s[1], s[3]};
  const std::array<std::vector<std::int64_t>, 1> strides{{{in[0], in[2], in[1], in[3]}}};
  forEachStrided<1>(transposed, strides,
                    [&](std::int64_t flat, const std::array<std::int64_t, 1>& off) {
                      out.data[static_cast<std::size_t>(flat)] = x.data[static_cast<std::size_t>(off[0])];
                    });
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
    if (row == ctx.attrs().paddingIdx) continue;  // zeros (the result starts zeroed)
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

// pixel_shuffle moves input [..., C·r², H, W] element (c·r² + i·r + j, y, x) to output
// [..., C, H·r, W·r] element (c, y·r + i, x·r + j); pixel_unshuffle moves it back. `visit(spread,
// packed)` gets each pair of flat indices: into the [..., C, H·r, W·r] side and the other.
template <class Visit>
void forEachPixelShufflePair(const Shape& packed, std::int64_t r, Visit visit) {
  const std::size_t rank = packed.size();
  const std::int64_t channels = packed[rank - 3] / (r * r);
  const std::int64_t h = packed[rank - 2];
  const std::int64_t w = packed[rank - 1];
  std::int64_t leading = 1;
  for (std::size_t axis = 0; axis + 3 < rank; ++axis) leading *= packed[axis];
  std::size_t spread = 0;
  for (std::int64_t b = 0; b < leading * channels; ++b) {
    for (std::int64_t y = 0; y < h * r; ++y) {
      for (std::int64_t x = 0; x < w * r; ++x) {
        const std::int64_t plane = b * r * r + (y % r) * r + x % r;
        visit(spread++, static_cast<std::size_t>((plane * h + y / r) * w + x / r));
      }
    }
  }
}

Value evalPixelShuffle(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  Value out = ctx.result();
  forEachPixelShufflePair(x.shape, ctx.attrs().count,
                          [&](std::size_t spread, std::size_t packed) { out.data[spread] = x.data[packed]; });
  return out;
}

Value evalPixelUnshuffle(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  Value out = ctx.result();
  forEachPixelShufflePair(out.shape, ctx.attrs().count,
                          [&](std::size_t spread, std::size_t packed) { out.data[packed] = x.data[spread]; });
  return out;
}

// PyTorch's source coordinate of output pixel o: without align_corners, pixel centres scaled
// ((o + 1/2) / f - 1/2, never below 0); with it, the first and last pixels' centres on each other.
std::vector<BilinearTap> bilinearTaps(std::int64_t in, std::int64_t factor, bool alignCorners) {
  const std::int64_t out = in * factor;
  std::vector<BilinearTap> taps(static_cast<std::size_t>(out));
  for (std::int64_t o = 0; o < out; ++o) {
    double source = 0.0;
    if (alignCorners) {
      source = out > 1 ? static_cast<double>(o * (in - 1)) / static_cast<double>(out - 1) : 0.0;
    } else {
      source = std::max(0.0, (static_cast<double>(o) + 0.5) / static_cast<double>(factor) - 0.5);
    }
    BilinearTap& tap = taps[static_cast<std::size_t>(o)];
    tap.low = std::min(static_cast<std::int64_t>(source), in - 1);
    tap.high = std::min(tap.low + 1, in - 1);
    tap.weight = source - static_cast<double>(tap.low);
  }
  return taps;
}

Value evalBilinearUpsample2d(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  Value out = ctx.result();
  forEachBilinearTap(x.shape, ctx.attrs(), [&](std::int64_t yAt, std::int64_t xAt, double weight) {
    out.data[static_cast<std::size_t>(yAt)] += weight * x.data[static_cast<std::size_t>(xAt)];
  });
  return out;
}

}  // namespace nndna::eval
