// The cgroups nndna made for a process and has not removed: the tests check that a run leaves
// none behind.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace nndna::specrun {

// Cgroups nndna made for process `pid` ("nndna-<pid>-N") anywhere under /sys/fs/cgroup.
inline std::vector<std::filesystem::path> cgroupsOf(pid_t pid) {
  namespace fs = std::filesystem;
  std::vector<fs::path> found;
  const std::string prefix = "nndna-" + std::to_string(pid) + "-";
  std::error_code ec;
  fs::recursive_directory_iterator it("/sys/fs/cgroup", fs::directory_options::skip_permission_denied, ec);
  for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    if (it.depth() > 4) it.disable_recursion_pending();
    if (it->path().filename().string().starts_with(prefix)) found.push_back(it->path());
  }
  return found;
}

}  // namespace nndna::specrun
