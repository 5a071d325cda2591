#include "cli/files.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

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
