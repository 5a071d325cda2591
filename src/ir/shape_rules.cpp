// The shape and dtype rule of every op kind (see shape_rules.hpp). Messages name what the op
// requires and what it got; the tracer prefixes the spec line and the API name ("model.cpp:14:
// matmul: ..."), the JSON reader the op's JSON path.
#include "ir/shape_rules.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "ir/dim_names.hpp"

namespace nndna::ir {

std::string describe(const TensorInfo& t) {
  return formatShape(t.shape) + " " + std::string(dtypeName(t.dtype));
}

namespace {

// One op under its rule: its attributes and inputs, and the checks rules share.
class Call {
 public:
  Call(OpKind kind, const OpAttrs& attrs, std::span<const TensorInfo* const> inputs)
      : kind(kind), attrs(attrs), inputs_(inputs) {}

  const OpKind kind;
  const OpAttrs& attrs;

  std::size_t count() const { return inputs_.size(); }
  const TensorInfo& in(std::size_t i) const { return *inputs_[i]; }
  const Shape& shape(std::size_t i) const { return inputs_[i]->shape; }
  std::size_t rank(std::size_t i) const { return inputs_[i]->shape.size(); }
  std::span<const TensorInfo* const> inputs() const { return inputs_; }
  // Axis names (dim_names.hpp): of input i, of its axis `axis`, and attrs.names[k] ("" if unset).
  const DimNames& names(std::size_t i) const { return inputs_[i]->names; }
  const std::string& nameOf(std::size_t i, std::size_t axis) const { return dimNameAt(names(i), axis); }
  const std::string& attrName(std::size_t k) const { return dimNameAt(attrs.names, k); }
  // attrs.names: none, or `count` entries (one per `what`), each "" or an axis name.
  void requireAttrNames(std::size_t count, std::string_view what) const {
    const DimNames& given = attrs.names;
    if (given.empty()) return;
    if (given.size() != count) fail("names must be one per {} ({}), got {}", what, count, given.size());
    for (std::size_t k = 0; k < given.size(); ++k) {
      if (!given[k].empty() && !isDimName(given[k])) {
        fail("names[{}] '{}' is not an axis name (a dim's name or a product such as H·Dh or D/H)", k,
             given[k]);
      }
    }
  }

  [[noreturn]] void fail(std::string message) const { throw ShapeRuleError(std::move(message)); }
  template <class... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
    fail(fmt::format(format, std::forward<Args>(args)...));
  }

  void requireDtype(std::size_t i, DType dtype, std::string_view operand) const {
    if (in(i).dtype != dtype) fail("{} must be {}, got {}", operand, dtypeName(dtype), describe(in(i)));
  }
  void requireFloat(std::size_t i, std::string_view operand = "input") const {
    requireDtype(i, DType::f32, operand);
  }
  // f32 or i32: the kinds with an integer form.
  void requireNumeric(std::size_t i, std::string_view operand = "input") const {
    if (in(i).dtype == DType::boolean) fail("{} must be f32 or i32, got {}", operand, describe(in(i)));
  }
  void requireRank(std::size_t i, std::size_t rank, std::string_view operand) const {
    if (this->rank(i) != rank) fail("{} must have rank {}, got {}", operand, rank, describe(in(i)));
  }
  void requireSameShape(std::size_t i, std::size_t j, std::string_view a, std::string_view b) const {
    if (shape(i) != shape(j)) {
      fail("{} {} and {} {} must have the same shape", a, formatShape(shape(i)), b, formatShape(shape(j)));
    }
  }
  // A vector over the input's `axis` ("last axis", "channel axis"), which has `size` entries (norm
  // weights, biases, running statistics). The input's size is named first: a layer built for
  // another size is the usual cause, and the message must not tell the user to change the input
  // to the size it already has.
  void requireVector(std::size_t i, std::int64_t size, std::string_view what, std::string_view axis) const {
    if (rank(i) != 1) {
      fail("the {} must be a vector over the input's {} ([{}]), got {}", what, axis, size, formatShape(shape(i)));
    }
    if (shape(i)[0] != size) fail("the input's {} is {}, but the {} is [{}]", axis, size, what, shape(i)[0]);
  }
  void requireScalar(std::size_t i, std::string_view what) const {
    if (!shape(i).empty()) fail("{} must be a rank-0 tensor, got {}", what, describe(in(i)));
  }
  // An axis attribute of a tensor of rank `rank`: canonical, in [0, rank).
  std::size_t axis(std::int64_t axis, std::size_t rank, std::string_view what = "axis") const {
    const auto r = static_cast<std::int64_t>(rank);
    if (axis < 0 || axis >= r) {
      if (r == 0) fail("{} {} is out of range for a rank-0 tensor", what, axis);
      fail("{} {} is out of range for rank {} (expected 0..{})", what, axis, r, r - 1);
    }
    return static_cast<std::size_t>(axis);
  }
  void requireFinite(double value, std::string_view what) const {
    if (!std::isfinite(value)) fail("{} must be finite, got {}", what, value);
  }
  // eps of the norms: finite and >= 0.
  void requireEps(double eps) const {
    if (!std::isfinite(eps) || eps < 0) fail("eps must be finite and >= 0, got {}", eps);
  }
  // A shape given as an attribute (dims): positive sizes.
  void requirePositiveDims(const Shape& dims, std::string_view what = "sizes") const {
    if (dims.size() > kMaxRank) fail("{} have {} axes, at most {}", what, dims.size(), kMaxRank);
    for (std::int64_t d : dims) {
      if (d <= 0) fail("{} must be positive, got {}", what, formatShape(dims));
    }
  }

 private:
  std::span<const TensorInfo* const> inputs_;
};

using Rule = TensorType (*)(const Call&);

std::int64_t mulOrFail(const Call& c, std::int64_t a, std::int64_t b, std::string_view what) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) c.fail("{} overflows 64 bits", what);
  return out;
}

Shape broadcast(const Call& c, const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      c.fail("shapes {} and {} do not broadcast (axis {}: {} vs {})", formatShape(a), formatShape(b),
             static_cast<std::int64_t>(i) - static_cast<std::int64_t>(rank), da, db);
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Booleans take part in arithmetic as 0/1 of the other operand's type (f32 when both are bool);
// f32 and i32 never mix silently.
DType arithmeticDtype(const Call& c, const TensorInfo& a, const TensorInfo& b) {
  if (a.dtype == b.dtype) return a.dtype == DType::boolean ? DType::f32 : a.dtype;
  if (a.dtype == DType::boolean) return b.dtype;
  if (b.dtype == DType::boolean) return a.dtype;
  c.fail("operand dtypes differ: {} and {} (use arange(n, f32) or zeros(.., f32) for float math)",
         describe(a), describe(b));
}

Shape reduced(const Shape& shape, std::size_t axis, bool keepDims) {
  Shape out = shape;
  if (keepDims) {
    out[axis] = 1;
  } else {
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
  }
  return out;
}

// ----- axis names (dim_names.hpp) ------------------------------------------------------------------
// A rule's names are empty when no input and no attribute names an axis (the common case costs
// nothing); inferOutput normalizes what a rule returns (all "" becomes empty).

// NumPy broadcasting of names, trailing-aligned like the shapes: each axis of `out` takes the
// first nonempty name among `operands` whose size on that axis equals the output's (a broadcast 1
// names nothing). `trailing` axes at the end of every operand are left out (matmul's M, K, N).
DimNames broadcastNames(const Shape& out, std::span<const TensorInfo* const> operands,
                        std::size_t trailing = 0) {
  const bool named = std::any_of(operands.begin(), operands.end(), [](const TensorInfo* t) { return !t->names.empty(); });
  if (!named) return {};
  DimNames names(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (const TensorInfo* t : operands) {
      const std::size_t rank = t->shape.size() - trailing;
      if (i + rank < out.size()) continue;  // the operand has no such axis
      const std::size_t axis = i + rank - out.size();
      if (t->shape[axis] == out[i] && !dimNameAt(t->names, axis).empty()) {
        names[i] = t->names[axis];
        break;
      }
    }
  }
  return names;
}

// `names` (of a tensor of rank `rank`) with axis `axis` called `name`.
DimNames renamedAxis(const DimNames& names, std::size_t rank, std::size_t axis, const std::string& name) {
  if (names.empty() && name.empty()) return {};
  DimNames out = names.empty() ? DimNames(rank) : names;
  out[axis] = name;
  return out;
}

DimNames reducedNames(const DimNames& names, std::size_t axis, bool keepDims) {
  if (names.empty()) return {};
  DimNames out = names;
  if (keepDims) {
    out[axis].clear();
  } else {
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
  }
  return out;
}

// `names` with a name appended (one_hot's depth, embedding's width).
DimNames appendedName(const DimNames& names, std::size_t rank, const std::string& name) {
  if (names.empty() && name.empty()) return {};
  DimNames out = names.empty() ? DimNames(rank) : names;
  out.push_back(name);
  return out;
}

// A spatial axis of `in` elements named `name` that a window with `stride` makes `out` long:
// the same name when the size is kept, name/stride when it divides exactly, else unknown. A
// window over the whole axis (global pooling, adaptiveAvgPool2d to 1) leaves one element whatever
// the name's size: unnamed, drawn as 1 (S/32 would say it follows S).
std::string strideName(const std::string& name, std::int64_t in, std::int64_t out, std::int64_t stride) {
  if (name.empty()) return {};
  if (out == in) return name;
  if (out == 1 && stride >= in) return {};
  std::int64_t strided = 0;
  if (!__builtin_mul_overflow(out, stride, &strided) && strided == in) return scaleDimName(name, 1, stride);
  return {};
}

// The inverse: an axis of `in` elements that a transposed window (or an upsampling) by `factor`
// makes `out` long: name·factor when it multiplies exactly, the same name when kept, else unknown.
std::string upsampledName(const std::string& name, std::int64_t in, std::int64_t out, std::int64_t factor) {
  if (name.empty()) return {};
  std::int64_t scaled = 0;
  if (!__builtin_mul_overflow(in, factor, &scaled) && scaled == out) return scaleDimName(name, factor, 1);
  if (out == in) return name;
  return {};
}

// The product of the names of `axes` ("" when one is unknown).
std::string productName(const DimNames& names, std::span<const std::size_t> axes) {
  std::string out;
  for (std::size_t axis : axes) {
    const std::string& n = dimNameAt(names, axis);
    if (n.empty()) return {};
    out = out.empty() ? n : multiplyDimNames(out, n);
    if (out.empty()) return {};
  }
  return out;
}

// Reshape's names. Input and output axes are grouped into runs of equal products (the usual view
// alignment); size-1 axes name nothing. Per run: one axis to one keeps its name; several input
// axes merged into one output axis name it by their product; one input axis split into several
// names an unnamed output axis by the input's name over the others' when they are all named;
// anything else is unknown. An output axis named in `given` (reshape's attrs.names) keeps it.
DimNames reshapeNames(const Shape& in, const DimNames& inNames, const Shape& out, const DimNames& given) {
  if (inNames.empty() && given.empty()) return {};
  DimNames names(out.size());
  for (std::size_t k = 0; k < out.size(); ++k) names[k] = dimNameAt(given, k);
  std::size_t i = 0;
  std::size_t j = 0;
  std::vector<std::size_t> runIn;
  std::vector<std::size_t> runOut;
  while (i < in.size() || j < out.size()) {
    if (j < out.size() && out[j] == 1) { ++j; continue; }
    if (i < in.size() && in[i] == 1) { ++i; continue; }
    if (i == in.size() || j == out.size()) break;  // not a reshape: the rule has failed already
    // One run: grow the smaller side until the products meet (they are bounded by the element
    // count, which fits 64 bits). Size-1 axes inside a run take no part.
    runIn.assign(1, i);
    runOut.assign(1, j);
    std::int64_t pin = in[i++];
    std::int64_t pout = out[j++];
    while (pin != pout) {
      if (pin < pout) {
        if (in[i] != 1) runIn.push_back(i);
        pin *= in[i++];
      } else {
        if (out[j] != 1) runOut.push_back(j);
        pout *= out[j++];
      }
    }
    if (runOut.size() == 1) {
      std::string& name = names[runOut[0]];
      if (name.empty()) name = productName(inNames, runIn);
    } else if (runIn.size() == 1) {
      const std::string& whole = dimNameAt(inNames, runIn[0]);
      const auto unnamed = std::count_if(runOut.begin(), runOut.end(), [&](std::size_t k) { return names[k].empty(); });
      if (whole.empty() || unnamed != 1) continue;
      std::string rest = whole;
      std::size_t target = 0;
      for (std::size_t k : runOut) {
        if (names[k].empty()) {
          target = k;
        } else {
          rest = divideDimNames(rest, names[k]);
        }
      }
      names[target] = rest;
    }
  }
  return names;
}

// Output size of a sliding window along one axis; fails when the window does not fit.
std::int64_t windowOut(const Call& c, std::int64_t in, std::int64_t kernel, std::int64_t stride,
                       std::int64_t padding, std::string_view axis) {
  std::int64_t padded = 0;
  if (__builtin_mul_overflow(padding, 2, &padded) || __builtin_add_overflow(padded, in, &padded)) {
    c.fail("the padded {} ({} + 2·{}) overflows 64 bits", axis, in, padding);
  }
  if (padded - kernel < 0) {
    c.fail("the {} kernel ({}) is larger than the padded input ({} + 2·{})", axis, kernel, in, padding);
  }
  return (padded - kernel) / stride + 1;
}

// Every input of an internal kind (and of conv_transpose2d) is f32 except the named integer ones (indices, targets).
void requireAllFloat(const Call& c, std::size_t except = SIZE_MAX) {
  for (std::size_t i = 0; i < c.count(); ++i) {
    if (i != except) c.requireFloat(i, fmt::format("input {}", i));
  }
}

void requireWindowAttrs(const Call& c) {
  const OpAttrs& a = c.attrs;
  if (a.kernel[0] <= 0 || a.kernel[1] <= 0) c.fail("kernel must be positive, got ({}, {})", a.kernel[0], a.kernel[1]);
  if (a.stride[0] <= 0 || a.stride[1] <= 0) c.fail("stride must be positive, got ({}, {})", a.stride[0], a.stride[1]);
  if (a.padding[0] < 0 || a.padding[1] < 0) {
    c.fail("padding must not be negative, got ({}, {})", a.padding[0], a.padding[1]);
  }
}

// ----- constants ---------------------------------------------------------------------------------

TensorType filled(const Call& c) {
  c.requirePositiveDims(c.attrs.dims);
  c.requireAttrNames(c.attrs.dims.size(), "size (dims)");
  return {c.attrs.dims, c.attrs.dtype, c.attrs.names};
}

// count values start, start + step, ... (the API derives the count from an end).
TensorType arangeRule(const Call& c) {
  const OpAttrs& a = c.attrs;
  if (a.count <= 0) c.fail("the length must be positive, got {}", a.count);
  if (a.dtype == DType::boolean) c.fail("dtype must be i32 or f32");
  c.requireAttrNames(1, "length (count)");
  c.requireFinite(a.scalar, "start");
  c.requireFinite(a.scalar2, "step");
  if (a.scalar2 == 0) c.fail("step must not be 0");
  const double last = a.scalar + static_cast<double>(a.count - 1) * a.scalar2;
  c.requireFinite(last, "the last value");
  if (a.dtype == DType::i32) {
    if (a.scalar != std::trunc(a.scalar) || a.scalar2 != std::trunc(a.scalar2)) {
      c.fail("an i32 range takes whole numbers, got start {} and step {} (f32 takes fractions)",
             a.scalar, a.scalar2);
    }
    constexpr double lo = std::numeric_limits<std::int32_t>::min();
    constexpr double hi = std::numeric_limits<std::int32_t>::max();
    if (std::min(a.scalar, last) < lo || std::max(a.scalar, last) > hi) {
      c.fail("the values {} to {} do not fit i32", a.scalar, last);
    }
  }
  return {{a.count}, a.dtype, a.names};
}

TensorType randnRule(const Call& c) {
  c.requirePositiveDims(c.attrs.dims);
  c.requireAttrNames(c.attrs.dims.size(), "size (dims)");
  return {c.attrs.dims, DType::f32, c.attrs.names};
}

// ----- elementwise -------------------------------------------------------------------------------

TensorType unaryFloat(const Call& c) {
  c.requireFloat(0);
  return {c.shape(0), c.in(0).dtype, c.names(0)};
}

// neg, abs, square also work on integers.
TensorType unaryNumeric(const Call& c) {
  c.requireNumeric(0);
  return {c.shape(0), c.in(0).dtype, c.names(0)};
}

TensorType leakyReluRule(const Call& c) {
  c.requireFloat(0);
  c.requireFinite(c.attrs.scalar, "alpha");
  return {c.shape(0), DType::f32, c.names(0)};
}

TensorType powRule(const Call& c) {
  c.requireFloat(0);
  c.requireFinite(c.attrs.scalar, "exponent");
  return {c.shape(0), DType::f32, c.names(0)};
}

void requireBounds(const Call& c) {
  const double lo = c.attrs.scalar;
  const double hi = c.attrs.scalar2;
  if (std::isnan(lo) || std::isnan(hi) || lo > hi) {
    c.fail("bounds must satisfy lo <= hi, got lo = {}, hi = {}", lo, hi);
  }
}

TensorType clampRule(const Call& c) {
  c.requireNumeric(0);
  requireBounds(c);
  return {c.shape(0), c.in(0).dtype, c.names(0)};
}

bool isComparison(OpKind kind) { return kind == OpKind::less || kind == OpKind::greater; }

TensorType binaryRule(const Call& c) {
  const OpAttrs& a = c.attrs;
  const bool comparison = isComparison(c.kind);
  if (a.scalarOperand) {
    if (c.count() != 1) c.fail("with a number operand it takes 1 input, got {}", c.count());
    if (!std::isfinite(a.scalar) && c.kind != OpKind::min && c.kind != OpKind::max && !comparison) {
      c.fail("the scalar operand must be finite, got {}", a.scalar);
    }
    const DType dtype = c.in(0).dtype == DType::boolean ? DType::f32 : c.in(0).dtype;
    return {c.shape(0), comparison ? DType::boolean : dtype, c.names(0)};
  }
  if (c.count() != 2) c.fail("takes 2 inputs (or 1 and a number operand), got {}", c.count());
  if (a.scalarLeft || a.scalar != 0.0) c.fail("scalar and scalar_left are set without a number operand");
  const DType dtype = arithmeticDtype(c, c.in(0), c.in(1));
  Shape shape = broadcast(c, c.shape(0), c.shape(1));
  DimNames names = broadcastNames(shape, c.inputs());
  return {std::move(shape), comparison ? DType::boolean : dtype, std::move(names)};
}

TensorType whereRule(const Call& c) {
  if (c.in(0).dtype != DType::boolean) {
    c.fail("the condition must be boolean (from less/greater), got {}", describe(c.in(0)));
  }
  const DType dtype = arithmeticDtype(c, c.in(1), c.in(2));
  Shape shape = broadcast(c, broadcast(c, c.shape(0), c.shape(1)), c.shape(2));
  DimNames names = broadcastNames(shape, c.inputs());
  return {std::move(shape), dtype, std::move(names)};
}

// ----- reductions ----------------------------------------------------------------------------------

TensorType reduceRule(const Call& c) {
  if (c.kind == OpKind::mean) c.requireFloat(0);
  c.requireNumeric(0);
  const OpAttrs& a = c.attrs;
  if (a.allAxes) {
    if (a.axis != 0 || a.keepDims) c.fail("a reduction over all axes takes no axis and no keep_dims");
    return {{}, c.in(0).dtype};
  }
  const std::size_t axis = c.axis(a.axis, c.rank(0));
  return {reduced(c.shape(0), axis, a.keepDims), c.in(0).dtype, reducedNames(c.names(0), axis, a.keepDims)};
}

TensorType argReduceRule(const Call& c) {
  c.requireNumeric(0);
  const std::size_t axis = c.axis(c.attrs.axis, c.rank(0));
  return {reduced(c.shape(0), axis, false), DType::i32, reducedNames(c.names(0), axis, false)};
}

// cumsum, and cumsum_grad (the running sum from the end): the input's shape and dtype.
TensorType cumsumRule(const Call& c) {
  if (c.kind == OpKind::cumsum_grad) c.requireFloat(0, "dy");
  c.requireNumeric(0);
  c.axis(c.attrs.axis, c.rank(0));
  return {c.shape(0), c.in(0).dtype, c.names(0)};
}

// The indices (i32) of the k largest values along the axis; the axis becomes k long.
TensorType topkRule(const Call& c) {
  c.requireNumeric(0);
  const std::size_t a = c.axis(c.attrs.axis, c.rank(0));
  const std::int64_t size = c.shape(0)[a];
  if (c.attrs.count < 1 || c.attrs.count > size) {
    c.fail("k must be in 1..{} (axis {} of {}), got {}", size, a, formatShape(c.shape(0)), c.attrs.count);
  }
  c.requireAttrNames(1, "k (count)");
  Shape shape = c.shape(0);
  shape[a] = c.attrs.count;
  return {std::move(shape), DType::i32, renamedAxis(c.names(0), c.rank(0), a, c.attrName(0))};
}

// ----- shape ---------------------------------------------------------------------------------------

TensorType reshapeRule(const Call& c) {
  const Shape& target = c.attrs.dims;
  c.requirePositiveDims(target);
  const std::optional<std::int64_t> known = checkedNumel(target);
  if (!known) c.fail("the target shape {} overflows 64 bits", formatShape(target));
  const std::int64_t total = numel(c.shape(0));
  if (*known != total) {
    c.fail("cannot reshape {} ({} elements) to {} ({} elements)", formatShape(c.shape(0)), total,
           formatShape(target), *known);
  }
  c.requireAttrNames(target.size(), "target axis (dims)");
  return {target, c.in(0).dtype, reshapeNames(c.shape(0), c.names(0), target, c.attrs.names)};
}

TensorType permuteRule(const Call& c) {
  const std::vector<std::int64_t>& axes = c.attrs.dims;
  const std::size_t rank = c.rank(0);
  if (axes.size() != rank) {
    c.fail("axes [{}] must list each of the {} axes of {} once", fmt::join(axes, ", "), rank,
           formatShape(c.shape(0)));
  }
  std::vector<bool> seen(rank, false);
  Shape shape(rank);
  DimNames names(c.names(0).empty() ? 0 : rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::size_t a = c.axis(axes[i], rank);
    if (seen[a]) c.fail("axes [{}] repeat axis {}", fmt::join(axes, ", "), a);
    seen[a] = true;
    shape[i] = c.shape(0)[a];
    if (!names.empty()) names[i] = c.nameOf(0, a);
  }
  return {std::move(shape), c.in(0).dtype, std::move(names)};
}

// NumPy broadcasting (trailing alignment): whether `small` broadcasts to `large`, each of its
// axes 1 or the matching axis of `large`. broadcast_to and its adjoint sum_to_shape share it.
bool broadcastsTo(const Shape& small, const Shape& large) {
  if (small.size() > large.size()) return false;
  for (std::size_t i = 0; i < small.size(); ++i) {
    const std::int64_t l = large[large.size() - small.size() + i];
    if (small[i] != 1 && small[i] != l) return false;
  }
  return true;
}

TensorType broadcastToRule(const Call& c) {
  const Shape& target = c.attrs.dims;
  c.requirePositiveDims(target);
  const Shape& x = c.shape(0);
  if (!broadcastsTo(x, target)) c.fail("cannot broadcast {} to {}", formatShape(x), formatShape(target));
  if (!checkedNumel(target)) c.fail("the shape {} overflows 64 bits", formatShape(target));
  c.requireAttrNames(target.size(), "target axis (dims)");
  if (c.names(0).empty() && c.attrs.names.empty()) return {target, c.in(0).dtype};
  // An axis named in the attribute keeps it; another takes the aligned input axis's name when
  // it is not broadcast (equal sizes).
  DimNames names(target.size());
  for (std::size_t i = 0; i < target.size(); ++i) {
    names[i] = c.attrName(i);
    const std::size_t lead = target.size() - x.size();
    if (names[i].empty() && i >= lead && x[i - lead] == target[i]) names[i] = c.nameOf(0, i - lead);
  }
  return {target, c.in(0).dtype, std::move(names)};
}

// ----- linear algebra ------------------------------------------------------------------------------

// [..., M, K] · [..., K, N]: the batch axes (all but the last two) broadcast as NumPy's and
// PyTorch's matmul do ([B, 1, T, D] · [B, G, D, T], [M, K] · [B, K, N], [B, M, K] · [K, N]).
TensorType matmulRule(const Call& c) {
  c.requireFloat(0, "left operand");
  c.requireFloat(1, "right operand");
  const Shape& a = c.shape(0);
  const Shape& b = c.shape(1);
  if (a.size() < 2) c.fail("the left operand must have rank >= 2, got {}", formatShape(a));
  if (b.size() < 2) c.fail("the right operand must have rank >= 2, got {}", formatShape(b));
  if (b[b.size() - 2] != a.back()) c.fail("inner dimensions differ: {} · {}", formatShape(a), formatShape(b));
  const Shape batchA(a.begin(), a.end() - 2);
  const Shape batchB(b.begin(), b.end() - 2);
  const std::size_t rank = std::max(batchA.size(), batchB.size());
  Shape shape(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - batchA.size() ? 1 : batchA[i - (rank - batchA.size())];
    const std::int64_t db = i < rank - batchB.size() ? 1 : batchB[i - (rank - batchB.size())];
    if (da != db && da != 1 && db != 1) {
      c.fail("batch dimensions do not broadcast: {} · {} (batch axis {}: {} vs {})", formatShape(a),
             formatShape(b), static_cast<std::int64_t>(i) - static_cast<std::int64_t>(rank), da, db);
    }
    shape[i] = da == 1 ? db : da;
  }
  DimNames names = broadcastNames(shape, c.inputs(), 2);
  const std::string& m = c.nameOf(0, a.size() - 2);
  const std::string& n = c.nameOf(1, b.size() - 1);
  if (!names.empty() || !m.empty() || !n.empty()) {
    names.resize(rank);
    names.push_back(m);
    names.push_back(n);
  }
  shape.push_back(a[a.size() - 2]);
  shape.push_back(b.back());
  return {std::move(shape), DType::f32, std::move(names)};
}

// ----- indexing ------------------------------------------------------------------------------------

TensorType oneHotRule(const Call& c) {
  c.requireDtype(0, DType::i32, "indices");
  if (c.attrs.count <= 0) c.fail("depth must be positive, got {}", c.attrs.count);
  c.requireAttrNames(1, "depth (count)");
  Shape shape = c.shape(0);
  shape.push_back(c.attrs.count);
  return {std::move(shape), c.attrs.dtype, appendedName(c.names(0), c.rank(0), c.attrName(0))};
}

// padding_idx: -1 (none) or a row of the table.
void requirePaddingRow(const Call& c, std::int64_t vocab) {
  const std::int64_t row = c.attrs.paddingIdx;
  if (row != -1 && (row < 0 || row >= vocab)) c.fail("padding_idx {} is not a row of the {}-row table", row, vocab);
}

TensorType embeddingRule(const Call& c) {
  c.requireFloat(0, "table");
  c.requireRank(0, 2, "table ([vocab, dim])");
  c.requireDtype(1, DType::i32, "indices");
  requirePaddingRow(c, c.shape(0)[0]);
  Shape shape = c.shape(1);
  shape.push_back(c.shape(0)[1]);
  return {std::move(shape), DType::f32, appendedName(c.names(1), c.rank(1), c.nameOf(0, 1))};
}

// indices [..] against an input of shape `input`: same rank, equal on every axis but `axis`.
void requireIndicesAlong(const Call& c, const Shape& indices, const Shape& input, std::size_t axis) {
  for (std::size_t d = 0; d < input.size(); ++d) {
    if (d != axis && indices[d] != input[d]) {
      c.fail("indices {} must match the input {} on every axis but {}", formatShape(indices),
             formatShape(input), axis);
    }
  }
}

TensorType takeAlongAxisRule(const Call& c) {
  c.requireDtype(1, DType::i32, "indices");
  if (c.rank(1) != c.rank(0)) {
    c.fail("indices {} must have the rank of the input {}", formatShape(c.shape(1)), formatShape(c.shape(0)));
  }
  const std::size_t a = c.axis(c.attrs.axis, c.rank(0));
  requireIndicesAlong(c, c.shape(1), c.shape(0), a);
  // The indices' names; elsewhere than `axis` the input's axis is the same size, so its name fills in.
  DimNames names = c.names(1);
  if (!c.names(0).empty()) {
    names.resize(c.rank(1));
    for (std::size_t d = 0; d < names.size(); ++d) {
      if (names[d].empty() && d != a) names[d] = c.nameOf(0, d);
    }
  }
  return {c.shape(1), c.in(0).dtype, std::move(names)};
}

// ----- slicing and joining -------------------------------------------------------------------------

TensorType narrowRule(const Call& c) {
  const OpAttrs& at = c.attrs;
  const std::size_t a = c.axis(at.axis, c.rank(0));
  const std::int64_t size = c.shape(0)[a];
  if (at.start < 0 || at.count <= 0 || at.start > size - at.count) {
    c.fail("range start {} length {} does not fit axis {} of size {} in {}", at.start, at.count, a,
           size, formatShape(c.shape(0)));
  }
  c.requireAttrNames(1, "length (count)");
  Shape shape = c.shape(0);
  shape[a] = at.count;
  const std::string& kept = at.count == size ? c.nameOf(0, a) : std::string();
  const std::string& name = c.attrName(0).empty() ? kept : c.attrName(0);
  return {std::move(shape), c.in(0).dtype, renamedAxis(c.names(0), c.rank(0), a, name)};
}

// dims = (before, after) per axis, in axis order; a negative amount crops, at most the whole axis
// (so that the adjoint, a pad by the opposite amounts, is valid too). Output position i of an
// axis reads input i - before, or the fill value outside the input.
TensorType padRule(const Call& c) {
  c.requireNumeric(0);
  const Shape& x = c.shape(0);
  const std::vector<std::int64_t>& amounts = c.attrs.dims;
  if (amounts.size() != 2 * x.size()) {
    c.fail("the amounts (dims) must be a (before, after) pair per axis of {}: {} numbers, got {}",
           formatShape(x), 2 * x.size(), amounts.size());
  }
  const double value = c.attrs.scalar;
  if (std::isnan(value)) c.fail("the fill value must not be NaN");
  if (c.in(0).dtype == DType::i32 &&
      (value != std::trunc(value) || value < std::numeric_limits<std::int32_t>::min() ||
       value > std::numeric_limits<std::int32_t>::max())) {
    c.fail("an i32 tensor takes a whole fill value within i32, got {}", value);
  }
  Shape shape = x;
  for (std::size_t d = 0; d < x.size(); ++d) {
    const std::int64_t before = amounts[2 * d];
    const std::int64_t after = amounts[2 * d + 1];
    if (std::min(before, after) < -x[d]) {
      c.fail("axis {}: a crop of {} is more than the axis's {} elements", d, -std::min(before, after), x[d]);
    }
    if (__builtin_add_overflow(x[d], before, &shape[d]) || __builtin_add_overflow(shape[d], after, &shape[d])) {
      c.fail("axis {}: {} padded by {} and {} overflows 64 bits", d, x[d], before, after);
    }
    if (shape[d] <= 0) c.fail("axis {}: {} padded by {} and {} leaves no elements", d, x[d], before, after);
  }
  DimNames names = c.names(0);  // a padded or cropped axis is no longer what its name says
  for (std::size_t d = 0; d < names.size(); ++d) {
    if (amounts[2 * d] != 0 || amounts[2 * d + 1] != 0) names[d].clear();
  }
  return {std::move(shape), c.in(0).dtype, std::move(names)};
}

TensorType concatRule(const Call& c) {
  const std::size_t a = c.axis(c.attrs.axis, c.rank(0));
  Shape shape = c.shape(0);
  const DType dtype = c.in(0).dtype;
  for (std::size_t i = 1; i < c.count(); ++i) {
    const TensorInfo& t = c.in(i);
    if (t.dtype != dtype) c.fail("tensor {} is {}, tensor 0 is {}", i, dtypeName(t.dtype), dtypeName(dtype));
    bool compatible = t.shape.size() == shape.size();
    for (std::size_t d = 0; compatible && d < shape.size(); ++d) {
      if (d != a && t.shape[d] != shape[d]) compatible = false;
    }
    if (!compatible) {
      c.fail("tensor {} has shape {}, which differs from tensor 0's {} outside axis {}", i,
             formatShape(t.shape), formatShape(c.shape(0)), a);
    }
    if (__builtin_add_overflow(shape[a], t.shape[a], &shape[a])) c.fail("the joined axis overflows 64 bits");
  }
  // The other axes are equal in every input; the joined one is n·name when all n share a name.
  DimNames names = broadcastNames(shape, c.inputs());
  const std::string& first = c.nameOf(0, a);
  bool shared = !first.empty();
  for (std::size_t i = 1; shared && i < c.count(); ++i) shared = sameDimName(c.nameOf(i, a), first);
  if (shared) {
    names.resize(shape.size());
    names[a] = scaleDimName(first, static_cast<std::int64_t>(c.count()), 1);
  } else if (!names.empty()) {
    names[a].clear();
  }
  return {std::move(shape), dtype, std::move(names)};
}

TensorType stackRule(const Call& c) {
  for (std::size_t i = 1; i < c.count(); ++i) {
    if (c.shape(i) != c.shape(0) || c.in(i).dtype != c.in(0).dtype) {
      c.fail("every tensor must have the same shape and dtype: tensor {} is {}, tensor 0 is {}", i,
             describe(c.in(i)), describe(c.in(0)));
    }
  }
  const std::size_t a = c.axis(c.attrs.axis, c.rank(0) + 1);
  DimNames names = broadcastNames(c.shape(0), c.inputs());
  if (!names.empty()) names.insert(names.begin() + static_cast<std::ptrdiff_t>(a), std::string());
  Shape shape = c.shape(0);
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(a), static_cast<std::int64_t>(c.count()));
  return {std::move(shape), c.in(0).dtype, std::move(names)};
}

// ----- fused ML ops --------------------------------------------------------------------------------

TensorType softmaxRule(const Call& c) {
  c.requireFloat(0);
  c.axis(c.attrs.axis, c.rank(0));
  return {c.shape(0), DType::f32, c.names(0)};
}

// softmax_causal / where_causal work on square [.., T, T] score matrices.
void requireSquareScores(const Call& c) {
  c.requireFloat(0);
  const Shape& s = c.shape(0);
  if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2]) {
    c.fail("input must end in a square [T, T] score matrix, got {}", formatShape(s));
  }
}

TensorType softmaxCausalRule(const Call& c) {
  requireSquareScores(c);
  return {c.shape(0), DType::f32, c.names(0)};
}

TensorType whereCausalRule(const Call& c) {
  requireSquareScores(c);
  if (std::isnan(c.attrs.scalar)) c.fail("fill must not be NaN");
  return {c.shape(0), DType::f32, c.names(0)};
}

TensorType categoricalRule(const Call& c) {
  c.requireFloat(0, "logits");
  const std::size_t axis = c.axis(c.attrs.axis, c.rank(0));
  return {reduced(c.shape(0), axis, false), DType::i32, reducedNames(c.names(0), axis, false)};
}

TensorType splitHeadsRule(const Call& c) {
  c.requireRank(0, 3, "input ([B, T, D])");
  const Shape& s = c.shape(0);
  const std::int64_t heads = c.attrs.count;
  if (heads <= 0 || s[2] % heads != 0) {
    c.fail("D = {} of {} is not divisible by {} heads", s[2], formatShape(s), heads);
  }
  c.requireAttrNames(1, "head count (count)");
  const std::string& h = c.attrName(0);
  DimNames names;
  if (!c.names(0).empty() || !h.empty()) {
    names = {c.nameOf(0, 0), h, c.nameOf(0, 1), h.empty() ? std::string() : divideDimNames(c.nameOf(0, 2), h)};
  }
  return {{s[0], heads, s[1], s[2] / heads}, c.in(0).dtype, std::move(names)};
}

TensorType mergeHeadsRule(const Call& c) {
  c.requireRank(0, 4, "input ([B, H, T, Dh])");
  const Shape& s = c.shape(0);
  DimNames names;
  if (!c.names(0).empty()) names = {c.nameOf(0, 0), c.nameOf(0, 2), multiplyDimNames(c.nameOf(0, 1), c.nameOf(0, 3))};
  return {{s[0], s[2], mulOrFail(c, s[1], s[3], "H * Dh")}, c.in(0).dtype, std::move(names)};
}

TensorType ropeRule(const Call& c) {
  c.requireFloat(0);
  const Shape& s = c.shape(0);
  if (s.size() < 2 || s.back() % 2 != 0) {
    c.fail("input must be [..., T, Dh] with an even Dh, got {}", formatShape(s));
  }
  if (!(c.attrs.scalar > 0) || !std::isfinite(c.attrs.scalar)) {
    c.fail("base must be positive, got {}", c.attrs.scalar);
  }
  return {s, DType::f32, c.names(0)};
}

// ----- convolution and pooling ---------------------------------------------------------------------

// groups, stride and padding of a convolution.
void requireConvAttrs(const Call& call) {
  const OpAttrs& a = call.attrs;
  if (a.groups <= 0) call.fail("groups must be positive, got {}", a.groups);
  if (a.stride[0] <= 0 || a.stride[1] <= 0) {
    call.fail("stride must be positive, got ({}, {})", a.stride[0], a.stride[1]);
  }
  if (a.padding[0] < 0 || a.padding[1] < 0) {
    call.fail("padding must not be negative, got ({}, {})", a.padding[0], a.padding[1]);
  }
  if (a.dilation[0] <= 0 || a.dilation[1] <= 0) {
    call.fail("dilation must be positive, got ({}, {})", a.dilation[0], a.dilation[1]);
  }
}

// The span a kernel of `taps` taps covers with `dilation` between them: dilation·(taps - 1) + 1.
std::int64_t dilatedSpan(const Call& c, std::int64_t taps, std::int64_t dilation, std::string_view axis) {
  std::int64_t span = 0;
  if (__builtin_mul_overflow(dilation, taps - 1, &span) || __builtin_add_overflow(span, 1, &span)) {
    c.fail("the dilated {} kernel ({} taps, dilation {}) overflows 64 bits", axis, taps, dilation);
  }
  return span;
}

// The conv attributes, and weight [outC, inC/groups, kH, kW] against input x [N, C, H, W].
void requireConv(const Call& call, const Shape& x, const Shape& w) {
  requireConvAttrs(call);
  const OpAttrs& a = call.attrs;
  if (a.kernel[0] != w[2] || a.kernel[1] != w[3]) {
    call.fail("kernel ({}, {}) must be the weight's ({}, {})", a.kernel[0], a.kernel[1], w[2], w[3]);
  }
  const std::int64_t channels = x[1];
  if (channels % a.groups != 0 || w[0] % a.groups != 0) {
    call.fail("input channels {} and output channels {} must be divisible by groups = {}", channels,
              w[0], a.groups);
  }
  if (w[1] != channels / a.groups) {
    call.fail("weight {} expects {} input channels per group, input {} has {} / {} groups",
              formatShape(w), w[1], formatShape(x), channels, a.groups);
  }
}

// [N, outC, H', W'] of a convolution over x [N, C, H, W]: its kernel spans its dilated taps.
Shape convOut(const Call& c, const Shape& x, std::int64_t outChannels) {
  const OpAttrs& a = c.attrs;
  auto side = [&](std::size_t i, std::string_view axis) {
    const std::int64_t in = x[2 + i];
    const std::int64_t span = dilatedSpan(c, a.kernel[i], a.dilation[i], axis);
    std::int64_t padded = 0;
    if (a.dilation[i] > 1 && !__builtin_mul_overflow(a.padding[i], 2, &padded) &&
        !__builtin_add_overflow(padded, in, &padded) && span > padded) {
      c.fail("the {} kernel ({} taps at dilation {}: {} wide) is larger than the padded input ({} + 2·{})", axis,
             a.kernel[i], a.dilation[i], span, in, a.padding[i]);
    }
    return windowOut(c, in, span, a.stride[i], a.padding[i], axis);
  };
  return {x[0], outChannels, side(0, "height"), side(1, "width")};
}

// The names of a window's output `out` [N, C', H', W'] over x (input 0) [N, C, H, W], C' named
// `channels`: N kept, each spatial axis by strideName.
DimNames windowNames(const Call& c, const Shape& out, const std::string& channels) {
  if (c.names(0).empty() && channels.empty()) return {};
  const Shape& x = c.shape(0);
  const OpAttrs& a = c.attrs;
  return {c.nameOf(0, 0), channels, strideName(c.nameOf(0, 2), x[2], out[2], a.stride[0]),
          strideName(c.nameOf(0, 3), x[3], out[3], a.stride[1])};
}

TensorType conv2dRule(const Call& c) {
  c.requireFloat(0);
  c.requireFloat(1, "weight");
  c.requireRank(0, 4, "input ([N, C, H, W])");
  c.requireRank(1, 4, "weight ([outC, inC/groups, kH, kW])");
  requireConv(c, c.shape(0), c.shape(1));
  Shape shape = convOut(c, c.shape(0), c.shape(1)[0]);
  DimNames names = windowNames(c, shape, c.nameOf(1, 0));
  return {std::move(shape), DType::f32, std::move(names)};
}

// A transposed convolution maps y [N, C', H', W'] back to the shape a convolution by weight
// [C', C/groups, kH, kW] reads from: conv_transpose2d's x, conv2d_input_grad's dy (input 0). The
// output shape is the attribute `dims` (several input sizes give one conv output; dims picks one,
// which is what ConvTranspose2d's outputPadding does).
TensorType transposedConvRule(const Call& c, std::string_view in) {
  requireAllFloat(c);
  c.requireRank(0, 4, in);
  c.requireRank(1, 4, "weight");
  if (c.shape(0)[1] != c.shape(1)[0]) {
    c.fail("weight {} expects {} channels (its axis 0), {} {} has {}", formatShape(c.shape(1)),
           c.shape(1)[0], in, formatShape(c.shape(0)), c.shape(0)[1]);
  }
  requireConvAttrs(c);
  const Shape& dims = c.attrs.dims;
  c.requirePositiveDims(dims, "output sizes (dims)");
  if (dims.size() != 4) c.fail("the output shape (dims) must have rank 4, got {}", formatShape(dims));
  requireConv(c, dims, c.shape(1));
  if (convOut(c, dims, c.shape(1)[0]) != c.shape(0)) {
    c.fail("{} {} is not the output of a convolution of {} by {}", in, formatShape(c.shape(0)),
           formatShape(dims), formatShape(c.shape(1)));
  }
  // N kept; the channels are the weight's axis 1 when one group makes them; each spatial axis
  // grows by the stride (upsampledName).
  const Shape& y = c.shape(0);
  const std::string& channels = dims[1] == c.shape(1)[1] ? c.nameOf(1, 1) : std::string();
  if (c.names(0).empty() && channels.empty()) return {dims, DType::f32};
  DimNames names = {c.nameOf(0, 0), channels, upsampledName(c.nameOf(0, 2), y[2], dims[2], c.attrs.stride[0]),
                    upsampledName(c.nameOf(0, 3), y[3], dims[3], c.attrs.stride[1])};
  return {dims, DType::f32, std::move(names)};
}

TensorType convTranspose2dRule(const Call& c) { return transposedConvRule(c, "input"); }

void requirePoolAttrs(const Call& c) {
  requireWindowAttrs(c);
  const OpAttrs& a = c.attrs;
  if (a.padding[0] > a.kernel[0] / 2 || a.padding[1] > a.kernel[1] / 2) {
    c.fail("padding ({}, {}) must be between 0 and half the kernel ({}, {})", a.padding[0],
           a.padding[1], a.kernel[0], a.kernel[1]);
  }
}

// A pool's output over x [N, C, H, W]: convOut's windows, or with ceil_mode (PyTorch's) one more
// on a side whose last window would otherwise leave input rows out, as long as that window
// starts inside the input or its left padding.
Shape poolOut(const Call& c, const Shape& x) {
  Shape out = convOut(c, x, x[1]);
  const OpAttrs& a = c.attrs;
  if (!a.ceilMode) return out;
  for (std::size_t i = 0; i < 2; ++i) {
    const std::int64_t padded = x[2 + i] + 2 * a.padding[i];  // convOut checked it fits
    // Where the extra window would start, from the left padding's start (overflowing: past it).
    std::int64_t start = 0;
    if ((padded - a.kernel[i]) % a.stride[i] != 0 && !__builtin_mul_overflow(out[2 + i], a.stride[i], &start) &&
        start < x[2 + i] + a.padding[i]) {
      ++out[2 + i];
    }
  }
  return out;
}

// max_pool2d, avg_pool2d.
TensorType pool2dRule(const Call& c) {
  c.requireFloat(0);
  c.requireRank(0, 4, "input ([N, C, H, W])");
  requirePoolAttrs(c);
  Shape shape = poolOut(c, c.shape(0));
  DimNames names = windowNames(c, shape, c.nameOf(0, 1));
  return {std::move(shape), DType::f32, std::move(names)};
}

TensorType nearestUpsample2dRule(const Call& c) {
  c.requireRank(0, 4, "input ([N, C, H, W])");
  const std::int64_t f = c.attrs.count;
  if (f < 1) c.fail("factor must be >= 1, got {}", f);
  const Shape& s = c.shape(0);
  Shape shape = {s[0], s[1], mulOrFail(c, s[2], f, "the upsampled height"), mulOrFail(c, s[3], f, "the upsampled width")};
  DimNames names;
  if (!c.names(0).empty()) {
    names = {c.nameOf(0, 0), c.nameOf(0, 1), scaleDimName(c.nameOf(0, 2), f, 1), scaleDimName(c.nameOf(0, 3), f, 1)};
  }
  return {std::move(shape), c.in(0).dtype, std::move(names)};
}

// PyTorch's F.interpolate(x, scale_factor=f, mode='bilinear'): nearest's shape, float only.
TensorType bilinearUpsample2dRule(const Call& c) {
  c.requireFloat(0);
  return nearestUpsample2dRule(c);
}

// F.pixel_shuffle(x, r): [..., C·r², H, W] -> [..., C, H·r, W·r] (the sub-pixel convolution's
// rearrangement); F.pixel_unshuffle(x, r) the inverse. Leading axes (a batch, or none) are kept.
TensorType pixelShuffleRule(const Call& c) {
  const Shape& s = c.shape(0);
  if (s.size() < 3) c.fail("input must be [..., C, H, W] (rank >= 3), got {}", describe(c.in(0)));
  const std::int64_t r = c.attrs.count;
  if (r < 1) c.fail("factor must be >= 1, got {}", r);
  const std::size_t ch = s.size() - 3, h = s.size() - 2, w = s.size() - 1;
  const bool shuffle = c.kind == OpKind::pixel_shuffle;
  const std::int64_t area = mulOrFail(c, r, r, "the factor squared");
  Shape shape = s;
  if (shuffle) {
    if (s[ch] % area != 0) {
      c.fail("input channels ({}) must be divisible by factor² ({}·{} = {})", s[ch], r, r, area);
    }
    shape[ch] = s[ch] / area;
    shape[h] = mulOrFail(c, s[h], r, "the output height");
    shape[w] = mulOrFail(c, s[w], r, "the output width");
  } else {
    if (s[h] % r != 0 || s[w] % r != 0) {
      c.fail("input height and width ({}, {}) must be divisible by the factor ({})", s[h], s[w], r);
    }
    shape[ch] = mulOrFail(c, s[ch], area, "the output channels");
    shape[h] = s[h] / r;
    shape[w] = s[w] / r;
  }
  DimNames names;
  if (!c.names(0).empty()) {
    names = c.names(0);
    names[ch] = shuffle ? scaleDimName(c.nameOf(0, ch), 1, area) : scaleDimName(c.nameOf(0, ch), area, 1);
    for (std::size_t axis : {h, w}) {
      names[axis] = shuffle ? scaleDimName(c.nameOf(0, axis), r, 1) : scaleDimName(c.nameOf(0, axis), 1, r);
    }
  }
  return {std::move(shape), c.in(0).dtype, std::move(names)};
}

// ----- stochastic and gradient control -------------------------------------------------------------

TensorType dropoutRule(const Call& c) {
  c.requireFloat(0);
  const double p = c.attrs.scalar;
  if (!(p >= 0.0 && p < 1.0)) c.fail("p must be in [0, 1), got {}", p);
  return {c.shape(0), DType::f32, c.names(0)};
}

TensorType identityRule(const Call& c) { return {c.shape(0), c.in(0).dtype, c.names(0)}; }

TensorType captureRule(const Call& c) {
  if (c.attrs.name.empty()) c.fail("the capture needs a name");
  return {c.shape(0), c.in(0).dtype, c.names(0)};
}

// ----- losses ----------------------------------------------------------------------------------

// scores [..., C] (logits or logProbs) against i32 targets [...].
void requireScoresAndTargets(const Call& c, std::size_t scores, std::size_t targets) {
  const std::string_view name = c.kind == OpKind::nll_loss ? "logProbs" : "logits";
  c.requireFloat(scores, name);
  c.requireDtype(targets, DType::i32, "targets");
  const Shape& s = c.shape(scores);
  const Shape& t = c.shape(targets);
  if (s.empty() || t.size() + 1 != s.size() || !std::equal(t.begin(), t.end(), s.begin())) {
    c.fail("{} [..., C] and targets [...] must agree on the leading axes: {} vs {}", name,
           formatShape(s), formatShape(t));
  }
}

TensorType lossRule(const Call& c) {
  requireScoresAndTargets(c, 0, 1);
  if (c.attrs.reduction != Reduction::none) return {Shape{}, DType::f32};
  return {c.shape(1), DType::f32, c.names(1)};
}

// ----- normalisation ---------------------------------------------------------------------------

TensorType layerNormRule(const Call& c) {
  c.requireFloat(0);
  if (c.shape(0).empty()) c.fail("input must have rank >= 1");
  const std::int64_t d = c.shape(0).back();
  c.requireVector(1, d, "weight", "last axis");
  c.requireFloat(1, "weight");
  if (c.count() > 2) {
    c.requireVector(2, d, "bias", "last axis");
    c.requireFloat(2, "bias");
  }
  c.requireEps(c.attrs.scalar);
  return {c.shape(0), DType::f32, c.names(0)};
}

// x [N, C, H, W] and the per-channel vectors from input 1 on (`names`).
TensorType batchNormRule(const Call& c, std::initializer_list<std::string_view> names) {
  c.requireFloat(0);
  c.requireRank(0, 4, "input ([N, C, H, W])");
  std::size_t i = 1;
  for (std::string_view name : names) {
    c.requireVector(i, c.shape(0)[1], name, "channel axis");
    c.requireFloat(i, name);
    ++i;
  }
  c.requireEps(c.attrs.scalar);
  return {c.shape(0), DType::f32, c.names(0)};
}

TensorType batchNorm2dRule(const Call& c) {
  c.requireFinite(c.attrs.scalar2, "momentum");
  return batchNormRule(c, {"weight", "bias"});
}

TensorType batchNorm2dInferenceRule(const Call& c) {
  return batchNormRule(c, {"weight", "bias", "running mean", "running variance"});
}

// x [N, C, ...] in `groups` groups of channels (attr count): the channel count divides.
void requireGroups(const Call& c, std::size_t x) {
  if (c.rank(x) < 2) c.fail("input must be [N, C, ...] (rank >= 2), got {}", describe(c.in(x)));
  const std::int64_t groups = c.attrs.count;
  if (groups <= 0) c.fail("groups must be positive, got {}", groups);
  if (c.shape(x)[1] % groups != 0) {
    c.fail("channels {} (axis 1 of {}) must be divisible by groups = {}", c.shape(x)[1],
           formatShape(c.shape(x)), groups);
  }
}

// x alone, or x with weight and bias [C] (affine).
TensorType groupNormRule(const Call& c) {
  c.requireFloat(0);
  requireGroups(c, 0);
  if (c.count() == 2) c.fail("takes the weight and the bias together (affine), or neither");
  if (c.count() == 3) {
    const std::int64_t channels = c.shape(0)[1];
    c.requireVector(1, channels, "weight", "channel axis");
    c.requireFloat(1, "weight");
    c.requireVector(2, channels, "bias", "channel axis");
    c.requireFloat(2, "bias");
  }
  c.requireEps(c.attrs.scalar);
  return {c.shape(0), DType::f32, c.names(0)};
}

// ===== internal kinds (docs/ir.md "Backward and optimizer kinds") ==================================

TensorType sumToShapeRule(const Call& c) {
  const Shape& target = c.attrs.dims;
  c.requirePositiveDims(target);
  const Shape& dy = c.shape(0);
  if (!broadcastsTo(target, dy)) c.fail("cannot sum {} down to {}", formatShape(dy), formatShape(target));
  return {target, c.in(0).dtype};
}

// (dy, x) or (dy, y) of one shape: the activations' backward.
TensorType activationGradRule(const Call& c) {
  requireAllFloat(c);
  c.requireSameShape(0, 1, "dy", "x");
  if (c.kind == OpKind::leaky_relu_grad) c.requireFinite(c.attrs.scalar, "alpha");
  if (c.kind == OpKind::clamp_grad) requireBounds(c);
  return {c.shape(0), DType::f32, c.names(0)};
}

TensorType softmaxGradRule(const Call& c) {
  requireAllFloat(c);
  c.requireSameShape(0, 1, "dy", "y");
  c.axis(c.attrs.axis, c.rank(0));
  return {c.shape(0), DType::f32, c.names(0)};
}

// dy of a loss: rank 0 for mean and sum, the targets' shape for none.
void requireLossGradient(const Call& c, const Shape& targets) {
  const Shape expected = c.attrs.reduction == Reduction::none ? targets : Shape{};
  if (c.shape(0) != expected) {
    c.fail("dy must be {} for this reduction, got {}", formatShape(expected), formatShape(c.shape(0)));
  }
}

TensorType crossEntropyGradRule(const Call& c) {
  c.requireFloat(0, "dy");
  requireScoresAndTargets(c, 1, 2);
  requireLossGradient(c, c.shape(2));
  return {c.shape(1), DType::f32, c.names(1)};
}

TensorType nllLossGradRule(const Call& c) {
  c.requireFloat(0, "dy");
  c.requireDtype(1, DType::i32, "targets");
  const Shape& dims = c.attrs.dims;
  c.requirePositiveDims(dims, "logProbs sizes (dims)");
  if (dims.empty() || c.shape(1) != Shape(dims.begin(), dims.end() - 1)) {
    c.fail("targets {} must be the leading axes of logProbs {}", formatShape(c.shape(1)), formatShape(dims));
  }
  requireLossGradient(c, c.shape(1));
  return {dims, DType::f32};
}

TensorType embeddingGradRule(const Call& c) {
  c.requireFloat(0, "dy");
  c.requireDtype(1, DType::i32, "indices");
  const Shape& dy = c.shape(0);
  const Shape& idx = c.shape(1);
  if (dy.size() != idx.size() + 1 || !std::equal(idx.begin(), idx.end(), dy.begin())) {
    c.fail("dy {} must be the indices' shape {} and one more axis", formatShape(dy), formatShape(idx));
  }
  if (c.attrs.count <= 0) c.fail("vocab (count) must be positive, got {}", c.attrs.count);
  requirePaddingRow(c, c.attrs.count);
  return {{c.attrs.count, dy.back()}, DType::f32};
}

TensorType takeAlongAxisGradRule(const Call& c) {
  c.requireFloat(0, "dy");
  c.requireDtype(1, DType::i32, "indices");
  c.requireSameShape(0, 1, "dy", "indices");
  const Shape& dims = c.attrs.dims;
  c.requirePositiveDims(dims, "input sizes (dims)");
  if (dims.size() != c.rank(1)) {
    c.fail("indices {} must have the rank of the input {}", formatShape(c.shape(1)), formatShape(dims));
  }
  requireIndicesAlong(c, c.shape(1), dims, c.axis(c.attrs.axis, dims.size()));
  return {dims, DType::f32};
}

TensorType narrowGradRule(const Call& c) {
  c.requireFloat(0, "dy");
  const Shape& dims = c.attrs.dims;
  c.requirePositiveDims(dims, "input sizes (dims)");
  const Shape& dy = c.shape(0);
  const std::size_t a = c.axis(c.attrs.axis, dims.size());
  bool ok = dy.size() == dims.size();
  for (std::size_t d = 0; ok && d < dims.size(); ++d) ok = d == a || dy[d] == dims[d];
  if (!ok) c.fail("dy {} must match the input {} on every axis but {}", formatShape(dy), formatShape(dims), a);
  if (c.attrs.start < 0 || c.attrs.start > dims[a] - dy[a]) {
    c.fail("range start {} length {} does not fit axis {} of size {}", c.attrs.start, dy[a], a, dims[a]);
  }
  return {dims, DType::f32};
}

TensorType ropeGradRule(const Call& c) { return ropeRule(c); }

TensorType conv2dInputGradRule(const Call& c) { return transposedConvRule(c, "dy"); }

TensorType conv2dWeightGradRule(const Call& c) {
  requireAllFloat(c);
  c.requireRank(0, 4, "x");
  c.requireRank(1, 4, "dy");
  const Shape& dims = c.attrs.dims;
  c.requirePositiveDims(dims, "weight sizes (dims)");
  if (dims.size() != 4) c.fail("the weight shape (dims) must have rank 4, got {}", formatShape(dims));
  requireConv(c, c.shape(0), dims);
  if (convOut(c, c.shape(0), dims[0]) != c.shape(1)) {
    c.fail("dy {} is not the output of a convolution of {} by {}", formatShape(c.shape(1)),
           formatShape(c.shape(0)), formatShape(dims));
  }
  return {dims, DType::f32};
}

TensorType avgPool2dGradRule(const Call& c) {
  c.requireFloat(0, "dy");
  c.requireRank(0, 4, "dy");
  const Shape& dims = c.attrs.dims;
  c.requirePositiveDims(dims, "input sizes (dims)");
  if (dims.size() != 4) c.fail("the input shape (dims) must have rank 4, got {}", formatShape(dims));
  requirePoolAttrs(c);
  if (poolOut(c, dims) != c.shape(0)) {
    c.fail("dy {} is not the pooled shape of {}", formatShape(c.shape(0)), formatShape(dims));
  }
  return {dims, DType::f32};
}

TensorType maxPool2dGradRule(const Call& c) {
  requireAllFloat(c);
  c.requireRank(1, 4, "x");
  requirePoolAttrs(c);
  if (poolOut(c, c.shape(1)) != c.shape(0)) {
    c.fail("dy {} is not the pooled shape of {}", formatShape(c.shape(0)), formatShape(c.shape(1)));
  }
  return {c.shape(1), DType::f32, c.names(1)};
}

TensorType nearestUpsample2dGradRule(const Call& c) {
  c.requireFloat(0, "dy");
  c.requireRank(0, 4, "dy");
  const std::int64_t f = c.attrs.count;
  const Shape& s = c.shape(0);
  if (f < 1 || s[2] % f != 0 || s[3] % f != 0) {
    c.fail("dy {} is not upsampled by a factor of {}", formatShape(s), f);
  }
  return {{s[0], s[1], s[2] / f, s[3] / f}, DType::f32};
}

// (dy, x[, weight]) of a row norm (layer/RMS: the last axis) or batch norm (channels).
TensorType normGradRule(const Call& c) {
  requireAllFloat(c);
  c.requireSameShape(0, 1, "dy", "x");
  c.requireEps(c.attrs.scalar);
  const bool batch = c.kind == OpKind::batch_norm2d_input_grad || c.kind == OpKind::batch_norm2d_weight_grad;
  if (batch) c.requireRank(1, 4, "x ([N, C, H, W])");
  if (c.shape(1).empty()) c.fail("x must have rank >= 1");
  const std::int64_t d = batch ? c.shape(1)[1] : c.shape(1).back();
  const bool input = c.count() == 3;
  if (input) c.requireVector(2, d, "weight", batch ? "channel axis" : "last axis");
  if (!input) return {Shape{d}, DType::f32};
  return {c.shape(1), DType::f32, c.names(1)};
}

// (dy, x[, weight]) -> dx, or (dy, x) -> dweight [C].
TensorType groupNormGradRule(const Call& c) {
  requireAllFloat(c);
  c.requireSameShape(0, 1, "dy", "x");
  requireGroups(c, 1);
  c.requireEps(c.attrs.scalar);
  const std::int64_t channels = c.shape(1)[1];
  if (c.kind == OpKind::group_norm_weight_grad) return {{channels}, DType::f32};
  if (c.count() == 3) c.requireVector(2, channels, "weight", "channel axis");
  return {c.shape(1), DType::f32, c.names(1)};
}

TensorType runningStatisticRule(const Call& c) {
  requireAllFloat(c);
  c.requireRank(0, 4, "x ([N, C, H, W])");
  c.requireVector(1, c.shape(0)[1], "running statistic", "channel axis");
  c.requireFinite(c.attrs.scalar, "momentum");
  return {c.shape(1), DType::f32, c.names(1)};
}

// (state, g) of one shape: Adam's moments, SGD's momentum buffer.
TensorType momentRule(const Call& c) {
  requireAllFloat(c);
  c.requireSameShape(0, 1, "state", "gradient");
  const double b = c.attrs.scalar;
  if (c.kind == OpKind::sgd_momentum ? !(b >= 0 && std::isfinite(b)) : !(b >= 0 && b < 1)) {
    c.fail("{} {} is out of range", c.kind == OpKind::sgd_momentum ? "momentum" : "beta", b);
  }
  return {c.shape(0), DType::f32, c.names(0)};
}

TensorType adamUpdateRule(const Call& c) {
  requireAllFloat(c);
  c.requireSameShape(0, 1, "p", "m");
  c.requireSameShape(0, 2, "p", "v");
  c.requireScalar(3, "lr");
  c.requireScalar(4, "bias correction 1");
  c.requireScalar(5, "bias correction 2");
  if (!(c.attrs.scalar > 0) || !std::isfinite(c.attrs.scalar)) c.fail("eps must be finite and > 0, got {}", c.attrs.scalar);
  c.requireFinite(c.attrs.scalar2, "weight decay");
  return {c.shape(0), DType::f32, c.names(0)};
}

TensorType sgdUpdateRule(const Call& c) {
  requireAllFloat(c);
  c.requireSameShape(0, 1, "p", "direction");
  c.requireScalar(2, "lr");
  return {c.shape(0), DType::f32, c.names(0)};
}

// The rule of each kind. No default: the compiler names a kind without one.
Rule ruleFor(OpKind kind) {
  switch (kind) {
    case OpKind::param_input: case OpKind::tensor_input: case OpKind::state_input:
      return nullptr;  // declared, not inferred
    case OpKind::zeros: case OpKind::ones: return filled;
    case OpKind::arange: return arangeRule;
    case OpKind::randn: return randnRule;
    case OpKind::sqrt: case OpKind::rsqrt: case OpKind::log: case OpKind::exp: case OpKind::sin:
    case OpKind::cos: case OpKind::erf: case OpKind::relu: case OpKind::tanh: case OpKind::sigmoid:
    case OpKind::gelu: case OpKind::silu: case OpKind::softplus:
      return unaryFloat;
    case OpKind::neg: case OpKind::abs: case OpKind::square: return unaryNumeric;
    case OpKind::leaky_relu: return leakyReluRule;
    case OpKind::clamp: return clampRule;
    case OpKind::pow: return powRule;
    case OpKind::add: case OpKind::sub: case OpKind::mul: case OpKind::div: case OpKind::min:
    case OpKind::max: case OpKind::less: case OpKind::greater:
      return binaryRule;
    case OpKind::where: return whereRule;
    case OpKind::mean: case OpKind::sum: return reduceRule;
    case OpKind::argmax: case OpKind::argmin: return argReduceRule;
    case OpKind::cumsum: return cumsumRule;
    case OpKind::topk: return topkRule;
    case OpKind::reshape: return reshapeRule;
    case OpKind::permute: return permuteRule;
    case OpKind::matmul: return matmulRule;
    case OpKind::one_hot: return oneHotRule;
    case OpKind::embedding: return embeddingRule;
    case OpKind::take_along_axis: return takeAlongAxisRule;
    case OpKind::narrow: return narrowRule;
    case OpKind::pad: return padRule;
    case OpKind::concat: return concatRule;
    case OpKind::stack: return stackRule;
    case OpKind::softmax: case OpKind::log_softmax: return softmaxRule;
    case OpKind::softmax_causal: return softmaxCausalRule;
    case OpKind::where_causal: return whereCausalRule;
    case OpKind::categorical: return categoricalRule;
    case OpKind::split_heads: return splitHeadsRule;
    case OpKind::merge_heads: return mergeHeadsRule;
    case OpKind::rope: return ropeRule;
    case OpKind::conv2d: return conv2dRule;
    case OpKind::conv_transpose2d: return convTranspose2dRule;
    case OpKind::max_pool2d: case OpKind::avg_pool2d: return pool2dRule;
    case OpKind::nearest_upsample2d: return nearestUpsample2dRule;
    case OpKind::pixel_shuffle: case OpKind::pixel_unshuffle: return pixelShuffleRule;
    case OpKind::bilinear_upsample2d: return bilinearUpsample2dRule;
    case OpKind::dropout: return dropoutRule;
    case OpKind::stop_gradient: return identityRule;
    case OpKind::capture: return captureRule;
    case OpKind::cross_entropy: case OpKind::nll_loss: return lossRule;
    case OpKind::layer_norm: case OpKind::rms_norm: return layerNormRule;
    case OpKind::batch_norm2d: return batchNorm2dRule;
    case OpKind::batch_norm2d_inference: return batchNorm2dInferenceRule;
    case OpKind::group_norm: return groupNormRule;
    case OpKind::broadcast_to: return broadcastToRule;
    case OpKind::sum_to_shape: return sumToShapeRule;
    case OpKind::relu_grad: case OpKind::gelu_grad: case OpKind::silu_grad:
    case OpKind::leaky_relu_grad: case OpKind::softplus_grad: case OpKind::clamp_grad:
    case OpKind::abs_grad: case OpKind::tanh_grad: case OpKind::sigmoid_grad:
      return activationGradRule;
    case OpKind::softmax_grad: case OpKind::log_softmax_grad: return softmaxGradRule;
    case OpKind::cross_entropy_grad: return crossEntropyGradRule;
    case OpKind::nll_loss_grad: return nllLossGradRule;
    case OpKind::embedding_grad: return embeddingGradRule;
    case OpKind::take_along_axis_grad: return takeAlongAxisGradRule;
    case OpKind::narrow_grad: return narrowGradRule;
    case OpKind::cumsum_grad: return cumsumRule;
    case OpKind::rope_grad: return ropeGradRule;
    case OpKind::conv2d_input_grad: return conv2dInputGradRule;
    case OpKind::conv2d_weight_grad: return conv2dWeightGradRule;
    case OpKind::max_pool2d_grad: return maxPool2dGradRule;
    case OpKind::avg_pool2d_grad: return avgPool2dGradRule;
    case OpKind::nearest_upsample2d_grad:
    case OpKind::bilinear_upsample2d_grad: return nearestUpsample2dGradRule;
    case OpKind::layer_norm_input_grad: case OpKind::layer_norm_weight_grad:
    case OpKind::rms_norm_input_grad: case OpKind::rms_norm_weight_grad:
    case OpKind::batch_norm2d_input_grad: case OpKind::batch_norm2d_weight_grad:
      return normGradRule;
    case OpKind::group_norm_input_grad: case OpKind::group_norm_weight_grad: return groupNormGradRule;
    case OpKind::batch_norm2d_running_mean: case OpKind::batch_norm2d_running_var:
      return runningStatisticRule;
    case OpKind::adam_moment1: case OpKind::adam_moment2: case OpKind::sgd_momentum:
      return momentRule;
    case OpKind::adam_update: return adamUpdateRule;
    case OpKind::sgd_update: return sgdUpdateRule;
  }
  return nullptr;
}

}  // namespace

bool hasShapeRule(OpKind kind) { return ruleFor(kind) != nullptr; }

std::string arityProblem(OpKind kind, std::size_t n) {
  const OpInfo& info = opInfo(kind);
  if (n >= info.minInputs && (info.maxInputs == kVariadic || n <= info.maxInputs)) return {};
  if (info.minInputs == info.maxInputs) return fmt::format("takes {} inputs, got {}", info.minInputs, n);
  if (info.maxInputs == kVariadic) {
    return fmt::format("takes at least {} input{}, got {}", info.minInputs, info.minInputs == 1 ? "" : "s", n);
  }
  return fmt::format("takes {} to {} inputs, got {}", info.minInputs, info.maxInputs, n);
}

std::string_view unusedAttribute(OpKind kind, const OpAttrs& a) {
  const OpAttrs d;
  const AttrSet used = opInfo(kind).attrs;
  auto unused = [&](AttrSet bit, bool differs) { return differs && (used & bit) == 0; };
  if (unused(attr::name, a.name != d.name)) return "name";
  if (unused(attr::dims, a.dims != d.dims)) return "dims";
  if (unused(attr::names, a.names != d.names)) return "names";
  if (unused(attr::axis, a.axis != d.axis)) return "axis";
  if (unused(attr::all_axes, a.allAxes != d.allAxes)) return "all_axes";
  if (unused(attr::keep_dims, a.keepDims != d.keepDims)) return "keep_dims";
  if (unused(attr::start, a.start != d.start)) return "start";
  if (unused(attr::count, a.count != d.count)) return "count";
  // Compared bitwise: NaN differs from the default too.
  if (unused(attr::scalar, !(a.scalar == d.scalar))) return "scalar";
  if (unused(attr::scalar2, !(a.scalar2 == d.scalar2))) return "scalar2";
  if (unused(attr::scalar_operand, a.scalarOperand != d.scalarOperand)) return "scalar_operand";
  if (unused(attr::scalar_left, a.scalarLeft != d.scalarLeft)) return "scalar_left";
  if (unused(attr::approximate, a.approximate != d.approximate)) return "approximate";
  if (unused(attr::dtype, a.dtype != d.dtype)) return "dtype";
  if (unused(attr::reduction, a.reduction != d.reduction)) return "reduction";
  if (unused(attr::kernel, a.kernel != d.kernel)) return "kernel";
  if (unused(attr::stride, a.stride != d.stride)) return "stride";
  if (unused(attr::padding, a.padding != d.padding)) return "padding";
  if (unused(attr::dilation, a.dilation != d.dilation)) return "dilation";
  if (unused(attr::groups, a.groups != d.groups)) return "groups";
  if (unused(attr::align_corners, a.alignCorners != d.alignCorners)) return "align_corners";
  if (unused(attr::ceil_mode, a.ceilMode != d.ceilMode)) return "ceil_mode";
  if (unused(attr::padding_idx, a.paddingIdx != d.paddingIdx)) return "padding_idx";
  if (unused(attr::seed, a.seed != d.seed)) return "seed";
  return {};
}

TensorType inferOutput(OpKind kind, const OpAttrs& attrs, std::span<const TensorInfo* const> inputs) {
  const Rule rule = ruleFor(kind);
  if (rule == nullptr) throw ShapeRuleError(fmt::format("{} is a leaf: its type is declared", opKindName(kind)));
  if (std::string problem = arityProblem(kind, inputs.size()); !problem.empty()) {
    throw ShapeRuleError(std::move(problem));
  }
  if (const std::string_view a = unusedAttribute(kind, attrs); !a.empty()) {
    throw ShapeRuleError(fmt::format("sets the attribute '{}', which {} does not use", a, opKindName(kind)));
  }
  // The rules index names by axis: a list of another length is refused before they read it.
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorInfo& in = *inputs[i];
    if (!in.names.empty() && in.names.size() != in.shape.size()) {
      throw ShapeRuleError(fmt::format("input {} {} has {} axis names", i, formatShape(in.shape), in.names.size()));
    }
  }
  TensorType out = rule(Call(kind, attrs, inputs));
  if (out.shape.size() > kMaxRank) {
    throw ShapeRuleError(fmt::format("the result has {} axes, at most {}", out.shape.size(), kMaxRank));
  }
  if (!checkedNumel(out.shape)) {
    throw ShapeRuleError(fmt::format("the result's element count overflows 64 bits: {}", formatShape(out.shape)));
  }
  out.names = normalizedDimNames(std::move(out.names));
  if (!out.names.empty() && out.names.size() != out.shape.size()) {
    throw std::logic_error(fmt::format("the {} rule named {} axes of {}", opKindName(kind), out.names.size(),
                                       formatShape(out.shape)));
  }
  return out;
}

}  // namespace nndna::ir
