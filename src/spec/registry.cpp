// The specs linked into this program (NNDNA_SPEC registers them at static initialisation).
#include <filesystem>

#include "nndna/trace.hpp"
#include "trace/dim_log.hpp"
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
  return registerSpec(sourceFile, 0, std::move(builder));
}

bool detail::registerSpec(const char* sourceFile, int line, SpecBuilder builder) {
  registry().push_back(
      {sourceFile, std::filesystem::path(sourceFile).stem().string(), std::move(builder), line});
  return true;
}

std::span<const RegisteredSpec> registeredSpecs() { return registry(); }

const RegisteredSpec* findSpec(std::string_view name) {
  for (const RegisteredSpec& spec : registry()) {
    if (spec.name == name || spec.sourceFile == name) return &spec;
  }
  return nullptr;
}

namespace {
// The frame of this function bounds the search for the user's line when building fails: frames
// above it are the host program's.
[[gnu::noinline]] detail::ErasedSpec buildModel(tracing::ModelBuilder& builder,
                                                const RegisteredSpec& registered,
                                                std::unique_ptr<Module>& model) {
  builder.setBoundary(reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)));
  detail::ErasedSpec spec = registered.build(model);
  // Keeps this frame (and so the boundary) alive across the call: no tail call.
  asm volatile("" ::: "memory");
  return spec;
}
}  // namespace

LoadedSpec loadSpec(const RegisteredSpec& registered) {
  LoadedSpec loaded;
  loaded.sourceFile = registered.sourceFile;
  loaded.name = registered.name;
  loaded.line = registered.line;
  tracing::ModelBuilder builder;
  tracing::DimLog met;
  loaded.spec = buildModel(builder, registered, loaded.model);
  loaded.dims = met.take();
  loaded.params = builder.take();
  loaded.paramSerial = builder.serial();
  return loaded;
}

}  // namespace nndna
