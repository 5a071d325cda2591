// A private temporary directory, removed with everything in it when the object goes away.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace nndna::specrun {

class TempDir {
 public:
  // Creates <parent>/<prefix>XXXXXX with mode 0700.
  TempDir(const std::filesystem::path& parent, std::string_view prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  void keep() { keep_ = true; }  // leave it on disk (debugging)

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// "<prefix><pid>-": a prefix that names the process making the directory, so that
// removeStaleTempDirs can tell the leftovers of a killed process from a running one's.
std::string ownTempDirPrefix(std::string_view prefix);

// Removes every <parent>/<prefix><pid>-* whose process no longer exists (made with
// ownTempDirPrefix by a process killed before it could clean up). Errors are ignored.
void removeStaleTempDirs(const std::filesystem::path& parent, std::string_view prefix) noexcept;

}  // namespace nndna::specrun
