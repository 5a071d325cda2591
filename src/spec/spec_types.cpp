// The out-of-line members of the spec types in nndna.hpp. They live here, compiled once, so that
// a spec file's compile does not instantiate string, vector and variant code for them.
#include <new>

#include "nndna/trace.hpp"
#include "trace/dim_log.hpp"

// The vectors a spec body fills, instantiated once (nndna.hpp declares them extern).
template class std::vector<nndna::InputDecl>;
template class std::vector<nndna::DimDecl>;
template class std::vector<nndna::Size>;

namespace nndna {

// ----- InputDecl --------------------------------------------------------------------------------

InputDecl::InputDecl() = default;
InputDecl::InputDecl(std::string_view name_, std::initializer_list<Size> shape_, DType dtype_)
    : name(name_), dtype(dtype_) {
  const Sizes sizes(shape_);
  shape = sizes.values();
  const ir::DimNames axisNames = tracing::namesOfSizes(sizes, "inputs");
  names.reserve(axisNames.size());
  for (const std::string& n : axisNames) names.emplace_back(n);
}
InputDecl::InputDecl(std::string_view name_, const Shape& shape_, DType dtype_)
    : name(name_), shape(shape_), dtype(dtype_) {}
InputDecl::InputDecl(const InputDecl&) = default;
InputDecl::InputDecl(InputDecl&&) noexcept = default;
InputDecl& InputDecl::operator=(const InputDecl&) = default;
InputDecl& InputDecl::operator=(InputDecl&&) noexcept = default;
InputDecl::~InputDecl() = default;

// ----- DimDecl ----------------------------------------------------------------------------------

DimDecl::DimDecl() = default;
DimDecl::DimDecl(std::int64_t size_, std::string_view name_, std::string_view desc_, std::string_view color_)
    : size(size_), name(name_), desc(desc_), color(color_) {}
DimDecl::DimDecl(const Dim& dim)
    : size(dim.value()),
      name(dim.name()),
      desc(dim.desc()),
      color(dim.color()),
      definition(tracing::formatDimExpr(dim.definition())) {}
DimDecl::DimDecl(const DimDecl&) = default;
DimDecl::DimDecl(DimDecl&&) noexcept = default;
DimDecl& DimDecl::operator=(const DimDecl&) = default;
DimDecl& DimDecl::operator=(DimDecl&&) noexcept = default;
DimDecl::~DimDecl() = default;

// ----- Sizes ------------------------------------------------------------------------------------

Sizes::Sizes(std::initializer_list<Size> sizes) : sizes_(sizes) {}
Sizes::Sizes(const Shape& shape) : sizes_(shape.begin(), shape.end()) {}
Sizes::Sizes(std::vector<Size> sizes) : sizes_(std::move(sizes)) {}
Sizes::Sizes(const Sizes&) = default;
Sizes::Sizes(Sizes&&) noexcept = default;
Sizes& Sizes::operator=(const Sizes&) = default;
Sizes& Sizes::operator=(Sizes&&) noexcept = default;
Sizes::~Sizes() = default;
Shape Sizes::values() const { return Shape(sizes_.begin(), sizes_.end()); }

// ----- LearningRate -----------------------------------------------------------------------------

LearningRate::LearningRate() = default;
LearningRate::LearningRate(double constant) : value(constant) {}
LearningRate::LearningRate(const LearningRate&) = default;
LearningRate::LearningRate(LearningRate&&) noexcept = default;
LearningRate& LearningRate::operator=(const LearningRate&) = default;
LearningRate& LearningRate::operator=(LearningRate&&) noexcept = default;
LearningRate::~LearningRate() = default;

// ----- SpecOptimizer: an Optimizer constructed in place in opaque storage ----------------------

static_assert(sizeof(Optimizer) <= sizeof(SpecOptimizer), "SpecOptimizer's storage is too small");
static_assert(alignof(Optimizer) <= 8, "SpecOptimizer's storage is under-aligned");

template <class T>
SpecList<T>::SpecList() = default;
template <class T>
SpecList<T>::SpecList(std::initializer_list<T> items) : items_(items) {}
template <class T>
SpecList<T>::SpecList(std::vector<T> items) : items_(std::move(items)) {}
template <class T>
SpecList<T>::SpecList(const SpecList& other) = default;
template <class T>
SpecList<T>::SpecList(SpecList&& other) noexcept = default;
template <class T>
SpecList<T>& SpecList<T>::operator=(const SpecList& other) = default;
template <class T>
SpecList<T>& SpecList<T>::operator=(SpecList&& other) noexcept = default;
template <class T>
SpecList<T>::~SpecList() = default;

template class SpecList<InputDecl>;
template class SpecList<DimDecl>;

SpecOptimizer::SpecOptimizer() : SpecOptimizer(Optimizer(Adam{})) {}
SpecOptimizer::SpecOptimizer(const Adam& adam) : SpecOptimizer(Optimizer(adam)) {}
SpecOptimizer::SpecOptimizer(const AdamW& adamW) : SpecOptimizer(Optimizer(adamW)) {}
SpecOptimizer::SpecOptimizer(const SGD& sgd) : SpecOptimizer(Optimizer(sgd)) {}
SpecOptimizer::SpecOptimizer(const Optimizer& optimizer) { new (storage_) Optimizer(optimizer); }
SpecOptimizer::SpecOptimizer(const SpecOptimizer& other) { new (storage_) Optimizer(other.get()); }
SpecOptimizer::SpecOptimizer(SpecOptimizer&& other) noexcept {
  new (storage_) Optimizer(std::move(other.get()));
}
SpecOptimizer& SpecOptimizer::operator=(const SpecOptimizer& other) {
  get() = other.get();
  return *this;
}
SpecOptimizer& SpecOptimizer::operator=(SpecOptimizer&& other) noexcept {
  get() = std::move(other.get());
  return *this;
}
SpecOptimizer::~SpecOptimizer() { get().~Optimizer(); }
const Optimizer& SpecOptimizer::get() const { return *std::launder(reinterpret_cast<const Optimizer*>(storage_)); }
Optimizer& SpecOptimizer::get() { return *std::launder(reinterpret_cast<Optimizer*>(storage_)); }

// ----- ForwardCallable --------------------------------------------------------------------------

namespace detail {

ForwardCallable::ForwardCallable(const ForwardCallable& other)
    : invoke_(other.invoke_), function_(other.function_), objectOps_(other.objectOps_) {
  if (other.object_ != nullptr) object_ = objectOps_->copy(other.object_);
}
ForwardCallable::ForwardCallable(ForwardCallable&& other) noexcept
    : invoke_(std::exchange(other.invoke_, nullptr)),
      function_(std::exchange(other.function_, nullptr)),
      object_(std::exchange(other.object_, nullptr)),
      objectOps_(std::exchange(other.objectOps_, nullptr)) {}
ForwardCallable& ForwardCallable::operator=(const ForwardCallable& other) {
  if (this != &other) *this = ForwardCallable(other);
  return *this;
}
ForwardCallable& ForwardCallable::operator=(ForwardCallable&& other) noexcept {
  if (this != &other) {
    if (object_ != nullptr) objectOps_->destroy(object_);
    invoke_ = std::exchange(other.invoke_, nullptr);
    function_ = std::exchange(other.function_, nullptr);
    object_ = std::exchange(other.object_, nullptr);
    objectOps_ = std::exchange(other.objectOps_, nullptr);
  }
  return *this;
}
ForwardCallable::~ForwardCallable() {
  if (object_ != nullptr) objectOps_->destroy(object_);
}

namespace {
ErasedForward toErased(ForwardCallable&& fn) {
  if (!fn) return {};
  return [fn = std::move(fn)](Module& model, const Inputs& in) { return fn(model, in); };
}
}  // namespace

void setSpec(ErasedSpec& out, Text&& label, Text&& description, ForwardCallable&& loss,
             SpecInputs&& inputs, SpecOptimizer&& optimizer, ForwardCallable&& predict,
             SpecInputs&& predictInputs, SpecDims&& dims) {
  out.label = label.view();
  out.description = description.view();
  out.loss = toErased(std::move(loss));
  out.inputs = std::move(inputs.items());
  out.optimizer = std::move(optimizer.get());
  out.predict = toErased(std::move(predict));
  out.predictInputs = std::move(predictInputs.items());
  out.dims = std::move(dims.items());
}

void adoptModel(ModelSlot& slot, Module* model) noexcept { slot.model.reset(model); }

bool registerSpecFunction(const char* sourceFile, int line, SpecBuildFunction build) {
  return registerSpec(sourceFile, line, [build](std::unique_ptr<Module>& model) {
    ModelSlot slot;
    ErasedSpec spec;
    build(slot, spec);
    model = std::move(slot.model);
    return spec;
  });
}

}  // namespace detail
}  // namespace nndna
