// A private temporary directory, removed with everything in it when the object goes away.
#pragma once

#include <filesystem>
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

}  // namespace nndna::specrun
