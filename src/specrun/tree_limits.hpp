// Limits for a whole process tree: memory (resident, page cache and tmpfs included) and the
// number of processes and threads, through a cgroup made for one sandboxed run. Per-process
// rlimits cannot do this: three processes of 200 MiB each fit under any per-process limit of
// 256 MiB, and 300 forks under any RLIMIT_AS.
//
// Each controller is taken from cgroup v2 where this process's v2 group offers it to children
// (its cgroup.subtree_control lists it; as root in the root group, nndna enables it), or where the
// parent of its group does and may be written (a delegated subtree whose processes live in a leaf,
// the layout cgroup v2 requires: the runs' groups are made next to that leaf); else from a cgroup
// v1 hierarchy where this process may create a child group in its own group (root, or a v1 group
// delegated to the user); else it is not bounded and the reason is kept for messages. Detected
// once per process; stale groups of dead nndna processes are removed then.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "specrun/unique_fd.hpp"

namespace nndna::specrun {

enum class TreeLimitSource { none, rlimit, cgroupV1, cgroupV2 };

// "cgroup v2", "cgroup v1", "RLIMIT_NPROC in its user namespace", "none".
std::string describe(TreeLimitSource source);

// One run's cgroups. Removes them when destroyed (killing whatever is still in them first).
class TreeLimitGroup {
 public:
  // Makes the groups with these limits. Controllers that cannot be set up are left out: see
  // memorySource() / processSource() and whyNot().
  TreeLimitGroup(std::uint64_t memoryBytes, std::uint64_t maxProcesses);
  ~TreeLimitGroup();
  TreeLimitGroup(const TreeLimitGroup&) = delete;
  TreeLimitGroup& operator=(const TreeLimitGroup&) = delete;

  // Where the child can join a group by itself, it does, before it runs anything: it writes "0"
  // (itself) to each of these descriptors, the v1 groups' `tasks` files ([0] memory, [1]
  // processes; -1 where it has nothing to join). Why: the parent writing the child's pid to
  // cgroup.procs takes the kernel's global threadgroup lock, and taking it waits out an RCU grace
  // period (5-20 ms per run on the 2-core VM); a single thread moving itself does not take it.
  // The child is one thread then, so moving the thread moves the process.
  static constexpr std::size_t kMemoryGroup = 0;
  static constexpr std::size_t kProcessGroup = 1;
  std::array<int, 2> selfJoinFiles() const;
  // The child's write to selfJoinFiles()[index] failed with `error`: that limit is not in force.
  void selfJoinFailed(std::size_t index, int error);

  // Once the child is started: moves `pid` (not yet running the program) into the groups it does
  // not join by itself (cgroup v2, where a process cannot move only its thread), and closes this
  // process's copies of selfJoinFiles(). False if a write failed; the sources then read `none`.
  bool attach(pid_t pid);

  TreeLimitSource memorySource() const { return memory_.source; }
  TreeLimitSource processSource() const { return processes_.source; }
  // Why a controller is not in force ("" when both are).
  const std::string& whyNot() const { return whyNot_; }

  // After the run: did the kernel kill a process of the tree for memory, or refuse a fork?
  bool memoryLimitHit() const;
  bool processLimitHit() const;

 private:
  struct Group {
    TreeLimitSource source = TreeLimitSource::none;
    std::string dir;  // the group made for this run
    bool owned = false;  // made by this object (v1 memory and pids are two groups; v2 one)
    UniqueFd selfJoin;   // v1: the group's `tasks` file, for the child to join by itself
  };
  void lose(Group& group, const std::string& why);
  Group memory_;
  Group processes_;
  std::string whyNot_;
};

}  // namespace nndna::specrun
