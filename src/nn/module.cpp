// Module: named parameters and children, registered while the model is built.
#include <fmt/format.h>

#include <stdexcept>

#include "nndna/nndna.hpp"
#include "trace/tracer.hpp"

namespace nndna {

namespace {
// The path that a module constructed now takes: set by child()/list() around a construction.
thread_local std::string currentPath;

void checkName(std::string_view name) {
  if (name.empty()) throw std::invalid_argument("module and parameter names must not be empty");
  if (name.find('.') != std::string_view::npos) {
    throw std::invalid_argument(fmt::format("name '{}' must not contain '.'", name));
  }
}

tracing::ModelBuilder& builderFor(std::string_view what, std::string_view name) {
  tracing::ModelBuilder* builder = tracing::ModelBuilder::active();
  if (builder == nullptr) {
    throw std::logic_error(fmt::format(
        "{} '{}' is created outside model construction: parameters are created only while the "
        "model is built (as class members), never inside a forward function",
        what, name));
  }
  return *builder;
}
}  // namespace

Module::Module() : path_(currentPath) {}

Module::Module(std::string_view name) : path_() {
  checkName(name);
  path_ = currentPath.empty() ? std::string(name) : currentPath + "." + std::string(name);
}

Module::PathScope::PathScope(std::string path) : previous_(std::move(currentPath)) {
  currentPath = std::move(path);
}

Module::PathScope::~PathScope() { currentPath = std::move(previous_); }

std::string Module::qualify(std::string_view name) const {
  checkName(name);
  return path_.empty() ? std::string(name) : path_ + "." + std::string(name);
}

Tensor Module::param(std::string_view name, Shape shape, ParamOptions options) {
  const std::string full = qualify(name);
  std::int64_t elements = 1;
  for (std::int64_t size : shape) {
    if (size <= 0) {
      throw std::invalid_argument(
          fmt::format("parameter '{}' has shape [{}]: sizes must be positive", full,
                      fmt::join(shape, ", ")));
    }
    // Caught here, where the spec makes it, not by the parent's IR validator (issue 9).
    if (__builtin_mul_overflow(elements, size, &elements)) {
      throw std::invalid_argument(fmt::format("parameter '{}' has shape [{}]: its element count overflows 64 bits",
                                              full, fmt::join(shape, ", ")));
    }
  }
  const bool decay = options.decay.value_or(shape.size() >= 2);
  return builderFor("parameter", full).add({full, std::move(shape), options.init, decay, false});
}

Tensor Module::state(std::string_view name, Shape shape, Init init) {
  const std::string full = qualify(name);
  return builderFor("state", full).add({full, std::move(shape), init, false, true});
}

}  // namespace nndna
