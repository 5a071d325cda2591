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

namespace {

// The sandboxed program may leave directories it made unreadable or unwritable (chmod 000): give
// them back to their owner so that they can be removed.
void makeRemovable(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) makeRemovable(it->path());
  }
}

}  // namespace

TempDir::~TempDir() {
  if (keep_) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  if (std::filesystem::exists(path_, ignored)) {
    makeRemovable(path_);
    std::filesystem::remove_all(path_, ignored);
  }
}

}  // namespace nndna::specrun
