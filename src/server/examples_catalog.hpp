// The built-in example specs the page offers: name, title and source text.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/built_in_files.hpp"

namespace nndna::server {

struct ExampleSpec {
  std::string name;         // the file's stem: "gpt2_small"
  std::string label;        // the spec's label, when the spec is also linked into the program
  std::string description;
  std::string_view source;  // the file as written in examples/
};

// The page opens on this one (the seed's default model).
inline constexpr std::string_view kDefaultExample = "diffusion_denoiser";

// One entry per .cpp file, sorted by name. Labels and descriptions come from the specs registered
// in this program (NNDNA_SPEC); an example that is not linked in keeps an empty label.
std::vector<ExampleSpec> exampleCatalog(std::span<const EmbeddedFile> files);

}  // namespace nndna::server
