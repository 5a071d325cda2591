// Runs an untrusted program (a compiled spec, or the compiler reading one) in a child process,
// isolated in layers (docs/specrun.md, "The sandbox", lists each with the test that checks it):
//   - namespaces: its own PID, mount, network, IPC and UTS namespaces (as root, or inside a new
//     user namespace when nndna is not root): no network but a downed loopback, no SysV IPC
//     objects shared with anything else, its own hostname;
//   - a minimal root: pivot_root into a tmpfs holding read-only binds of the system (/usr), of the
//     paths the caller names and of five harmless devices, a fresh /proc, and its working
//     directory (optionally a size-limited tmpfs), the only writable place (minimal_root.hpp);
//   - a seccomp filter denying new namespaces, mounts, ptrace, keyrings, bpf, io_uring and
//     sockets (syscall_filter.hpp);
//   - limits for the whole process tree, memory and processes, through a cgroup (v2 where
//     delegated, else v1; tree_limits.hpp), besides per-process rlimits;
//   - death with its parent: PR_SET_PDEATHSIG on the namespace's init, whose death takes every
//     process of the namespace with it. The init is nndna-sandbox-init (sandbox_init.c), a
//     small static program the set-up child execs: it holds nothing of nndna's memory.
// Where no namespace can be made, the program runs in a plain fork in its own process group with
// the limits, the filter and the rlimits; SandboxResult::isolation says what was in force.
// Always: RLIMIT_CPU, RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_CORE = 0, a wall-clock
// deadline (the parent kills the program), stdout+stderr merged and bounded, a clean environment,
// stdin from /dev/null, no inherited descriptors, default signal handling, capabilities dropped.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "specrun/tree_limits.hpp"
#include "specrun/unique_fd.hpp"

namespace nndna::specrun {

// A file or directory of the host the program may read, at `inside` (empty: the same path).
struct VisiblePath {
  std::filesystem::path host;
  std::filesystem::path inside;
};

struct SandboxLimits {
  std::chrono::milliseconds wallTime{60'000};
  std::uint64_t cpuSeconds = 30;
  std::uint64_t addressSpaceBytes = std::uint64_t{4} << 30;  // per process (RLIMIT_AS)
  std::uint64_t memoryBytes = std::uint64_t{4} << 30;  // the whole tree, resident (cgroup)
  std::uint64_t maxProcesses = 128;  // the whole tree, threads included (cgroup)
  std::uint64_t fileSizeBytes = std::uint64_t{1} << 30;  // largest file it may write
  // > 0: its working directory is a private tmpfs of this size (it starts empty; read what the
  // program left through SandboxResult::workDir). 0: the host's workDir, writable.
  std::uint64_t workDirBytes = 0;
  std::uint64_t openFiles = 256;
  std::uint64_t outputBytes = std::uint64_t{8} << 20;  // stdout+stderr; more kills it
  std::size_t keptOutputBytes = 64 << 10;              // how much of it is kept for messages
  // What it may read besides the system (/usr and the links into it). argv[0] is added.
  std::vector<VisiblePath> visible;
  bool isolate = true;  // namespaces and the minimal root where the machine allows
};

// The isolation layers a run actually had.
struct Isolation {
  bool namespaces = false;      // its own PID, mount, network, IPC and UTS namespaces
  bool userNamespace = false;   // ... made inside a user namespace (nndna is not root)
  bool minimalRoot = false;     // only the system, the named paths and its directory visible
  bool syscallFilter = false;   // seccomp
  bool workDirBounded = false;  // its working directory was a size-limited tmpfs
  bool diesWithParent = false;  // the whole tree dies with the thread that started it
  // The program was started inside these layers. False: the run was stopped (a time limit, a
  // cancel) or failed before its exec, and the layers above are only those set up by then.
  bool programStarted = false;
  TreeLimitSource memoryLimit = TreeLimitSource::none;   // the tree's memory
  TreeLimitSource processLimit = TreeLimitSource::none;  // the tree's processes and threads
  // Why a layer is missing, where known (empty otherwise).
  std::string namespacesWhyNot;   // clone's error, or "not asked for"
  std::string filterWhyNot;       // libseccomp's error
  std::string treeLimitsWhyNot;   // the cgroup that could not be made or joined

  // Each layer not in force, with its reason; empty when the isolation is full.
  std::vector<std::string> missing() const;
  // "full isolation (...)" or "partial isolation: missing ...; in force: ...".
  std::string describe() const;
};

// What is left of a sandboxed run once its program has ended, alone (no process it started
// still running), and its output is read: the namespace's init exiting, the kernel tearing the
// namespaces down, the run's cgroups removed. runSandboxed returns before that, so that the
// caller reads what the program left while the kernel does the rest (docs/specrun.md, "The
// run's end left to the kernel"); finish(), or the destructor, waits for init and removes the
// groups. Where the program left processes running, runSandboxed waits for init's exit, which
// ends them, and this only removes the groups.
class SandboxEnd {
 public:
  SandboxEnd() = default;
  SandboxEnd(pid_t init, std::unique_ptr<TreeLimitGroup> groups) : init_(init), groups_(std::move(groups)) {}
  SandboxEnd(SandboxEnd&& other) noexcept
      : init_(std::exchange(other.init_, -1)), groups_(std::move(other.groups_)) {}
  SandboxEnd& operator=(SandboxEnd&& other) noexcept;
  SandboxEnd(const SandboxEnd&) = delete;
  SandboxEnd& operator=(const SandboxEnd&) = delete;
  ~SandboxEnd() { finish(); }

  void finish() noexcept;

 private:
  pid_t init_ = -1;  // not yet reaped; -1 when it has been
  std::unique_ptr<TreeLimitGroup> groups_;
};

struct SandboxResult {
  bool exited = false;  // exited normally with exitCode
  int exitCode = -1;
  int signal = 0;  // the signal that ended it, when !exited
  bool timedOut = false;        // killed at the wall-clock deadline
  bool outputExceeded = false;  // killed for writing more than outputBytes
  bool cpuExceeded = false;     // SIGXCPU / used its CPU allowance
  bool memoryExceeded = false;  // the kernel killed a process of the tree at the memory limit
  bool processLimitHit = false;  // a fork or thread was refused at the process limit
  std::string output;           // the first keptOutputBytes of stdout+stderr
  std::uint64_t outputTotal = 0;
  bool cancelled = false;       // killed because the caller's stop token was triggered
  Isolation isolation;
  // Its working directory as it left it (the tmpfs when workDirBytes > 0), for openat(): read it
  // with child_files.hpp, never by following what the program put there.
  UniqueFd workDir;
  double wallSeconds = 0;  // from the start until runSandboxed returns
  double cpuSeconds = 0;  // user + system of the program and its children
  SandboxEnd end;  // what is left to wait for (init, the namespaces, the groups)
};

// Runs argv[0] (an absolute path) with `environment` ("NAME=value") in `workDir`, which must
// exist unless limits.workDirBytes > 0 (a tmpfs at that path inside the sandbox's root; only
// where the run falls back to a plain fork is the directory made on the host, 0700, for the
// caller to remove), and returns once it has ended and nothing it started is left (the
// sandbox's own teardown is then the result's `end`). A stop request on `stop` kills the program
// and everything it started (checked every 20 ms) and returns with `cancelled` set. The program
// and everything it started die when the calling thread ends (PR_SET_PDEATHSIG): call it from a
// thread that waits for it, as it does.
// Throws std::system_error if the program could not be started, or if namespaces were made but
// the minimal root could not be built (the program never runs with a half-built view).
SandboxResult runSandboxed(std::span<const std::string> argv,
                           std::span<const std::string> environment,
                           const std::filesystem::path& workDir, const SandboxLimits& limits,
                           std::stop_token stop = {});

// The isolation this machine gives a sandboxed program, probed once per process (a trial run of
// /bin/true with every layer asked for) and cached. `full` only when every layer of Isolation is
// in force; `missing` names each layer that is not, with the reason. Thread-safe.
struct IsolationStatus {
  bool full = false;
  std::vector<std::string> missing;
  Isolation inForce;
  // One line for messages: "full isolation (...)" or "partial isolation: missing ...".
  std::string describe() const;
};
const IsolationStatus& isolationStatus();

// "SIGSEGV (segmentation fault)".
std::string describeSignal(int signal);

}  // namespace nndna::specrun
