// Writing the files the commands make, with errors that say why (IR files are read by
// ir::tracedModelFromFile, spec files by specrun::readSpecSource, both bounded).
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace nndna::cli {

// Replaces PATH's content with `text`. Throws "cannot write PATH: REASON".
void writeTextFile(const std::filesystem::path& path, std::string_view text);
// The same, with the text written to the file by `write` (a large text, made as it is written).
void writeTextFile(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

}  // namespace nndna::cli
