// Runs an untrusted program (a compiled spec, or the compiler reading one) in a child process
// with resource limits and, where the machine allows, without network and with a read-only view
// of the filesystem except its own working directory.
//
// Isolation, in order of preference (see docs/specrun.md for what each layer enforces):
//   1. clone() into new PID, mount and network namespaces (as root, or inside a new user
//      namespace when unprivileged ones are allowed): the program sees only a downed loopback, every
//      mount read-only except its working directory, and when its namespace's init exits every
//      process it started is killed by the kernel.
//   2. If no namespace can be made: a plain fork in its own process group, with the same limits.
// Always: RLIMIT_CPU, RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_CORE = 0, a wall-clock
// deadline (the parent kills the program), stdout+stderr merged and bounded, a clean environment,
// stdin from /dev/null, no inherited descriptors, capabilities dropped.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace nndna::specrun {

struct SandboxLimits {
  std::chrono::milliseconds wallTime{60'000};
  std::uint64_t cpuSeconds = 30;
  std::uint64_t addressSpaceBytes = std::uint64_t{4} << 30;
  std::uint64_t fileSizeBytes = std::uint64_t{1} << 30;  // largest file it may write
  std::uint64_t openFiles = 256;
  std::uint64_t outputBytes = std::uint64_t{8} << 20;  // stdout+stderr; more kills it
  std::size_t keptOutputBytes = 64 << 10;              // how much of it is kept for messages
  bool isolate = true;  // namespaces (network, mounts, PIDs) where the machine allows
};

struct SandboxResult {
  bool exited = false;  // exited normally with exitCode
  int exitCode = -1;
  int signal = 0;  // the signal that ended it, when !exited
  bool timedOut = false;        // killed at the wall-clock deadline
  bool outputExceeded = false;  // killed for writing more than outputBytes
  bool cpuExceeded = false;     // SIGXCPU / used its CPU allowance
  std::string output;           // the first keptOutputBytes of stdout+stderr
  std::uint64_t outputTotal = 0;
  bool cancelled = false;       // killed because the caller's stop token was triggered
  bool namespaces = false;  // ran in new PID/mount/network namespaces
  bool readOnlyFs = false;  // everything outside its working directory was remounted read-only
  double wallSeconds = 0;
  double cpuSeconds = 0;  // user + system of the program and its children
};

// Runs argv[0] (an absolute path) with `environment` ("NAME=value") in `workDir`, which must
// exist. A stop request on `stop` kills the program and everything it started (checked every
// 20 ms) and returns with `cancelled` set. Throws std::system_error if the program could not be
// started.
SandboxResult runSandboxed(std::span<const std::string> argv,
                           std::span<const std::string> environment,
                           const std::filesystem::path& workDir, const SandboxLimits& limits,
                           std::stop_token stop = {});

// The isolation this machine gives a sandboxed program, probed once per process (a trial run of
// /bin/true) and cached. `full` only when every layer the sandbox knows is in force; `missing`
// names each layer that is not, with the reason. Thread-safe.
struct IsolationStatus {
  bool full = false;
  std::vector<std::string> missing;
  // One line for messages: "full isolation (...)" or "partial isolation: missing ...".
  std::string describe() const;
};
const IsolationStatus& isolationStatus();

// "SIGSEGV (segmentation fault)".
std::string describeSignal(int signal);

}  // namespace nndna::specrun
