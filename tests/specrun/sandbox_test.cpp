// The sandbox with ordinary programs (/bin/sh, bash): limits, isolation, clean-up. Spec files
// attacking it are in hostile_spec_test.cpp.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "cgroups_of.hpp"
#include "specrun/sandbox.hpp"
#include "specrun/sandbox_protocol.h"
#include "specrun/temp_dir.hpp"

namespace nndna::specrun {
namespace {

namespace fs = std::filesystem;

SandboxResult runShell(const std::string& script, const fs::path& dir, SandboxLimits limits = {},
                       std::stop_token stop = {}) {
  const std::vector<std::string> argv{"/bin/bash", "-c", script};
  const std::vector<std::string> env{"PATH=/usr/bin:/bin", "LANG=C"};
  return runSandboxed(argv, env, dir, limits, stop);
}

TEST(Sandbox, RunsInItsDirectoryWithACleanEnvironment) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  ::setenv("NNDNA_TEST_SECRET", "hunter2", 1);
  const SandboxResult r = runShell("pwd; echo \"secret=$NNDNA_TEST_SECRET\"; echo made > made.txt", dir.path());
  ::unsetenv("NNDNA_TEST_SECRET");
  ASSERT_TRUE(r.exited) << r.output;
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.output, fs::canonical(dir.path()).string() + "\nsecret=\n");
  EXPECT_TRUE(fs::exists(dir.path() / "made.txt"));
}

TEST(Sandbox, ReportsExitCodeAndSignal) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  const SandboxResult exited = runShell("exit 7", dir.path());
  EXPECT_TRUE(exited.exited);
  EXPECT_EQ(exited.exitCode, 7);
  const SandboxResult killed = runShell("kill -SEGV $$", dir.path());
  EXPECT_FALSE(killed.exited);
  EXPECT_EQ(killed.signal, SIGSEGV);
}

// The processes in the run's cgroups other than its init, by name.
std::vector<std::string> runProcessesBesidesInit() {
  std::vector<std::string> found;
  for (const fs::path& group : cgroupsOf(::getpid())) {
    std::ifstream procs(group / "cgroup.procs");
    for (std::string pid; std::getline(procs, pid);) {
      std::ifstream comm(fs::path("/proc") / pid / "comm");
      std::string name;
      std::getline(comm, name);
      if (name != "nndna-sandbox-i") found.push_back(pid + " " + name);
    }
  }
  return found;
}

// runSandboxed returns once the program has ended and its output is closed, and leaves init's
// exit and the teardown to the result's `end` — but only when nothing the program started is
// left: what the caller reads is final. Once the result is gone nothing is left at all: no
// unreaped child (init), no cgroup.
TEST(Sandbox, ARunLeavesNothingOnceItsResultIsGone) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  for (const std::string script : {"exit 3", "sleep 100 >/dev/null 2>&1 & exit 3"}) {
    {
      const SandboxResult r = runShell(script, dir.path());
      EXPECT_TRUE(r.exited) << r.output;
      EXPECT_EQ(r.exitCode, 3);
      EXPECT_LT(r.wallSeconds, 10.0);
      EXPECT_EQ(runProcessesBesidesInit(), std::vector<std::string>{}) << script;
    }
    errno = 0;
    EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << script;
    EXPECT_EQ(errno, ECHILD);
    EXPECT_TRUE(cgroupsOf(::getpid()).empty()) << script;
  }
  // The same with a result moved from before it is destroyed, and one finished by hand.
  SandboxResult moved = runShell("exit 0", dir.path());
  SandboxResult kept = std::move(moved);
  kept.end.finish();
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_TRUE(cgroupsOf(::getpid()).empty());
  moved = runShell("exit 0", dir.path());
  moved = runShell("exit 1", dir.path());  // the first run's end is finished by the assignment
  EXPECT_EQ(moved.exitCode, 1);
}

TEST(Sandbox, WallClockLimitKillsTheProgramAndWhatItStarted) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  SandboxLimits limits;
  limits.wallTime = std::chrono::milliseconds(500);
  const SandboxResult r = runShell("sleep 100 & sleep 100", dir.path(), limits);
  EXPECT_TRUE(r.timedOut);
  EXPECT_FALSE(r.exited);
  EXPECT_LT(r.wallSeconds, 10.0);
}

// A run stopped before its program started (no time at all, or a stop already requested) says
// so instead of listing the layers not yet set up as missing (which `nndna` printed as a warning
// that the spec ran without full isolation). The child is never released, so this holds however
// the two processes are scheduled.
TEST(Sandbox, ARunStoppedBeforeItsProgramStartedSaysSo) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  const SandboxResult started = runShell("exit 0", dir.path());
  EXPECT_TRUE(started.isolation.programStarted);
  EXPECT_EQ(started.isolation.describe().find("did not start"), std::string::npos);
  const std::string notStarted = "the program did not start (stopped or failed while its sandbox was set up)";
  const std::string marker = (dir.path() / "ran").string();
  SandboxLimits limits;
  limits.wallTime = std::chrono::milliseconds(0);
  const SandboxResult outOfTime = runShell("touch " + marker, dir.path(), limits);
  EXPECT_TRUE(outOfTime.timedOut);
  EXPECT_FALSE(outOfTime.isolation.programStarted);
  EXPECT_EQ(outOfTime.isolation.describe(), notStarted);
  std::stop_source stop;
  stop.request_stop();
  const SandboxResult cancelled = runShell("touch " + marker, dir.path(), {}, stop.get_token());
  EXPECT_TRUE(cancelled.cancelled);
  EXPECT_FALSE(cancelled.timedOut);
  EXPECT_FALSE(cancelled.isolation.programStarted);
  EXPECT_EQ(cancelled.isolation.describe(), notStarted);
  EXPECT_FALSE(fs::exists(marker));
}

TEST(Sandbox, CpuLimitStopsABusyLoop) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  SandboxLimits limits;
  limits.cpuSeconds = 1;
  limits.wallTime = std::chrono::seconds(60);
  const SandboxResult r = runShell("while :; do :; done", dir.path(), limits);
  EXPECT_TRUE(r.cpuExceeded) << "signal " << r.signal;
  EXPECT_FALSE(r.timedOut);
  // The program's own CPU time, as init reaped it (SIGXCPU comes at the soft limit, 1 s).
  EXPECT_GE(r.cpuSeconds, 0.9);
  EXPECT_LT(r.cpuSeconds, 3.0);
}

TEST(Sandbox, OutputIsBoundedAndAFloodIsStopped) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  SandboxLimits limits;
  limits.outputBytes = 1 << 20;
  limits.keptOutputBytes = 100;
  const SandboxResult r = runShell("yes", dir.path(), limits);
  EXPECT_TRUE(r.outputExceeded);
  EXPECT_EQ(r.output.size(), 100u);
  EXPECT_GT(r.outputTotal, std::uint64_t{1} << 20);
}

TEST(Sandbox, FileSizeLimit) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  SandboxLimits limits;
  limits.fileSizeBytes = 4096;
  const SandboxResult r = runShell("head -c 100000 /dev/zero > big.bin", dir.path(), limits);
  EXPECT_FALSE(r.exited && r.exitCode == 0);
  EXPECT_LE(fs::file_size(dir.path() / "big.bin"), 4096u);
}

// Where the machine allows namespaces (root, or unprivileged user namespaces), the program has
// no network and cannot write outside its directory. Elsewhere these limits are documented as
// not enforced, and the tests say so instead of failing.
TEST(Sandbox, NoNetwork) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  SandboxLimits limits;
  limits.wallTime = std::chrono::seconds(20);
  // bash's /dev/tcp: connect to a public address and to the host's loopback.
  const SandboxResult r = runShell(
      "(exec 3<>/dev/tcp/1.1.1.1/80) 2>/dev/null && echo public-connected; "
      "(exec 3<>/dev/tcp/127.0.0.1/22) 2>/dev/null && echo loopback-connected; "
      "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; echo done",
      dir.path(), limits);
  if (!r.isolation.namespaces) GTEST_SKIP() << "no network namespace on this machine";
  EXPECT_EQ(r.output, "lo\ndone\n");
  EXPECT_LT(r.wallSeconds, 10.0);
}

TEST(Sandbox, CannotWriteOutsideItsDirectory) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  TempDir outside(fs::temp_directory_path(), "sandbox-outside-");
  const fs::path target = outside.path() / "pwned.txt";
  const SandboxResult r = runShell("for f in /pwned /usr/pwned /dev/pwned " + target.string() +
                                       "; do (echo x > $f) 2>&1 | sed 's/.*: //'; done; "
                                       "echo y > inside.txt && echo inside-ok",
                                   dir.path());
  if (!r.isolation.namespaces) GTEST_SKIP() << "no mount namespace on this machine";
  EXPECT_TRUE(r.isolation.minimalRoot);
  // The root and the system are read-only; the host's other directories are not there at all.
  EXPECT_EQ(r.output,
            "Read-only file system\nRead-only file system\nRead-only file system\n"
            "No such file or directory\ninside-ok\n");
  EXPECT_FALSE(fs::exists(target));
  EXPECT_TRUE(fs::exists(dir.path() / "inside.txt"));
}

// Issue 9.6: only the system, what the caller names, five devices and its directory are there.
TEST(Sandbox, SeesOnlyTheSystemWhatItIsGivenAndItsDirectory) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  TempDir given(fs::temp_directory_path(), "sandbox-given-");
  TempDir secret(fs::temp_directory_path(), "sandbox-secret-");
  std::ofstream(given.path() / "header.hpp") << "given\n";
  std::ofstream(secret.path() / "secret.txt") << "secret\n";
  SandboxLimits limits;
  limits.visible.push_back({given.path() / "header.hpp", {}});
  limits.visible.push_back({given.path() / "header.hpp", "/opt/elsewhere/renamed.hpp"});
  const SandboxResult r = runShell("ls -A / | tr '\\n' ' '; echo; ls -A /dev | tr '\\n' ' '; echo; "
                                   "ls -A " + given.path().string() + "; cat " + given.path().string() +
                                       "/header.hpp /opt/elsewhere/renamed.hpp; "
                                       "cat " + (secret.path() / "secret.txt").string() + " 2>&1 | sed 's/.*: //'; "
                                       "(echo x > " + (given.path() / "header.hpp").string() + ") 2>&1 | sed 's/.*: //'",
                                   dir.path(), limits);
  if (!r.isolation.namespaces) GTEST_SKIP() << "no mount namespace on this machine";
  // "/" holds the system's links and directories, /dev, /proc, /opt (for the renamed file) and
  // the top directory of this test's working directory (/tmp).
  std::vector<std::string> expectedTop{"dev", "opt", "proc", "usr", std::next(dir.path().begin())->string()};
  for (const char* name : {"bin", "sbin", "lib", "lib32", "lib64", "libx32"}) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(std::string("/") + name, ec))) expectedTop.push_back(name);
  }
  std::sort(expectedTop.begin(), expectedTop.end());
  std::string expectedLine;
  for (const std::string& n : expectedTop) expectedLine += n + " ";
  EXPECT_EQ(r.output, expectedLine + "\nfd full null random stderr stdin stdout urandom zero \n"
                                     "header.hpp\ngiven\ngiven\nNo such file or directory\n"
                                     "Read-only file system\n");
}

// The new root is assembled on /tmp; a program given /tmp itself (a spec file directly in /tmp,
// its cache below it) sees the host's /tmp there, not the root being assembled, and runs in a
// directory below it.
TEST(Sandbox, SeesTheHostsTmpWhenItIsGivenTmp) {
  TempDir dir("/tmp", "sandbox-test-");
  TempDir given("/tmp", "sandbox-given-");
  std::ofstream(given.path() / "header.hpp") << "given\n";
  SandboxLimits limits;
  limits.visible.push_back({"/tmp", {}});
  const SandboxResult r = runShell("cat " + (given.path() / "header.hpp").string() + " && pwd", dir.path(), limits);
  if (!r.isolation.namespaces) GTEST_SKIP() << "no mount namespace on this machine";
  EXPECT_TRUE(r.exited && r.exitCode == 0) << r.output;
  EXPECT_EQ(r.output, "given\n" + dir.path().string() + "\n");
}

// Issue 9.7: its own hostname (UTS namespace) and no IPC objects shared with the host.
TEST(Sandbox, HasItsOwnHostnameAndIpcNamespace) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  const SandboxResult r = runShell("uname -n; readlink /proc/self/ns/ipc", dir.path());
  if (!r.isolation.namespaces) GTEST_SKIP() << "no namespaces on this machine";
  const std::string hostIpc = fs::read_symlink("/proc/self/ns/ipc").string();
  ASSERT_EQ(r.output.substr(0, r.output.find('\n')), "nndna-sandbox");
  EXPECT_NE(r.output.substr(r.output.find('\n') + 1), hostIpc + "\n");
}

// With a tmpfs working directory the caller may name a directory that does not exist (the spec
// runner does): with namespaces nothing is made on the host; without them the sandbox makes it,
// private, for the program to work in.
TEST(Sandbox, AWorkingDirectoryLeftToBeMadeIsMadeOnlyWithoutNamespaces) {
  TempDir parent(fs::temp_directory_path(), "sandbox-test-");
  for (const bool isolate : {true, false}) {
    const fs::path dir = parent.path() / (isolate ? "isolated" : "plain");
    SandboxLimits limits;
    limits.isolate = isolate;
    limits.workDirBytes = 1 << 20;
    const SandboxResult r = runShell("pwd; echo made > made.txt", dir, limits);
    ASSERT_TRUE(r.exited && r.exitCode == 0) << r.output;
    EXPECT_EQ(r.output, dir.string() + "\n");
    EXPECT_EQ(fs::exists(dir), !r.isolation.namespaces) << (isolate ? "with namespaces" : "plain fork");
    if (!r.isolation.namespaces) {
      EXPECT_EQ(fs::status(dir).permissions(), fs::perms::owner_all);
      EXPECT_TRUE(fs::exists(dir / "made.txt"));
    }
  }
}

// Issue 9.8: its working directory is a tmpfs of the given size; what it wrote is read through
// SandboxResult::workDir and never lands on the host.
TEST(Sandbox, WorkingDirectoryIsASizeLimitedTmpfs) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  SandboxLimits limits;
  limits.workDirBytes = std::uint64_t{8} << 20;
  const SandboxResult r = runShell("echo made > made.txt; head -c 64000000 /dev/zero > big.bin; "
                                   "stat -c %s big.bin; echo $(( $(stat -f -c '%b * %S' .) ))",
                                   dir.path(), limits);
  if (!r.isolation.namespaces) GTEST_SKIP() << "no mount namespace on this machine";
  EXPECT_TRUE(r.isolation.workDirBounded);
  EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\n" + std::to_string(8 << 20) + "\n"), std::string::npos) << r.output;  // its size
  const std::uint64_t written = std::stoull(r.output.substr(r.output.find("\n") + 1));
  EXPECT_LE(written, std::uint64_t{8} << 20);
  EXPECT_FALSE(fs::exists(dir.path() / "made.txt")) << "the host directory stays empty";
  ASSERT_TRUE(r.workDir);
  struct stat st {};
  EXPECT_EQ(::fstatat(r.workDir.get(), "made.txt", &st, AT_SYMLINK_NOFOLLOW), 0);
  EXPECT_EQ(st.st_size, 5);
}

// The program runs in the run's own memory and pids groups: the child joins them by itself (a v1
// group's `tasks` file) or is moved there by the parent (v2), with and without namespaces.
TEST(Sandbox, TheProgramRunsInTheRunsOwnCgroups) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  const std::string group = "/nndna-" + std::to_string(::getpid()) + "-";
  for (const bool isolate : {true, false}) {
    SandboxLimits limits;
    limits.isolate = isolate;
    const SandboxResult r = runShell("cat /proc/self/cgroup", dir.path(), limits);
    ASSERT_TRUE(r.exited && r.exitCode == 0) << r.output;
    const Isolation& in = r.isolation;
    if (in.memoryLimit == TreeLimitSource::none && in.processLimit == TreeLimitSource::none) {
      GTEST_SKIP() << "no cgroup limits here: " << in.describe();
    }
    // Lines "N:controllers:path" (v1) and "0::path" (v2).
    using enum TreeLimitSource;
    std::istringstream lines(r.output);
    int joined = 0;
    for (std::string line; std::getline(lines, line);) {
      const std::size_t first = line.find(':');
      const std::size_t second = line.find(':', first + 1);
      ASSERT_NE(second, std::string::npos) << r.output;
      const std::string controllers = line.substr(first + 1, second - first - 1);
      const bool v1Group = (controllers == "memory" && in.memoryLimit == cgroupV1) ||
                           (controllers == "pids" && in.processLimit == cgroupV1);
      const bool v2Group = controllers.empty() && (in.memoryLimit == cgroupV2 || in.processLimit == cgroupV2);
      if (v1Group || v2Group) {
        EXPECT_NE(line.find(group), std::string::npos) << "isolate=" << isolate << ": " << line;
        ++joined;
      }
    }
    const int expected = (in.memoryLimit == cgroupV1) + (in.processLimit == cgroupV1) +
                         (in.memoryLimit == cgroupV2 || in.processLimit == cgroupV2);
    EXPECT_EQ(joined, expected) << r.output;
  }
}

// Issue 9.10: asked for no isolation, a run says which layers it lacks.
TEST(Sandbox, ARunWithoutIsolationSaysWhatItLacks) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  SandboxLimits limits;
  limits.isolate = false;
  const SandboxResult r = runShell("true", dir.path(), limits);
  EXPECT_FALSE(r.isolation.namespaces);
  EXPECT_FALSE(r.isolation.minimalRoot);
  const std::vector<std::string> missing = r.isolation.missing();
  ASSERT_FALSE(missing.empty());
  EXPECT_EQ(missing.front(), "PID, mount, network, IPC and UTS namespaces (not asked for)");
  EXPECT_EQ(r.isolation.describe().rfind("partial isolation: missing PID, mount", 0), 0u) << r.isolation.describe();
}

// Issue 9.10: where nndna runs as root (CI, the server) or in a delegated cgroup, every layer is
// in force; `nndna serve` refuses to start otherwise. NNDNA_ALLOW_PARTIAL_ISOLATION=1 lets this
// test pass on a machine known to lack a layer (a container without namespaces).
TEST(Sandbox, IsolationIsFullAsRoot) {
  const IsolationStatus& status = isolationStatus();
  const char* allow = std::getenv("NNDNA_ALLOW_PARTIAL_ISOLATION");
  const char* expect = std::getenv("NNDNA_EXPECT_FULL_ISOLATION");
  const bool required = (::geteuid() == 0 || (expect != nullptr && std::string(expect) == "1")) &&
                        !(allow != nullptr && std::string(allow) == "1");
  if (!required) GTEST_SKIP() << "not root: " << status.describe();
  EXPECT_TRUE(status.full) << status.describe();
  EXPECT_TRUE(status.missing.empty());
  EXPECT_EQ(status.describe().rfind("full isolation (PID, mount, network, IPC and UTS namespaces", 0), 0u)
      << status.describe();
}

TEST(Sandbox, CannotUndoTheReadOnlyMounts) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  TempDir outside(fs::temp_directory_path(), "sandbox-outside-");
  const fs::path target = outside.path() / "pwned.txt";
  const SandboxResult r = runShell("mount -o remount,rw / 2>/dev/null && echo remounted; "
                                   "mount -o remount,rw " + outside.path().string() + " 2>/dev/null; "
                                   "{ echo x > " + target.string() + "; } 2>/dev/null || echo denied",
                                   dir.path());
  if (!r.isolation.namespaces) GTEST_SKIP() << "no mount namespace on this machine";
  EXPECT_EQ(r.output, "denied\n");
  EXPECT_FALSE(fs::exists(target));
}

TEST(Sandbox, CannotOpenDevicesButTheHarmlessOnes) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  // Opening (not writing) a block device read-write, and a sysctl for writing.
  const SandboxResult r = runShell(
      "for dev in $(find /dev -type b 2>/dev/null | head -3); do (exec 3<>$dev) 2>/dev/null && echo opened $dev; done; "
      "(exec 3>>/proc/sys/vm/swappiness) 2>/dev/null && echo sysctl-writable; "
      "echo x > /dev/null && head -c 4 /dev/urandom | wc -c",
      dir.path());
  if (!r.isolation.namespaces) GTEST_SKIP() << "no mount namespace on this machine";
  EXPECT_EQ(r.output, "4\n");
}

TEST(Sandbox, SeesOnlyItsOwnProcesses) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  const SandboxResult r = runShell("ls /proc | grep -c '^[0-9]'", dir.path());
  if (!r.isolation.namespaces) GTEST_SKIP() << "no PID namespace on this machine";
  // PID 1 (the sandbox's init), bash, ls and grep, at most.
  EXPECT_LE(std::stoi(r.output), 4) << r.output;
}

TEST(Sandbox, RunDirectoryIsRemovedEvenWhenTheProgramLockedIt) {
  fs::path kept;
  {
    TempDir dir(fs::temp_directory_path(), "sandbox-test-");
    kept = dir.path();
    const SandboxResult r = runShell("mkdir -p a/b && touch a/b/f && chmod 000 a/b a", dir.path());
    ASSERT_TRUE(r.exited && r.exitCode == 0) << r.output;
  }
  EXPECT_FALSE(fs::exists(kept));
}

// What the program's process sets up before its exec (execProgram), whichever way it is started:
// the caller's ignored and blocked signals do not reach the program, it has no capabilities and
// cannot gain any, its filter is in place and its limits are the run's.
TEST(Sandbox, TheProgramStartsWithDefaultSignalsNoCapabilitiesItsFilterAndItsLimits) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  SandboxLimits limits;
  limits.openFiles = 77;
  limits.fileSizeBytes = std::uint64_t{3} << 20;
  limits.cpuSeconds = 9;
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction previousPipe {};
  ASSERT_EQ(::sigaction(SIGPIPE, &ignore, &previousPipe), 0);
  sigset_t usr1, previousMask;
  ::sigemptyset(&usr1);
  ::sigaddset(&usr1, SIGUSR1);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &usr1, &previousMask), 0);
  // ulimit is bash's own; `exec` makes grep the shell's process, so its status is what bash had.
  const SandboxResult r = runShell(
      "ulimit -n; ulimit -f; ulimit -c; ulimit -t; "
      "exec grep -E '^(SigBlk|SigIgn|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status",
      dir.path(), limits);
  ::pthread_sigmask(SIG_SETMASK, &previousMask, nullptr);
  ::sigaction(SIGPIPE, &previousPipe, nullptr);
  ASSERT_TRUE(r.exited && r.exitCode == 0) << r.output;
  std::istringstream lines(r.output);
  std::vector<std::string> limitsSeen(4);
  for (std::string& line : limitsSeen) std::getline(lines, line);
  // bash's ulimit -f counts blocks of 1024 bytes.
  EXPECT_EQ(limitsSeen, (std::vector<std::string>{"77", "3072", "0", "9"})) << r.output;
  std::map<std::string, std::string> status;
  for (std::string line; std::getline(lines, line);) {
    const std::size_t colon = line.find(':');
    ASSERT_NE(colon, std::string::npos) << line;
    status[line.substr(0, colon)] = line.substr(line.find_first_not_of(" \t", colon + 1));
  }
  for (const char* none : {"SigBlk", "SigIgn", "CapInh", "CapPrm", "CapEff", "CapAmb"}) {
    EXPECT_EQ(status[none], "0000000000000000") << none << "\n" << r.output;
  }
  // Emptying the bounding set takes CAP_SETPCAP: root has it, and so has the sandbox's init in a
  // user namespace of its own; a plain fork of an unprivileged nndna has nothing to drop it with
  // (and no capability to gain: NoNewPrivs).
  if (r.isolation.namespaces || ::geteuid() == 0) {
    EXPECT_EQ(status["CapBnd"], "0000000000000000") << r.output;
  }
  EXPECT_EQ(status["NoNewPrivs"], "1") << r.output;
  EXPECT_EQ(status["Seccomp"], r.isolation.syscallFilter ? "2" : "0") << r.output;
}

// With namespaces, PID 1 is nndna-sandbox-init (sandbox_init.c), not a copy of nndna: it runs
// under the program's own layers (no capabilities, the filter), and the program cannot open its
// memory, environment or map, nor follow its executable's or descriptors' links, through /proc
// (which it can for itself: the same commands, on its own process, are the control). The child
// that set the sandbox up shared nndna's memory: nndna must come out of the run as it went in —
// still dumpable (a per-memory setting), its signal handlers and its thread's signal mask its own.
TEST(Sandbox, InitIsASmallProgramUnderTheProgramsLayersAndOutOfItsReach) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  struct sigaction handler {};
  handler.sa_handler = [](int) {};
  struct sigaction previousUsr2 {};
  ASSERT_EQ(::sigaction(SIGUSR2, &handler, &previousUsr2), 0);
  sigset_t maskBefore;
  ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, nullptr, &maskBefore), 0);
  const SandboxResult r = runShell(
      "grep -E '^(Name|CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/1/status; "
      "for p in self 1; do "
      "  for f in mem environ maps; do "
      "    if (exec 9< /proc/$p/$f) 2> /dev/null; then echo \"opened $f\"; else echo \"denied $f\"; fi; "
      "  done; "
      "  fd=0; [ $p = 1 ] && fd=3; "  // init keeps only the status socket open
      "  for f in exe fd/$fd; do "
      "    if readlink /proc/$p/$f > /dev/null 2>&1; then echo \"followed ${f%/*}\"; else echo \"denied ${f%/*}\"; fi; "
      "  done; "
      "done; "
      "tr '\\0' '\\n' < /proc/1/cmdline | head -n 1",
      dir.path());
  sigset_t maskAfter;
  ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, nullptr, &maskAfter), 0);
  struct sigaction usr2After {};
  ::sigaction(SIGUSR2, &previousUsr2, &usr2After);
  EXPECT_EQ(::prctl(PR_GET_DUMPABLE), 1);
  EXPECT_EQ(usr2After.sa_handler, handler.sa_handler);
  for (int sig = 1; sig < NSIG; ++sig) {
    EXPECT_EQ(::sigismember(&maskAfter, sig), ::sigismember(&maskBefore, sig)) << "signal " << sig;
  }
  if (!r.isolation.namespaces) GTEST_SKIP() << "no PID namespace on this machine";
  ASSERT_TRUE(r.exited && r.exitCode == 0) << r.output;
  std::istringstream lines(r.output);
  std::map<std::string, std::string> status;
  for (int i = 0; i < 5; ++i) {
    std::string line;
    ASSERT_TRUE(std::getline(lines, line)) << r.output;
    const std::size_t colon = line.find(':');
    ASSERT_NE(colon, std::string::npos) << line;
    status[line.substr(0, colon)] = line.substr(line.find_first_not_of(" \t", colon + 1));
  }
  EXPECT_EQ(status["Name"], "nndna-sandbox-i") << r.output;  // the kernel keeps 15 characters
  EXPECT_EQ(status["CapEff"], "0000000000000000") << r.output;
  EXPECT_EQ(status["CapBnd"], "0000000000000000") << r.output;
  EXPECT_EQ(status["NoNewPrivs"], "1") << r.output;
  EXPECT_EQ(status["Seccomp"], r.isolation.syscallFilter ? "2" : "0") << r.output;
  std::string rest((std::istreambuf_iterator<char>(lines)), std::istreambuf_iterator<char>());
  // Its command line, which anyone may read, names it but not where nndna is installed.
  EXPECT_EQ(rest,
            "opened mem\nopened environ\nopened maps\nfollowed exe\nfollowed fd\n"  // the program's own
            "denied mem\ndenied environ\ndenied maps\ndenied exe\ndenied fd\n"      // init's
            "nndna-sandbox-init\n");
}

// Where Debian's musl-tools is installed (scripts/install-deps.sh installs it), the init is built
// against musl with GCC (src/specrun/CMakeLists.txt; musl's specs are GCC's): a static glibc
// program's start-up took about 1 ms of every sandboxed run. glibc's static start-up reads
// GLIBC_TUNABLES; nothing of musl's names it.
TEST(Sandbox, InitIsBuiltAgainstMuslWhereMuslIsInstalled) {
  if (std::string_view(NNDNA_C_COMPILER_ID) != "GNU") {
    GTEST_SKIP() << "musl's specs are GCC's; the C compiler is " << NNDNA_C_COMPILER_ID;
  }
  utsname machine{};
  ASSERT_EQ(::uname(&machine), 0);
  const fs::path muslSpecs =
      fs::path("/usr/lib") / (std::string(machine.machine) + "-linux-musl") / "musl-gcc.specs";
  if (!fs::exists(muslSpecs)) GTEST_SKIP() << "no " << muslSpecs << ": the init is built with glibc";
  std::ifstream in(NNDNA_SANDBOX_INIT, std::ios::binary);
  ASSERT_TRUE(in) << NNDNA_SANDBOX_INIT;
  const std::string program((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(program.find("GLIBC_TUNABLES"), std::string::npos) << NNDNA_SANDBOX_INIT << " is glibc's";
  EXPECT_LT(program.size(), 200u << 10) << NNDNA_SANDBOX_INIT;
}

constexpr int kNoPidNamespace = 100;

// The status messages of nndna-sandbox-init started as PID 1 of a PID namespace of its own (as
// the sandbox starts it, without the other layers) to run `script` with /bin/sh; nullopt where
// no PID namespace can be made.
std::optional<std::vector<std::array<int, 3>>> initMessages(const std::string& script) {
  std::array<int, 2> status{};
  std::array<int, 2> go{};
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, status.data()), 0);
  EXPECT_EQ(::pipe2(go.data(), O_CLOEXEC), 0);
  std::array<const char*, 6> argv{"nndna-sandbox-init", "/bin/sh", "sh", "-c", script.c_str(), nullptr};
  const pid_t child = ::fork();
  if (child == 0) {
    // As the sandbox does: in a user namespace of its own when not root.
    if (::unshare(CLONE_NEWPID) != 0 && ::unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) ::_exit(kNoPidNamespace);
    const pid_t init = ::fork();  // PID 1 of the new namespace
    if (init == 0) {
      const int devNull = ::open("/dev/null", O_RDWR);
      for (const int fd : {0, 1, 2}) ::dup2(devNull, fd);
      ::dup2(status[1], protocol::kInitStatusFd);
      ::dup2(go[0], protocol::kInitGoFd);
      ::execv(NNDNA_SANDBOX_INIT, const_cast<char* const*>(argv.data()));
      ::_exit(101);
    }
    ::waitpid(init, nullptr, 0);
    ::_exit(0);
  }
  ::close(status[1]);
  ::close(go[0]);
  EXPECT_EQ(::write(go[1], "g", 1), 1);
  ::close(go[1]);
  std::vector<std::array<int, 3>> messages;
  for (std::array<int, 3> m{}; ::recv(status[0], m.data(), sizeof m, 0) == sizeof m;) messages.push_back(m);
  ::close(status[0]);
  int childStatus = 0;
  ::waitpid(child, &childStatus, 0);
  if (WIFEXITED(childStatus) && WEXITSTATUS(childStatus) == kNoPidNamespace) return std::nullopt;
  EXPECT_TRUE(WIFEXITED(childStatus) && WEXITSTATUS(childStatus) == 0) << childStatus;
  return messages;
}

// init's last two messages: the program's CPU time, then its wait status and whether it ended
// alone. Only then may nndna go on without waiting for init's exit, which kills what is left.
TEST(Sandbox, InitSaysWhetherTheProgramLeftAProcessRunning) {
  using namespace protocol;
  for (const auto& [script, alone] : {std::pair{"exit 5", 1}, std::pair{"sleep 100 >/dev/null & exit 5", 0},
                                      std::pair{"(sleep 100 &) ; exit 5", 0}}) {
    const std::optional<std::vector<std::array<int, 3>>> reported = initMessages(script);
    if (!reported) GTEST_SKIP() << "no PID namespace can be made here";
    const std::vector<std::array<int, 3>>& messages = *reported;
    ASSERT_EQ(messages.size(), 3u) << script;
    EXPECT_EQ(messages[0][0], kExecuting);
    EXPECT_EQ(messages[1][0], kProgramCpu);
    EXPECT_GE(messages[1][1], 0);
    EXPECT_TRUE(messages[1][2] >= 0 && messages[1][2] < 1'000'000) << messages[1][2];
    EXPECT_EQ(messages[2][0], kWaitStatus);
    EXPECT_TRUE(WIFEXITED(messages[2][1]) && WEXITSTATUS(messages[2][1]) == 5) << messages[2][1];
    EXPECT_EQ(messages[2][2], alone) << script;
  }
}

// The program starts with stdin, stdout and stderr only: none of the sandbox's own descriptors
// (the status socket, the go pipe, init's file) nor one the caller left open without
// close-on-exec, with namespaces and without.
TEST(Sandbox, TheProgramInheritsOnlyItsThreeStandardDescriptors) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  const int leaked = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC, on purpose
  ASSERT_GE(leaked, 0);
  for (const bool isolate : {true, false}) {
    SandboxLimits limits;
    limits.isolate = isolate;
    const SandboxResult r = runShell("ls /proc/$$/fd | tr '\\n' ' '", dir.path(), limits);
    ASSERT_TRUE(r.exited && r.exitCode == 0) << r.output;
    EXPECT_EQ(r.output, "0 1 2 ") << (isolate ? "with namespaces" : "plain fork");
  }
  ::close(leaked);
}

TEST(Sandbox, MissingProgramThrows) {
  TempDir dir(fs::temp_directory_path(), "sandbox-test-");
  const std::vector<std::string> argv{"/nonexistent/program"};
  EXPECT_THROW(runSandboxed(argv, {}, dir.path(), {}), std::system_error);
}

}  // namespace
}  // namespace nndna::specrun
