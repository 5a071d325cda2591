// Writing the files the commands make, with errors that say why (IR files are read by
// ir::tracedModelFromFile, spec files by specrun::readSpecSource, both bounded).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace nndna::cli {

// Replaces PATH's content with `text`. Throws "cannot write PATH: REASON".
void writeTextFile(const std::filesystem::path& path, std::string_view text);

}  // namespace nndna::cli
