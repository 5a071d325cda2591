#include "cli/files.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nndna::cli {

std::string readTextFile(const std::filesystem::path& path, std::uintmax_t maxBytes) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot read {}: {}", path.string(), ec.message()));
  if (size > maxBytes) {
    throw std::runtime_error(fmt::format("cannot read {}: it is {} bytes, more than the {} allowed", path.string(),
                                         size, maxBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::runtime_error(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  return text.str();
}

void writeTextFile(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  // errno is read right after the failing call: ofstream's open and write go straight to the OS.
  if (!out) throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
}

}  // namespace nndna::cli
