// Reductions: mean, sum (over one axis, several, or all), argmax, argmin, amax, amin; and the scans along an
// axis: cumsum, topk.
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

namespace {

Tensor reduceAll(OpKind kind, std::string_view api, Tensor x) {
  OpBuilder op(kind, api);
  op.input(x);
  op.attrs().allAxes = true;
  return op.finish();
}

Tensor reduceAxis(OpKind kind, std::string_view api, Tensor x, std::int64_t axis,
                  ReduceOptions options) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& in = op.input(x);
  op.attrs().axis = op.axis(axis, in.shape.size());
  op.attrs().keepDims = options.keepDims;
  return op.finish();
}

// Over several axes: adjacent axes are merged by a reshape (a view) and reduced by one op, as one
// kernel would; otherwise one reduction per axis, from the last (a mean of means over whole axes
// is the mean over all of them).
Tensor reduceAxes(OpKind kind, std::string_view api, Tensor x, std::vector<std::int64_t> axes,
                  ReduceOptions options) {
  Shape in;
  {
    OpBuilder check(kind, api);
    in = check.input(x).shape;
    if (axes.empty()) check.fail("axes must not be empty");
    for (std::int64_t& a : axes) a = check.axis(a, in.size());
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
      check.fail("axes [{}] repeat an axis", fmt::join(axes, ", "));
    }
  }
  Shape kept = in;
  for (std::int64_t a : axes) kept[static_cast<std::size_t>(a)] = 1;
  const bool adjacent = axes.back() - axes.front() + 1 == static_cast<std::int64_t>(axes.size());
  Tensor out;
  if (adjacent) {
    Shape merged(in.begin(), in.begin() + axes.front());
    std::int64_t size = 1;
    for (std::int64_t a : axes) size *= in[static_cast<std::size_t>(a)];
    merged.push_back(size);
    merged.insert(merged.end(), in.begin() + axes.back() + 1, in.end());
    out = reduceAxis(kind, api, ops::reshapeAs(api, x, std::move(merged)), axes.front(), {});
  } else {
    out = x;
    for (auto a = axes.rbegin(); a != axes.rend(); ++a) out = reduceAxis(kind, api, out, *a, {});
  }
  return options.keepDims ? ops::reshapeAs(api, out, std::move(kept)) : out;
}

Tensor argReduce(OpKind kind, std::string_view api, Tensor x, std::int64_t axis) {
  OpBuilder op(kind, api);
  const ir::TensorInfo& in = op.input(x);
  op.attrs().axis = op.axis(axis, in.shape.size());
  return op.finish();
}

// The largest (amax) or smallest (amin) value along an axis: its index (argmax, argmin), the input
// taken there (take_along_axis, which carries the gradient back to that one position, as
// PyTorch's max(x, dim) does), and the axis dropped unless kept.
Tensor extremeAlong(OpKind arg, std::string_view api, Tensor x, std::int64_t axis, ReduceOptions options) {
  OpBuilder select(arg, api);
  Shape kept = select.input(x).shape;
  const std::int64_t a = select.axis(axis, kept.size());
  select.attrs().axis = a;
  const Tensor index = select.finish();
  kept[static_cast<std::size_t>(a)] = 1;
  const Tensor at = ops::reshapeAs(api, index, kept);
  OpBuilder gather(OpKind::take_along_axis, api);
  gather.input(x);
  gather.input(at);
  gather.attrs().axis = a;
  const Tensor picked = gather.finish();
  if (options.keepDims) return picked;
  Shape reduced = std::move(kept);
  reduced.erase(reduced.begin() + a);
  return ops::reshapeAs(api, picked, reduced);
}

}  // namespace

Tensor mean(Tensor x) { return reduceAll(OpKind::mean, "mean", x); }
Tensor mean(Tensor x, std::int64_t axis, ReduceOptions options) {
  return reduceAxis(OpKind::mean, "mean", x, axis, options);
}
Tensor mean(Tensor x, std::vector<std::int64_t> axes, ReduceOptions options) {
  return reduceAxes(OpKind::mean, "mean", x, std::move(axes), options);
}
Tensor sum(Tensor x) { return reduceAll(OpKind::sum, "sum", x); }
Tensor sum(Tensor x, std::int64_t axis, ReduceOptions options) {
  return reduceAxis(OpKind::sum, "sum", x, axis, options);
}
Tensor sum(Tensor x, std::vector<std::int64_t> axes, ReduceOptions options) {
  return reduceAxes(OpKind::sum, "sum", x, std::move(axes), options);
}
Tensor argmax(Tensor x, std::int64_t axis) { return argReduce(OpKind::argmax, "argmax", x, axis); }
Tensor argmin(Tensor x, std::int64_t axis) { return argReduce(OpKind::argmin, "argmin", x, axis); }
Tensor amax(Tensor x, std::int64_t axis, ReduceOptions options) {
  return extremeAlong(OpKind::argmax, "amax", x, axis, options);
}
Tensor amin(Tensor x, std::int64_t axis, ReduceOptions options) {
  return extremeAlong(OpKind::argmin, "amin", x, axis, options);
}

// log Σ exp(x - m) + m with m the maximum along the axis, so that no exp overflows; m is taken
// out of the gradient at both places (it cancels in the value), which leaves softmax(x), the
// gradient PyTorch gives.
Tensor logsumexp(Tensor x, std::int64_t axis, ReduceOptions options) {
  {
    OpBuilder check(OpKind::sum, "logsumexp");
    const ir::TensorInfo& in = check.input(x);
    axis = check.axis(axis, in.shape.size());
  }
  const ReduceOptions keep{.keepDims = true};
  // The shift kept finite, as PyTorch keeps it: a row whose maximum is -inf (all masked) sums
  // exp(-inf) = 0 to -inf, and one holding +inf gives +inf, where inf - inf would give NaN.
  constexpr double kLargest = std::numeric_limits<float>::max();
  const Tensor peak = stopGradient(clamp(amax(x, axis, keep), -kLargest, kLargest));
  const Tensor out = add(log(sum(exp(sub(x, peak)), axis, keep)), peak);
  return options.keepDims ? out : squeeze(out, axis);
}

Tensor cumsum(Tensor x, std::int64_t axis) {
  OpBuilder op(OpKind::cumsum, "cumsum");
  const ir::TensorInfo& in = op.input(x);
  op.attrs().axis = op.axis(axis, in.shape.size());
  return op.finish();
}

// Two ops: topk gives the indices; the values are the input taken at them (take_along_axis),
// which is also how their gradient reaches the chosen positions.
TopK topk(Tensor x, Size k, std::int64_t axis) {
  OpBuilder select(OpKind::topk, "topk");
  const ir::TensorInfo& in = select.input(x);
  const std::int64_t a = select.axis(axis, in.shape.size());
  select.attrs().axis = a;
  select.count(k);
  const Tensor indices = select.finish();
  OpBuilder gather(OpKind::take_along_axis, "topk");
  gather.input(x);
  gather.input(indices);
  gather.attrs().axis = a;
  return {gather.finish(), indices};
}

}  // namespace nndna
