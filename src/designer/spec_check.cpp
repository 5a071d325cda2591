#include "designer/spec_check.hpp"

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include "specrun/sha256.hpp"

namespace nndna::designer {
namespace {

namespace fs = std::filesystem;

// Designs kept under the cache: enough for a session's worth of attempts and a server's recent
// requests; older ones go (each is one small source file).
constexpr std::size_t kKeptDesigns = 256;

void pruneDesigns(const fs::path& root) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> dirs;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    dirs.emplace_back(entry.last_write_time(ec), entry.path());
  }
  if (dirs.size() <= kKeptDesigns) return;
  std::sort(dirs.begin(), dirs.end());
  for (std::size_t i = 0; i + kKeptDesigns < dirs.size(); ++i) fs::remove_all(dirs[i].second, ec);
}

fs::path writeDesign(std::string_view source, std::string_view displayName, const specrun::RunOptions& options) {
  const fs::path root = specrun::cacheDirectory(options) / "designs";
  const fs::path dir = root / specrun::sha256Hex(source).substr(0, 24);
  fs::create_directories(dir);
  std::string name = fs::path(displayName).filename().string();
  if (name.empty() || fs::path(name).extension() != ".cpp") name = "design.cpp";
  const fs::path file = dir / name;
  // Written to a temporary name and renamed: a concurrent design of the same text never reads a
  // half-written file.
  const fs::path temp = dir / (name + ".tmp" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  {
    std::ofstream out(temp, std::ios::binary);
    out.write(source.data(), static_cast<std::streamsize>(source.size()));
    if (!out) throw std::system_error(errno, std::generic_category(), "cannot write " + temp.string());
  }
  fs::rename(temp, file);
  fs::last_write_time(dir, fs::file_time_type::clock::now());
  pruneDesigns(root);
  return file;
}

}  // namespace

int errorLine(std::string_view message, std::string_view displayName) {
  const std::string needle = std::string(displayName) + ":";
  for (auto at = message.find(needle); at != std::string_view::npos; at = message.find(needle, at + 1)) {
    std::size_t digits = at + needle.size();
    int line = 0;
    while (digits < message.size() && std::isdigit(static_cast<unsigned char>(message[digits])) && line < 10'000'000) {
      line = line * 10 + (message[digits] - '0');
      ++digits;
    }
    if (line > 0) return line;
  }
  return 0;
}

CheckedSpec checkSpec(std::string_view source, std::string_view displayName, const specrun::RunOptions& options) {
  CheckedSpec checked;
  const auto start = std::chrono::steady_clock::now();
  auto finish = [&] {
    checked.outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(checked);
  };
  try {
    checked.file = writeDesign(source, displayName, options);
  } catch (const std::exception& e) {
    checked.outcome.errorKind = "setup_error";
    checked.outcome.error = std::string("cannot store the spec to compile it: ") + e.what();
    return finish();
  }
  specrun::RunOptions run = options;
  run.displayPath = std::string(displayName);
  specrun::RunReport report;
  try {
    checked.model = specrun::runSpecFile(checked.file, run, &report);
    checked.outcome.ok = true;
  } catch (const specrun::SpecRunError& e) {
    checked.outcome.errorKind = std::string(specrun::kindName(e.kind()));
    checked.outcome.error = e.what();
    checked.outcome.line = errorLine(e.what(), displayName);
  }
  checked.outcome.cacheHit = report.cacheHit;
  return finish();
}

}  // namespace nndna::designer
