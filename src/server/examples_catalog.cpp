#include "server/examples_catalog.hpp"

#include <algorithm>

#include "nndna/trace.hpp"

namespace nndna::server {

std::vector<ExampleSpec> exampleCatalog(std::span<const EmbeddedFile> files) {
  std::vector<ExampleSpec> out;
  for (const EmbeddedFile& f : files) {
    if (!f.name.ends_with(".cpp")) continue;
    ExampleSpec e;
    e.name = std::string(f.name.substr(0, f.name.size() - 4));
    e.source = f.bytes;
    if (const RegisteredSpec* registered = findSpec(e.name)) {
      // Building the model registers its parameters only (no tracing): cheap, once at start-up.
      const LoadedSpec loaded = loadSpec(*registered);
      e.label = loaded.spec.label;
      e.description = loaded.spec.description;
    }
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const ExampleSpec& a, const ExampleSpec& b) { return a.name < b.name; });
  return out;
}

}  // namespace nndna::server
