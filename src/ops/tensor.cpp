// Tensor's accessors and Inputs: read the shapes the tracer inferred.
#include <fmt/format.h>

#include "nndna/trace.hpp"
#include "trace/tensor_access.hpp"
#include "trace/tracer.hpp"

namespace nndna {

namespace {
// Parameters' shapes are also known while the model is built (a layer sizing itself).
const ParamDecl* buildTimeParam(const Tensor& t) {
  if (tracing::Tracer::active() != nullptr || !t.defined()) return nullptr;
  const tracing::ModelBuilder* builder = tracing::ModelBuilder::active();
  const std::uint32_t id = detail::TensorAccess::id(t);
  if (builder == nullptr || (id & tracing::kParamTag) == 0 ||
      detail::TensorAccess::owner(t) != builder->serial()) {
    return nullptr;
  }
  const std::uint32_t slot = id & ~tracing::kParamTag;
  return slot < builder->params().size() ? &builder->params()[slot] : nullptr;
}

const ir::TensorInfo& infoOf(const Tensor& t, std::string_view accessor) {
  tracing::Tracer* tracer = tracing::Tracer::active();
  if (tracer == nullptr) {
    tracing::failAtUserLine(accessor, "tensor shapes are known only while a forward function is "
                                      "traced (and, for parameters, while the model is built)");
  }
  return tracer->graph().tensor(tracer->tensorOf(t, accessor, tracer->captureSite()));
}
}  // namespace

Shape Tensor::shape() const {
  if (const ParamDecl* p = buildTimeParam(*this)) return p->shape;
  return infoOf(*this, "Tensor::shape").shape;
}

DType Tensor::dtype() const {
  if (buildTimeParam(*this) != nullptr) return DType::f32;
  return infoOf(*this, "Tensor::dtype").dtype;
}

std::int64_t Tensor::rank() const {
  if (const ParamDecl* p = buildTimeParam(*this)) return static_cast<std::int64_t>(p->shape.size());
  return static_cast<std::int64_t>(infoOf(*this, "Tensor::rank").shape.size());
}

std::int64_t Tensor::dim(std::int64_t axis) const {
  const ParamDecl* p = buildTimeParam(*this);
  const Shape& s = p != nullptr ? p->shape : infoOf(*this, "Tensor::dim").shape;
  const auto r = static_cast<std::int64_t>(s.size());
  if (axis < -r || axis >= r) {
    tracing::failAtUserLine("Tensor::dim", fmt::format("axis {} is out of range for shape {}",
                                                        axis, ir::formatShape(s)));
  }
  return s[static_cast<std::size_t>(axis < 0 ? axis + r : axis)];
}

std::int64_t Tensor::numel() const { return ir::numel(shape()); }

Tensor Inputs::operator[](std::string_view name) const {
  for (const auto& [n, t] : tensors_) {
    if (n == name) return t;
  }
  std::string known;
  for (const auto& [n, t] : tensors_) known.append(known.empty() ? "" : ", ").append(n.view());
  tracing::failAtUserLine("inputs", fmt::format("no input named '{}' (declared: {})", name,
                                                known.empty() ? "none" : known));
}

}  // namespace nndna
