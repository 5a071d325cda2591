// The filesystem a sandboxed program sees: a small tmpfs as its root, holding read-only binds of
// the system (/usr and the /bin, /lib... links to it), of the paths its caller names (nndna's
// headers, libnndna, the precompiled header, the spec and its binary), five harmless devices, a
// fresh /proc of its own PID namespace, and its working directory — a size-limited tmpfs or a
// bind of the host directory, the only writable place. /etc, /root, /home, /run, /var, other
// runs' directories and every host socket are simply not there.
//
// The plan is made in the parent (strings, paths checked on the host; the system part once per
// process). The child of clone(), inside its new mount namespace, executes it with system calls
// only: it may not allocate, since another thread of the parent may have held the allocator's
// lock at the moment of clone().
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace nndna::specrun {

class RootPlan {
 public:
  // The system part: /usr, the top-level links into it, /dev, /proc. Built once per process and
  // copied for each run.
  static const RootPlan& system();

  // `host` (a file or a directory, symbolic links resolved) is visible read-only at `inside`
  // (absolute). A host path that does not exist is skipped. A path already visible through an
  // earlier directory bind at the same place is not bound twice.
  void addReadOnly(const std::filesystem::path& host, const std::filesystem::path& inside);
  // The working directory at `inside`: a fresh tmpfs of `tmpfsBytes` (mode 0700), or, when
  // tmpfsBytes is 0, a writable bind of `host`.
  void setWorkDir(const std::filesystem::path& host, const std::filesystem::path& inside, std::uint64_t tmpfsBytes);

  // --- in the child, in a new mount namespace ---
  // Builds the root in a tmpfs mounted on the staging directory and pivots into it; the old root
  // is detached. On failure returns false with the index of the failed step and errno, for the
  // parent's message (describeStep).
  bool execute(int& failedStep, int& error);
  std::string describeStep(int step) const;

  // The bytes of the working directory's tmpfs (0: a host bind).
  std::uint64_t workDirBytes() const { return workDirBytes_; }

 private:
  enum class Kind { makeDir, makeFile, symlink, bind, mountProc, mountTmpfs };
  struct Step {
    Kind kind;
    std::string staged;  // the target under the staging directory
    std::string source;  // bind: host path; symlink: link text; tmpfs: mount options
    unsigned attributes = 0;  // MOUNT_ATTR_* set on the new mount
    int fd = -1;              // bind: a copy of the source's tree, made before the staging tmpfs hides anything
  };
  void ensureDirectory(const std::string& inside);
  bool visibleThroughBind(const std::string& inside) const;
  void addStep(Kind kind, const std::string& inside, std::string source, unsigned attributes);

  std::vector<Step> steps_;
  std::vector<std::string> madeDirs_;   // inside paths made in the tmpfs root
  std::vector<std::string> boundDirs_;  // inside paths of directory binds (host == inside)
  std::uint64_t workDirBytes_ = 0;
};

}  // namespace nndna::specrun
