// The specs linked into this program (NNDNA_SPEC registers them at static initialisation).
#include <filesystem>

#include "nndna/trace.hpp"
#include "trace/tracer.hpp"

namespace nndna {

namespace {
// Function-local so registration from other translation units' static initialisers is safe.
std::vector<RegisteredSpec>& registry() {
  static std::vector<RegisteredSpec> specs;
  return specs;
}
}  // namespace

bool detail::registerSpec(const char* sourceFile, SpecBuilder builder) {
  registry().push_back(
      {sourceFile, std::filesystem::path(sourceFile).stem().string(), std::move(builder)});
  return true;
}

std::span<const RegisteredSpec> registeredSpecs() { return registry(); }

const RegisteredSpec* findSpec(std::string_view name) {
  for (const RegisteredSpec& spec : registry()) {
    if (spec.name == name || spec.sourceFile == name) return &spec;
  }
  return nullptr;
}

LoadedSpec loadSpec(const RegisteredSpec& registered) {
  LoadedSpec loaded;
  loaded.sourceFile = registered.sourceFile;
  loaded.name = registered.name;
  tracing::ModelBuilder builder;
  loaded.spec = registered.build(loaded.model);
  loaded.params = builder.take();
  return loaded;
}

}  // namespace nndna
