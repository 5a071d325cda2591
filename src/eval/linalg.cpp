// matmul, conv2d (PyTorch's cross-correlation, zero padding, groups), maxPool2d, avgPool2d.
#include <limits>

#include "eval/kernel.hpp"

namespace nndna::eval {

// [..., M, K] · [..., K, N] with NumPy-broadcast batch axes (the output's, by the shape rule).
Value evalMatmul(const OpContext& ctx) {
  const Value& a = ctx.in(0);
  const Value& b = ctx.in(1);
  const std::size_t ra = a.shape.size();
  const std::size_t rb = b.shape.size();
  const std::size_t ro = ctx.out.shape.size();
  if (ra < 2 || rb < 2) ctx.fail("operands {} and {} must have rank >= 2", describe(a), describe(b));
  const std::int64_t m = a.shape[ra - 2];
  const std::int64_t k = a.shape[ra - 1];
  const std::int64_t n = b.shape[rb - 1];
  if (b.shape[rb - 2] != k) ctx.fail("inner dimensions differ: {} · {}", describe(a), describe(b));
  const Shape batch(ctx.out.shape.begin(), ctx.out.shape.end() - 2);
  // Strides over the output's batch axes, in matrices of each operand (0 where broadcast).
  std::array<std::vector<std::int64_t>, 2> strides{
      broadcastStrides(Shape(a.shape.begin(), a.shape.end() - 2), batch),
      broadcastStrides(Shape(b.shape.begin(), b.shape.end() - 2), batch)};
  if (ro < 2 || ctx.out.shape[ro - 2] != m || ctx.out.shape[ro - 1] != n) {
    ctx.fail("{} · {} does not give {}", describe(a), describe(b), ir::formatShape(ctx.out.shape));
  }
  Value out = ctx.result();
  forEachStrided(batch, strides, [&](std::int64_t p, const std::array<std::int64_t, 2>& offsets) {
    const double* A = a.data.data() + offsets[0] * m * k;
    const double* Bm = b.data.data() + offsets[1] * k * n;
    double* C = out.data.data() + p * m * n;
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t l = 0; l < k; ++l) {
        const double av = A[i * k + l];
        const double* brow = Bm + l * n;
        double* crow = C + i * n;
        for (std::int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
      }
    }
  });
  return out;
}

// out[n, oc, y, x] = Σ_{c in oc's group, ky, kx} in[n, c, y·s - p + ky·d, x·s - p + kx·d] · w[oc, c', ky, kx]
Value evalConv2d(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const Value& w = ctx.in(1);
  const ir::OpAttrs& a = ctx.attrs();
  const std::int64_t batch = x.shape[0], channels = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const std::int64_t outC = w.shape[0], groupC = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const std::int64_t groups = a.groups;
  if (groups <= 0 || groupC * groups != channels || outC % groups != 0) {
    ctx.fail("weight {} does not fit input {} with {} groups", describe(w), describe(x), groups);
  }
  const std::int64_t oh = ctx.out.shape[2], ow = ctx.out.shape[3];
  const std::int64_t outPerGroup = outC / groups;
  Value out = ctx.result();
  for (std::int64_t n = 0; n < batch; ++n) {
    for (std::int64_t oc = 0; oc < outC; ++oc) {
      const std::int64_t c0 = (oc / outPerGroup) * groupC;
      double* plane = out.data.data() + (n * outC + oc) * oh * ow;
      for (std::int64_t c = 0; c < groupC; ++c) {
        const double* in = x.data.data() + (n * channels + c0 + c) * h * wd;
        const double* kern = w.data.data() + (oc * groupC + c) * kh * kw;
        for (std::int64_t ky = 0; ky < kh; ++ky) {
          for (std::int64_t kx = 0; kx < kw; ++kx) {
            const double wv = kern[ky * kw + kx];
            for (std::int64_t y = 0; y < oh; ++y) {
              const std::int64_t iy = y * a.stride[0] - a.padding[0] + ky * a.dilation[0];
              if (iy < 0 || iy >= h) continue;
              for (std::int64_t xx = 0; xx < ow; ++xx) {
                const std::int64_t ix = xx * a.stride[1] - a.padding[1] + kx * a.dilation[1];
                if (ix < 0 || ix >= wd) continue;
                plane[y * ow + xx] += wv * in[iy * wd + ix];
              }
            }
          }
        }
      }
    }
  }
  return out;
}

// Padding counts as -inf (PyTorch): it never wins a window.
Value evalMaxPool2d(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const ir::OpAttrs& a = ctx.attrs();
  const std::int64_t planes = x.shape[0] * x.shape[1], h = x.shape[2], wd = x.shape[3];
  const std::int64_t oh = ctx.out.shape[2], ow = ctx.out.shape[3];
  Value out = ctx.result();
  for (std::int64_t p = 0; p < planes; ++p) {
    const double* in = x.data.data() + p * h * wd;
    for (std::int64_t y = 0; y < oh; ++y) {
      for (std::int64_t xx = 0; xx < ow; ++xx) {
        double best = -std::numeric_limits<double>::infinity();
        for (std::int64_t ky = 0; ky < a.kernel[0]; ++ky) {
          const std::int64_t iy = y * a.stride[0] - a.padding[0] + ky;
          if (iy < 0 || iy >= h) continue;
          for (std::int64_t kx = 0; kx < a.kernel[1]; ++kx) {
            const std::int64_t ix = xx * a.stride[1] - a.padding[1] + kx;
            if (ix < 0 || ix >= wd) continue;
            best = std::max(best, in[iy * wd + ix]);
          }
        }
        out.data[static_cast<std::size_t>((p * oh + y) * ow + xx)] = best;
      }
    }
  }
  return out;
}

std::vector<double> avgPoolDivisors(const Shape& x, const Shape& y, const ir::OpAttrs& a) {
  // The window's extent along one axis, cut at the end of the padded input.
  auto extent = [&](std::size_t axis, std::int64_t o) {
    const std::int64_t start = o * a.stride[axis] - a.padding[axis];
    return std::min(start + a.kernel[axis], x[2 + axis] + a.padding[axis]) - start;
  };
  std::vector<double> divisors;
  divisors.reserve(static_cast<std::size_t>(y[2] * y[3]));
  for (std::int64_t oy = 0; oy < y[2]; ++oy) {
    for (std::int64_t ox = 0; ox < y[3]; ++ox) divisors.push_back(static_cast<double>(extent(0, oy) * extent(1, ox)));
  }
  return divisors;
}

// The window's sum over its divisor (kH·kW: PyTorch's count_include_pad = true, padding counts
// as zeros).
Value evalAvgPool2d(const OpContext& ctx) {
  const Value& x = ctx.in(0);
  const ir::OpAttrs& a = ctx.attrs();
  Value out = ctx.result();
  const std::vector<double> divisors = avgPoolDivisors(x.shape, out.shape, a);
  const auto plane = static_cast<std::int64_t>(divisors.size());
  forEachWindowTap(x.shape, out.shape, a, [&](std::int64_t yAt, std::int64_t xAt) {
    out.data[static_cast<std::size_t>(yAt)] +=
        x.data[static_cast<std::size_t>(xAt)] / divisors[static_cast<std::size_t>(yAt % plane)];
  });
  return out;
}

}  // namespace nndna::eval
