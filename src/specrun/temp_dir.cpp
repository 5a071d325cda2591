#include "specrun/temp_dir.hpp"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <string>
#include <system_error>

namespace nndna::specrun {

TempDir::TempDir(const std::filesystem::path& parent, std::string_view prefix, Made made) {
  std::filesystem::create_directories(parent);
  if (made == Made::now) {
    std::string pattern = (parent / prefix).string() + "XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "cannot create a directory in " + parent.string());
    }
    path_ = pattern;
    return;
  }
  // The same names mkdtemp makes, from the kernel's random numbers; one that is taken (by
  // chance, 62^6 of them) is passed over, and make() refuses a directory that is not this user's.
  constexpr std::string_view kLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name(prefix);
    for (int i = 0; i < 6; ++i) name += kLetters[random() % kLetters.size()];
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(parent / name, ec))) {
      path_ = parent / name;
      return;
    }
  }
  throw std::system_error(EEXIST, std::generic_category(), "cannot find an unused name in " + parent.string());
}

bool makePrivateDirectory(const std::filesystem::path& dir) {
  if (::mkdir(dir.c_str(), 0700) == 0) return true;
  if (errno != EEXIST) return false;
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return false;
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
    errno = EEXIST;
    return false;
  }
  return true;
}

void TempDir::make() const {
  if (!makePrivateDirectory(path_)) {
    throw std::system_error(errno, std::generic_category(), "cannot create " + path_.string());
  }
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

void removeTree(const std::filesystem::path& dir) {
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  if (std::filesystem::exists(dir, ignored)) {
    makeRemovable(dir);
    std::filesystem::remove_all(dir, ignored);
  }
}

}  // namespace

TempDir::~TempDir() {
  if (!keep_) removeTree(path_);
}

std::string ownTempDirPrefix(std::string_view prefix) {
  return std::string(prefix) + std::to_string(::getpid()) + "-";
}

void removeStaleTempDirs(const std::filesystem::path& parent, std::string_view prefix) noexcept {
  try {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!name.starts_with(prefix)) continue;
      const std::string rest = name.substr(prefix.size());
      const std::size_t dash = rest.find('-');
      if (dash == 0 || dash == std::string::npos || rest.find_first_not_of("0123456789") != dash) continue;
      const long pid = std::stol(rest.substr(0, dash));
      if (pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
      std::error_code statError;
      if (it->is_directory(statError) && !it->is_symlink(statError)) removeTree(it->path());
    }
  } catch (...) {
    // Housekeeping only: a failure here must not fail the user's run.
  }
}

}  // namespace nndna::specrun
