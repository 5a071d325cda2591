// The compile cache the spec tests share: the build tree's, or $NNDNA_TEST_CACHE when set (the
// unprivileged run of tests/specrun/unprivileged_test.sh cannot write the build tree).
#pragma once

#include <cstdlib>
#include <string>

namespace nndna::specrun {

inline std::string testCacheDir() {
  const char* dir = std::getenv("NNDNA_TEST_CACHE");
  return dir != nullptr && *dir != '\0' ? std::string(dir) : std::string(NNDNA_TEST_CACHE_DIR);
}

}  // namespace nndna::specrun
