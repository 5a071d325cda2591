#include "ops/op_builder.hpp"

#include <vector>

#include "ir/dim_names.hpp"
#include "trace/dim_log.hpp"

namespace nndna::ops {

namespace {
tracing::Tracer& requireTracer(std::string_view api) {
  tracing::Tracer* tracer = tracing::Tracer::active();
  if (tracer == nullptr) {
    tracing::failAtUserLine(api, "ops can only be called inside a forward function while nndna traces it");
  }
  return *tracer;
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
  throw TraceError(at.file, at.line, std::string(api_), at.withCallers(std::move(detail)));
}

void OpBuilder::count(const Size& size) {
  ir::OpAttrs& own = op_.attrs.edit();
  own.count = size.value();
  own.names = ir::normalizedDimNames({tracing::nameOfSize(size, api_)});
}

void OpBuilder::nameDims(const Sizes& sizes) { op_.attrs.edit().names = tracing::namesOfSizes(sizes, api_); }

std::int64_t OpBuilder::axis(std::int64_t axis, std::size_t rank, std::string_view what) const {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) {
    if (r == 0) fail("{} {} is out of range for a rank-0 tensor", what, axis);
    fail("{} {} is out of range for rank {} (expected {}..{})", what, axis, r, -r, r - 1);
  }
  return axis < 0 ? axis + r : axis;
}

Tensor OpBuilder::finish() {
  if (ir::isStochasticKind(op_.kind)) op_.attrs.edit().seed = tracer_.graph().ops.size();
  // Attributes a builder set back to their defaults (gelu's approximate = false) hold no block.
  op_.attrs.dropIfDefaults();
  std::vector<const ir::TensorInfo*> inputs;
  inputs.reserve(op_.inputs.size());
  for (ir::TensorId id : op_.inputs) inputs.push_back(&tracer_.graph().tensor(id));
  ir::TensorType out;
  try {
    out = ir::inferOutput(op_.kind, op_.attrs, inputs);
  } catch (const ir::ShapeRuleError& e) {
    fail(e.message());  // the same error, at the user's line
  }
  const ir::TensorId id =
      tracer_.emit(std::move(op_), std::move(out.shape), out.dtype, std::move(out.names));
  return tracer_.handleOf(id);
}

namespace {
Tensor viewAs(ir::OpKind kind, std::string_view api, Tensor x, const Sizes& shape) {
  OpBuilder op(kind, api);
  op.input(x);
  op.attrs().dims = shape.values();
  op.nameDims(shape);
  return op.finish();
}
}  // namespace

Tensor reshapeAs(std::string_view api, Tensor x, const Sizes& shape) {
  return viewAs(ir::OpKind::reshape, api, x, shape);
}
Tensor reshapeLike(std::string_view api, Tensor x, Tensor like) {
  ir::TensorInfo target;
  {
    OpBuilder probe(ir::OpKind::reshape, api);  // only reads `like`'s type; never finished
    target = probe.input(like);
  }
  OpBuilder op(ir::OpKind::reshape, api);
  op.input(x);
  op.attrs().dims = std::move(target.shape);
  op.attrs().names = std::move(target.names);
  return op.finish();
}
Tensor broadcastAs(std::string_view api, Tensor x, const Sizes& shape) {
  return viewAs(ir::OpKind::broadcast_to, api, x, shape);
}

}  // namespace nndna::ops
