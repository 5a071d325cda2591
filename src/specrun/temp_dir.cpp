#include "specrun/temp_dir.hpp"

#include <stdlib.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace nndna::specrun {

TempDir::TempDir(const std::filesystem::path& parent, std::string_view prefix) {
  std::filesystem::create_directories(parent);
  std::string pattern = (parent / prefix).string() + "XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "cannot create a directory in " + parent.string());
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  if (keep_) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace nndna::specrun
