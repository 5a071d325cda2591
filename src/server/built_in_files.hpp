// The server's files built into the binary (cmake/EmbedFiles.cmake generates the tables).
#pragma once

#include <span>
#include <string_view>

#include "embedded_file.hpp"

namespace nndna::server {

// The web app: index.html, app.js, app.css (src/server/web, bundled by esbuild at build time).
std::span<const EmbeddedFile> webAssetFiles();
// The example specs (examples/*.cpp), for the Examples picker.
std::span<const EmbeddedFile> exampleSourceFiles();

}  // namespace nndna::server
