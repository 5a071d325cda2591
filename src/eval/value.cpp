// Value, and the helpers every op family shares.
#include <cmath>
#include <stdexcept>

#include "eval/kernel.hpp"
#include "trace/tracer.hpp"

namespace nndna::eval {

namespace {
void checkElement(double v, DType dtype) {
  if (dtype == DType::f32) return;
  if (dtype == DType::boolean && v != 0.0 && v != 1.0) {
    throw std::invalid_argument(fmt::format("a bool value must be 0 or 1, got {}", v));
  }
  if (dtype == DType::i32 &&
      (std::trunc(v) != v || v < -2147483648.0 || v > 2147483647.0)) {
    throw std::invalid_argument(fmt::format("an i32 value must be an integer in range, got {}", v));
  }
}
}  // namespace

Value::Value(Shape shape_, DType dtype_, std::vector<double> data_)
    : shape(std::move(shape_)), dtype(dtype_), data(std::move(data_)) {
  for (const std::int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("sizes must not be negative: " + ir::formatShape(shape));
  }
  const std::int64_t n = ir::numel(shape);
  if (static_cast<std::int64_t>(data.size()) != n) {
    throw std::invalid_argument(fmt::format("{} values given for shape {} ({} elements)",
                                            data.size(), ir::formatShape(shape), n));
  }
  for (const double v : data) checkElement(v, dtype);
}

Value Value::scalar(double value, DType dtype) { return Value({}, dtype, {value}); }

Value Value::filled(Shape shape, double value, DType dtype) {
  const auto n = static_cast<std::size_t>(ir::numel(shape));
  return Value(std::move(shape), dtype, std::vector<double>(n, value));
}

double Value::item() const {
  if (data.size() != 1) {
    throw std::invalid_argument("item() of a tensor with " + std::to_string(data.size()) +
                                " elements " + ir::formatShape(shape));
  }
  return data[0];
}

double Value::at(std::initializer_list<std::int64_t> index) const {
  if (index.size() != shape.size()) {
    throw std::out_of_range(fmt::format("index of rank {} into a {} tensor", index.size(),
                                        ir::formatShape(shape)));
  }
  std::int64_t flat = 0;
  std::size_t d = 0;
  for (const std::int64_t i : index) {
    if (i < 0 || i >= shape[d]) {
      throw std::out_of_range(fmt::format("index {} is out of range for axis {} of {}", i, d,
                                          ir::formatShape(shape)));
    }
    flat = flat * shape[d] + i;
    ++d;
  }
  return data[static_cast<std::size_t>(flat)];
}

std::string describe(const Value& value) {
  return ir::formatShape(value.shape) + " " + std::string(ir::dtypeName(value.dtype));
}

const Value& OpContext::in(std::size_t i) const {
  if (i >= inputs.size()) fail("expects at least {} inputs, has {}", i + 1, inputs.size());
  return *inputs[i];
}

Value OpContext::result() const {
  Value v;
  v.shape = out.shape;
  v.dtype = out.dtype;
  v.data.assign(static_cast<std::size_t>(ir::numel(out.shape)), 0.0);
  return v;
}

void OpContext::fail(std::string detail) const {
  const auto opIndex = static_cast<std::size_t>(&op - graph.ops.data());
  const tracing::SiteLocation at = tracing::innermostLocation(graph, op.site);
  throw EvalError(fmt::format("eval: {} (op {}): {}", ir::opKindName(op.kind), opIndex, at.withCallers(detail)),
                  at.file, at.line, tracing::displayPath(at.file));
}

std::size_t OpContext::axis(std::int64_t axis, std::size_t rank) const {
  const auto r = static_cast<std::int64_t>(rank);
  const std::int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r) fail("axis {} is out of range for rank {}", axis, r);
  return static_cast<std::size_t>(a);
}

std::int64_t OpContext::index(double value, std::int64_t size, std::string_view what) const {
  const auto i = static_cast<std::int64_t>(value);
  if (i < 0 || i >= size) fail("{} {} is out of range [0, {})", what, i, size);
  return i;
}

std::vector<std::int64_t> stridesOf(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

std::vector<std::int64_t> broadcastStrides(const Shape& shape, const Shape& target) {
  const std::vector<std::int64_t> own = stridesOf(shape);
  std::vector<std::int64_t> strides(target.size(), 0);
  const std::size_t lead = target.size() - shape.size();
  for (std::size_t d = 0; d < shape.size(); ++d) {
    strides[lead + d] = shape[d] == 1 ? 0 : own[d];
  }
  return strides;
}

AxisSplit splitAt(const Shape& shape, std::size_t axis) {
  AxisSplit s;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (d < axis) s.outer *= shape[d];
    if (d == axis) s.size = shape[d];
    if (d > axis) s.inner *= shape[d];
  }
  return s;
}

double wrapI32(std::int64_t value) {
  return static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(value)));
}

}  // namespace nndna::eval
