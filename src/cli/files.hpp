// Reading and writing the files the commands take and make, with errors that say why.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace nndna::cli {

// The whole file, bytes as they are. Throws "cannot read PATH: REASON".
std::string readTextFile(const std::filesystem::path& path);

// Replaces PATH's content with `text`. Throws "cannot write PATH: REASON".
void writeTextFile(const std::filesystem::path& path, std::string_view text);

}  // namespace nndna::cli
