// Reading and writing the files the commands take and make, with errors that say why (IR files
// are read by ir::tracedModelFromFile, bounded).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace nndna::cli {

// The whole file, bytes as they are, if it is at most `maxBytes` long. Throws "cannot read PATH:
// REASON".
std::string readTextFile(const std::filesystem::path& path, std::uintmax_t maxBytes);

// Replaces PATH's content with `text`. Throws "cannot write PATH: REASON".
void writeTextFile(const std::filesystem::path& path, std::string_view text);

}  // namespace nndna::cli
