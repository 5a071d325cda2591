// Tensor's accessors and Inputs: read the shapes the tracer inferred.
#include <fmt/format.h>

#include <stdexcept>

#include "nndna/trace.hpp"
#include "trace/tracer.hpp"

namespace nndna {

namespace {
const ir::TensorInfo& infoOf(const Tensor& t) {
  tracing::Tracer* tracer = tracing::Tracer::active();
  if (tracer == nullptr) throw std::logic_error("tensor shapes are known only while tracing");
  return tracer->graph().tensor(tracer->tensorOf(t, "Tensor", tracer->captureSite()));
}

// Parameters' shapes are also known while the model is built (a layer sizing itself).
const Shape* buildTimeShape(const Tensor& t) {
  if (tracing::Tracer::active() != nullptr || !t.defined()) return nullptr;
  const tracing::ModelBuilder* builder = tracing::ModelBuilder::active();
  if (builder == nullptr || (t.handle() & tracing::kParamTag) == 0) return nullptr;
  const std::uint32_t slot = t.handle() & ~tracing::kParamTag;
  return slot < builder->params().size() ? &builder->params()[slot].shape : nullptr;
}
}  // namespace

const Shape& Tensor::shape() const {
  if (const Shape* s = buildTimeShape(*this)) return *s;
  return infoOf(*this).shape;
}

DType Tensor::dtype() const {
  if (buildTimeShape(*this) != nullptr) return DType::f32;
  return infoOf(*this).dtype;
}

std::int64_t Tensor::dim(std::int64_t axis) const {
  const Shape& s = shape();
  const auto r = static_cast<std::int64_t>(s.size());
  if (axis < -r || axis >= r) {
    throw std::out_of_range(
        fmt::format("Tensor::dim: axis {} is out of range for shape {}", axis, ir::formatShape(s)));
  }
  return s[static_cast<std::size_t>(axis < 0 ? axis + r : axis)];
}

std::int64_t Tensor::numel() const { return ir::numel(shape()); }

Tensor Inputs::operator[](std::string_view name) const {
  for (const auto& [n, t] : tensors_) {
    if (n == name) return t;
  }
  std::string known;
  for (const auto& [n, t] : tensors_) known += (known.empty() ? "" : ", ") + n;
  std::string file;
  int line = 0;
  if (tracing::Tracer* tracer = tracing::Tracer::active()) {
    const tracing::SiteLocation at = tracing::innermostLocation(tracer->graph(), tracer->captureSite());
    file = at.file;
    line = at.line;
  }
  throw TraceError(file, line, "inputs", fmt::format("no input named '{}' (declared: {})", name,
                                                     known.empty() ? "none" : known));
}

}  // namespace nndna
