// A file built into the binary (cmake/IncbinFiles.cmake generates the tables).
#pragma once

#include <span>
#include <string_view>

namespace nndna::server {

struct EmbeddedFile {
  std::string_view name;   // the file's base name ("app.js", "gpt2_small.cpp")
  std::string_view bytes;  // its content, as built
};

// The web app: index.html, app.js, app.css (src/server/web, bundled by esbuild at build time).
std::span<const EmbeddedFile> webAssetFiles();
// The example specs (examples/*.cpp), for the Examples picker.
std::span<const EmbeddedFile> exampleSourceFiles();

}  // namespace nndna::server
