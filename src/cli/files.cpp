#include "cli/files.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <system_error>

#include "nndna/ir_json.hpp"

namespace nndna::cli {

void refuseToOverwriteInput(const std::string& output, const std::string& input, const std::string& option) {
  if (output.empty() || output == "-" || input.empty()) return;
  std::error_code ec;
  if (std::filesystem::equivalent(output, input, ec)) {
    throw CLI::ValidationError(option, fmt::format("the output is the input file {}: writing it would destroy the "
                                                   "input; give another path",
                                                   input));
  }
}

bool isStandardOutput(const std::filesystem::path& path) { return path == "-" || path == "/dev/stdout"; }

std::ostream& reportStreamFor(const std::filesystem::path& path) {
  return isStandardOutput(path) ? std::cerr : std::cout;
}

std::string shownPath(const std::filesystem::path& path) {
  return path == "-" ? std::string("standard output") : path.string();
}

void checkWritable(const std::string& path, const std::string& option) {
  if (path.empty() || isStandardOutput(path)) return;
  const std::filesystem::path file(path);
  const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    // Not there (or not a folder), or it could not be looked at (a parent without search permission).
    const bool missing = !ec || ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory;
    throw CLI::ValidationError(option, missing ? fmt::format("cannot write {}: there is no folder {}", path, folder.string())
                                               : fmt::format("cannot write {}: {}", path, ec.message()));
  }
  if (std::filesystem::is_directory(file, ec)) {
    throw CLI::ValidationError(option, fmt::format("cannot write {}: it is a folder", path));
  }
  const bool exists = std::filesystem::exists(file, ec);
  if (::access(exists ? file.c_str() : folder.c_str(), W_OK) != 0) {
    throw CLI::ValidationError(option, fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
}

std::string cacheDirProblem(const std::string& path) {
  const std::filesystem::path folder(path);
  std::error_code ec;
  if (std::filesystem::exists(folder, ec)) {
    return std::filesystem::is_directory(folder, ec) ? "" : fmt::format("{} is not a folder", path);
  }
  const std::filesystem::path parent = folder.has_parent_path() ? folder.parent_path() : std::filesystem::path(".");
  if (std::filesystem::is_directory(parent, ec)) return "";
  return fmt::format("there is no folder {} to make {} in (give a folder that exists, or a new one inside one)",
                     parent.string(), path);
}

void writeTextFile(const std::filesystem::path& path, std::string_view text) {
  writeTextFile(path, [&](std::ostream& out) { out.write(text.data(), static_cast<std::streamsize>(text.size())); });
}

void writeTextFile(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  if (path == "-") {
    write(std::cout);
    std::cout.flush();
    if (!std::cout) throw std::runtime_error(fmt::format("cannot write to standard output: {}", std::strerror(errno)));
    return;
  }
  std::ofstream out(path, std::ios::binary);
  // errno is read right after the failing call: ofstream's open and write go straight to the OS.
  if (!out) throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  write(out);
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
}

int irIndent(const ir::TracedModel& model) {
  constexpr std::size_t kIndentedOpsAtMost = 100'000;
  return model.train.ops.size() + model.infer.ops.size() <= kIndentedOpsAtMost ? 1 : -1;
}

void writeIr(std::ostream& out, const ir::TracedModel& model) {
  ir::writeJson(
      model, [&](std::string_view piece) { out.write(piece.data(), static_cast<std::streamsize>(piece.size())); },
      irIndent(model));
  out << "\n";
}

void writeIrFile(const std::filesystem::path& path, const ir::TracedModel& model) {
  writeTextFile(path, [&](std::ostream& out) { writeIr(out, model); });
}

}  // namespace nndna::cli
