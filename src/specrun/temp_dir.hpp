// A private temporary directory, removed with everything in it when the object goes away.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace nndna::specrun {

class TempDir {
 public:
  enum class Made { now, whenNeeded };
  // <parent>/<prefix>XXXXXX (six random letters and digits), made now with mode 0700, or only
  // named (an unused name) for whoever needs it on disk to make it (make(), or the sandbox for a
  // working directory it runs a program in without namespaces). Removed with everything in it,
  // if it exists, when the object goes away.
  TempDir(const std::filesystem::path& parent, std::string_view prefix, Made made = Made::now);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  void keep() { keep_ = true; }  // leave it on disk (debugging)
  // Makes it (0700) unless it exists as a directory of this user's; throws if it cannot.
  void make() const;

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// Makes `dir` (0700), or accepts it if it exists as a directory (not a link) owned by this user.
// False, with errno, otherwise.
bool makePrivateDirectory(const std::filesystem::path& dir);

// "<prefix><pid>-": a prefix that names the process making the directory, so that
// removeStaleTempDirs can tell the leftovers of a killed process from a running one's.
std::string ownTempDirPrefix(std::string_view prefix);

// Removes every <parent>/<prefix><pid>-* whose process no longer exists (made with
// ownTempDirPrefix by a process killed before it could clean up). Errors are ignored.
void removeStaleTempDirs(const std::filesystem::path& parent, std::string_view prefix) noexcept;

}  // namespace nndna::specrun
