#include "ops/op_builder.hpp"

#include <stdexcept>

namespace nndna::ops {

namespace {
tracing::Tracer& requireTracer(std::string_view api) {
  tracing::Tracer* tracer = tracing::Tracer::active();
  if (tracer == nullptr) {
    throw TraceError("", 0, std::string(api),
                     "ops can only be called inside a forward function while nndna traces it");
  }
  return *tracer;
}

bool isStochastic(ir::OpKind kind) {
  return kind == ir::OpKind::dropout || kind == ir::OpKind::randn ||
         kind == ir::OpKind::categorical;
}
}  // namespace

OpBuilder::OpBuilder(ir::OpKind kind, std::string_view api)
    : tracer_(requireTracer(api)), api_(api) {
  op_.kind = kind;
  op_.site = tracer_.captureSite();
}

const ir::TensorInfo& OpBuilder::input(Tensor t) {
  const ir::TensorId id = tracer_.tensorOf(t, api_, op_.site);
  op_.inputs.push_back(id);
  return tracer_.graph().tensor(id);
}

void OpBuilder::fail(std::string detail) const {
  const tracing::SiteLocation at = tracing::innermostLocation(tracer_.graph(), op_.site);
  throw TraceError(at.file, at.line, std::string(api_), std::move(detail));
}

std::int64_t OpBuilder::axis(std::int64_t axis, std::size_t rank, std::string_view what) const {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) {
    if (r == 0) fail("{} {} is out of range for a rank-0 tensor", what, axis);
    fail("{} {} is out of range for rank {} (expected {}..{})", what, axis, r, -r, r - 1);
  }
  return axis < 0 ? axis + r : axis;
}

void OpBuilder::requireDtype(const ir::TensorInfo& t, DType dtype,
                             std::string_view operand) const {
  if (t.dtype != dtype) {
    fail("{} must be {}, got {}", operand, ir::dtypeName(dtype), describe(t));
  }
}

void OpBuilder::requireRank(const ir::TensorInfo& t, std::size_t rank,
                            std::string_view operand) const {
  if (t.shape.size() != rank) {
    fail("{} must have rank {}, got {}", operand, rank, describe(t));
  }
}

Tensor OpBuilder::finish(Shape shape, DType dtype) {
  try {
    (void)ir::numel(shape);
  } catch (const std::overflow_error&) {
    fail("the result's element count overflows 64 bits: {}", ir::formatShape(shape));
  }
  if (isStochastic(op_.kind)) op_.attrs.seed = tracer_.graph().ops.size();
  const ir::TensorId id = tracer_.emit(std::move(op_), std::move(shape), dtype);
  return Tensor::fromHandle(static_cast<std::uint32_t>(id));
}

Shape broadcastShapes(const OpBuilder& op, const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      op.fail("shapes {} and {} do not broadcast (axis {}: {} vs {})", ir::formatShape(a),
              ir::formatShape(b), static_cast<std::int64_t>(i) - static_cast<std::int64_t>(rank),
              da, db);
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::string describe(const ir::TensorInfo& t) {
  return ir::formatShape(t.shape) + " " + std::string(ir::dtypeName(t.dtype));
}

}  // namespace nndna::ops
