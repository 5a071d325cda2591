// Module: named parameters and children, registered while the model is built.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "nndna/ir.hpp"
#include "nndna/nndna.hpp"
#include "trace/dim_log.hpp"
#include "trace/tracer.hpp"

namespace nndna {

namespace {
// The path that a module constructed now takes: set by child()/list() around a construction.
thread_local Text currentPath;
// Whether the next module constructed is a list entry made by a factory (it takes currentPath
// itself; a built-in layer then has the empty name).
thread_local bool listEntry = false;

// Errors name the spec line that declared the module or parameter (tracing::failAtUserLine).
void checkName(std::string_view name) {
  if (name.empty()) tracing::failAtUserLine("module", "module and parameter names must not be empty");
  if (name.find('.') != std::string_view::npos) {
    tracing::failAtUserLine("module", fmt::format("name '{}' must not contain '.'", name));
  }
}

tracing::ModelBuilder& builderFor(std::string_view api, std::string_view name) {
  tracing::ModelBuilder* builder = tracing::ModelBuilder::active();
  if (builder == nullptr || tracing::Tracer::active() != nullptr) {
    tracing::failAtUserLine(api, fmt::format(
        "'{}' is created outside model construction: parameters are created only while the "
        "model is built (as class members), never inside a forward function",
        name));
  }
  return *builder;
}

// `base.name`, or `name` at the root.
Text joined(std::string_view base, std::string_view name) {
  if (base.empty()) return Text(name);
  std::string path;
  path.reserve(base.size() + 1 + name.size());
  path.append(base).append(".").append(name);
  return Text(path);
}

void checkShape(std::string_view api, std::string_view what, std::string_view name, const Shape& shape) {
  if (shape.size() > ir::kMaxRank) {
    tracing::failAtUserLine(api, fmt::format("{} '{}' has rank {}: at most {} axes", what, name,
                                              shape.size(), ir::kMaxRank));
  }
  for (std::int64_t size : shape) {
    if (size <= 0) {
      tracing::failAtUserLine(api, fmt::format("{} '{}' has shape {}: sizes must be positive",
                                                what, name, ir::formatShape(shape)));
    }
  }
  if (!ir::checkedNumel(shape)) {
    tracing::failAtUserLine(api, fmt::format("{} '{}' has shape {}: its element count overflows 64 bits",
                                              what, name, ir::formatShape(shape)));
  }
}
}  // namespace

Module::Module() : path_(currentPath) { listEntry = false; }

Module::Module(std::string_view name) : path_() {
  if (name.empty() && listEntry) {
    listEntry = false;
    path_ = currentPath;
    return;
  }
  listEntry = false;
  checkName(name);
  path_ = joined(currentPath, name);
}

Module::PathScope::PathScope(Text path, bool entry)
    : previous_(std::move(currentPath)), previousEntry_(listEntry) {
  currentPath = std::move(path);
  listEntry = entry;
}

Module::PathScope::~PathScope() {
  currentPath = std::move(previous_);
  listEntry = previousEntry_;
}

Text Module::qualify(std::string_view name) const {
  checkName(name);
  return joined(path_, name);
}

std::size_t Module::reservedEntries(std::string_view name, std::int64_t count) {
  if (count < 0) {
    tracing::failAtUserLine("list", fmt::format("list '{}' must have a count >= 0, got {}", name, count));
  }
  constexpr std::int64_t kMostReserved = 1 << 16;
  return static_cast<std::size_t>(std::min(count, kMostReserved));
}

Text Module::entryName(std::int64_t index) { return Text(std::to_string(index)); }

Text Module::entryPath(std::string_view base, std::int64_t index) {
  return joined(base, std::to_string(index));
}

Tensor Module::param(std::string_view name, Sizes sizes, ParamOptions options) {
  const Text full = qualify(name);
  tracing::ModelBuilder& builder = builderFor("param", full);
  Shape shape = sizes.values();
  checkShape("param", "parameter", full, shape);
  const bool decay = options.decay.value_or(shape.size() >= 2);
  return builder.add({std::string(full), std::move(shape), tracing::namesOfSizes(sizes, "param"), options.init,
                      decay, false});
}

Tensor Module::state(std::string_view name, Sizes sizes, Init init) {
  const Text full = qualify(name);
  tracing::ModelBuilder& builder = builderFor("state", full);
  Shape shape = sizes.values();
  checkShape("state", "state", full, shape);
  return builder.add({std::string(full), std::move(shape), tracing::namesOfSizes(sizes, "state"), init, false, true});
}

}  // namespace nndna
