#include "specrun/sandbox.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

namespace nndna::specrun {

namespace {

// Messages on the status pipe (child -> parent), each two ints.
enum StatusTag : int { kExecFailed = 1, kWaitStatus = 2, kReadOnly = 3 };

// Everything the child needs, prepared before clone(): after it the child calls only system
// calls (the parent may have other threads, whose locks the child must never need).
struct ChildSetup {
  std::vector<char*> argv;
  std::vector<char*> envp;
  const char* workDir = nullptr;
  std::vector<const char*> mountPoints;  // every mount, from /proc/self/mountinfo
  bool namespaces = false;
  bool userNamespace = false;
  std::string uidMap, gidMap;
  const SandboxLimits* limits = nullptr;
  int outWrite = -1;     // stdout+stderr
  int outRead = -1;      // the parent's end
  int statusWrite = -1;  // StatusTag messages
  int statusRead = -1;
};

void sendStatus(int fd, int tag, int value) {
  const std::array<int, 2> message{tag, value};
  [[maybe_unused]] ssize_t n = ::write(fd, message.data(), sizeof(message));
}

bool writeProcFile(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// statfs flags -> the mount flags a read-only remount must keep (locked ones must be repeated).
unsigned long keptMountFlags(const char* path) {
  struct statfs fs {};
  if (::statfs(path, &fs) != 0) return 0;
  unsigned long flags = 0;
  if (fs.f_flags & ST_NOSUID) flags |= MS_NOSUID;
  if (fs.f_flags & ST_NODEV) flags |= MS_NODEV;
  if (fs.f_flags & ST_NOEXEC) flags |= MS_NOEXEC;
  if (fs.f_flags & ST_NOATIME) flags |= MS_NOATIME;
  if (fs.f_flags & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (fs.f_flags & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

// In the new mount namespace: the working directory stays writable (a bind mount of itself),
// every other mount becomes read-only, and /proc shows only this PID namespace.
bool makeFilesystemReadOnly(const ChildSetup& setup) {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
  if (::mount(setup.workDir, setup.workDir, nullptr, MS_BIND | MS_REC, nullptr) != 0) return false;
  // Device nodes: a read-only mount does not stop writes to a device, and as root (without
  // capabilities, but still the owner of /dev/sda) the program could open disks. Every mount
  // gets nodev; the harmless devices stay usable through bind mounts of their own.
  for (const char* device : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}) {
    ::mount(device, device, nullptr, MS_BIND, nullptr);
  }
  bool all = true;
  for (const char* point : setup.mountPoints) {
    const unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NODEV | keptMountFlags(point);
    if (::mount(nullptr, point, nullptr, flags, nullptr) != 0 && errno != ENOENT) all = false;
  }
  // A fresh, read-only /proc hides the host's processes (their environments, command lines) and
  // keeps /proc/sys unwritable.
  ::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, nullptr);
  return all;
}

void setLimit(int resource, std::uint64_t value) {
  const rlimit limit{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
  ::setrlimit(resource, &limit);
}

// The program itself: descriptors, limits, no capabilities, then exec.
[[noreturn]] void execProgram(const ChildSetup& setup) {
  const SandboxLimits& limits = *setup.limits;
  ::setpgid(0, 0);
  const int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devNull >= 0) ::dup2(devNull, STDIN_FILENO);
  ::dup2(setup.outWrite, STDOUT_FILENO);
  ::dup2(setup.outWrite, STDERR_FILENO);
  // Descriptor 3 reports a failed exec; it closes itself on a successful one.
  const int statusFd = ::dup3(setup.statusWrite, 3, O_CLOEXEC) == 3 ? 3 : setup.statusWrite;
  if (statusFd == 3) ::syscall(SYS_close_range, 4U, ~0U, 0U);
  if (::chdir(setup.workDir) != 0) {
    sendStatus(statusFd, kExecFailed, errno);
    ::_exit(127);
  }
  // CPU: SIGXCPU at the soft limit, SIGKILL one second later.
  const rlimit cpu{static_cast<rlim_t>(limits.cpuSeconds), static_cast<rlim_t>(limits.cpuSeconds + 1)};
  ::setrlimit(RLIMIT_CPU, &cpu);
  setLimit(RLIMIT_AS, limits.addressSpaceBytes);
  setLimit(RLIMIT_FSIZE, limits.fileSizeBytes);
  setLimit(RLIMIT_NOFILE, limits.openFiles);
  setLimit(RLIMIT_CORE, 0);
  // No capabilities, now or after exec (as root, exec would grant them again from the bounding
  // set): without CAP_SYS_ADMIN the read-only mounts cannot be undone.
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  for (int cap = 0; cap <= 63; ++cap) ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  std::array<__user_cap_data_struct, 2> none{};
  ::syscall(SYS_capset, &header, none.data());
  ::execve(setup.argv[0], setup.argv.data(), setup.envp.data());
  sendStatus(statusFd, kExecFailed, errno);
  ::_exit(127);
}

// The child of clone(). With namespaces it is PID 1 of its PID namespace: it prepares the
// mounts, runs the program as its own child and reports how that ended; when it exits, the
// kernel kills whatever the program left behind.
int childMain(void* arg) {
  const ChildSetup& setup = *static_cast<const ChildSetup*>(arg);
  ::close(setup.outRead);
  ::close(setup.statusRead);
  if (!setup.namespaces) execProgram(setup);

  if (setup.userNamespace) {
    writeProcFile("/proc/self/setgroups", "deny");
    writeProcFile("/proc/self/uid_map", setup.uidMap);
    writeProcFile("/proc/self/gid_map", setup.gidMap);
  }
  sendStatus(setup.statusWrite, kReadOnly, makeFilesystemReadOnly(setup) ? 1 : 0);
  // A raw fork: no atfork handlers (they take locks a thread of the parent may have held).
  const long program = ::syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, nullptr);
  if (program < 0) {
    sendStatus(setup.statusWrite, kExecFailed, errno);
    ::_exit(127);
  }
  if (program == 0) execProgram(setup);
  ::close(setup.outWrite);
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(-1, &status, 0);
    if (done < 0 && errno != EINTR) ::_exit(1);
    if (done == program) {
      sendStatus(setup.statusWrite, kWaitStatus, status);
      ::_exit(0);
    }
  }
}

// Mount points, unescaped ("\040" is a space in /proc/self/mountinfo).
std::vector<std::string> readMountPoints() {
  std::vector<std::string> points;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    if (!(fields >> id >> parent >> dev >> root >> point)) continue;
    std::string unescaped;
    for (std::size_t i = 0; i < point.size(); ++i) {
      if (point[i] == '\\' && i + 3 < point.size()) {
        unescaped += static_cast<char>(std::stoi(point.substr(i + 1, 3), nullptr, 8));
        i += 3;
      } else {
        unescaped += point[i];
      }
    }
    points.push_back(std::move(unescaped));
  }
  return points;
}

class Pipe {
 public:
  Pipe() {
    if (::pipe2(fds_.data(), O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  }
  ~Pipe() {
    closeRead();
    closeWrite();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int read() const { return fds_[0]; }
  int write() const { return fds_[1]; }
  void closeRead() { closeFd(fds_[0]); }
  void closeWrite() { closeFd(fds_[1]); }

 private:
  static void closeFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  std::array<int, 2> fds_{-1, -1};
};

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; }

}  // namespace

std::string describeSignal(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  const char* what = ::sigdescr_np(signal);
  std::string text = abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
  if (what != nullptr) text += std::string(" (") + what + ")";
  return text;
}

SandboxResult runSandboxed(std::span<const std::string> argv, std::span<const std::string> environment,
                           const std::filesystem::path& workDir, const SandboxLimits& limits,
                           std::stop_token stop) {
  if (argv.empty()) throw std::invalid_argument("runSandboxed: empty argv");
  // Strings the child points into; they outlive it.
  std::vector<std::string> args(argv.begin(), argv.end());
  std::vector<std::string> env(environment.begin(), environment.end());
  const std::string dir = std::filesystem::absolute(workDir).string();
  const std::vector<std::string> mounts = limits.isolate ? readMountPoints() : std::vector<std::string>{};

  ChildSetup setup;
  for (std::string& a : args) setup.argv.push_back(a.data());
  setup.argv.push_back(nullptr);
  for (std::string& e : env) setup.envp.push_back(e.data());
  setup.envp.push_back(nullptr);
  setup.workDir = dir.c_str();
  for (const std::string& m : mounts) {
    if (m != dir) setup.mountPoints.push_back(m.c_str());
  }
  setup.uidMap = std::to_string(::getuid()) + " " + std::to_string(::getuid()) + " 1";
  setup.gidMap = std::to_string(::getgid()) + " " + std::to_string(::getgid()) + " 1";
  setup.limits = &limits;

  Pipe output;
  Pipe status;
  setup.outWrite = output.write();
  setup.outRead = output.read();
  setup.statusWrite = status.write();
  setup.statusRead = status.read();

  std::vector<char> stack(std::size_t{256} << 10);
  void* stackTop = stack.data() + stack.size();
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  if (limits.isolate) {
    setup.namespaces = true;
    constexpr int kNamespaces = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET;
    pid = ::clone(childMain, stackTop, kNamespaces | SIGCHLD, &setup);
    if (pid < 0) {
      setup.userNamespace = true;
      pid = ::clone(childMain, stackTop, CLONE_NEWUSER | kNamespaces | SIGCHLD, &setup);
    }
  }
  if (pid < 0) {
    setup.namespaces = false;
    setup.userNamespace = false;
    pid = ::clone(childMain, stackTop, SIGCHLD, &setup);
  }
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "cannot start " + args[0]);
  if (!setup.namespaces) ::setpgid(pid, pid);
  output.closeWrite();
  status.closeWrite();

  SandboxResult result;
  result.namespaces = setup.namespaces;
  auto killAll = [&] {
    if (!setup.namespaces) ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  };

  std::vector<int> statusInts;
  std::array<char, 65536> buffer{};
  bool outputOpen = true;
  bool statusOpen = true;
  int waitStatus = 0;
  rusage usage{};
  bool reaped = false;
  while (!reaped) {
    const auto now = std::chrono::steady_clock::now();
    if (!result.timedOut && now - start >= limits.wallTime) {
      result.timedOut = true;
      killAll();
    }
    if (!result.cancelled && stop.stop_requested()) {
      result.cancelled = true;
      killAll();
    }
    std::array<pollfd, 2> fds{pollfd{outputOpen ? output.read() : -1, POLLIN, 0},
                              pollfd{statusOpen ? status.read() : -1, POLLIN, 0}};
    ::poll(fds.data(), fds.size(), 20);
    if (fds[0].revents != 0) {
      const ssize_t n = ::read(output.read(), buffer.data(), buffer.size());
      if (n <= 0) {
        outputOpen = false;
      } else {
        const auto got = static_cast<std::size_t>(n);
        if (result.output.size() < limits.keptOutputBytes) {
          result.output.append(buffer.data(), std::min(got, limits.keptOutputBytes - result.output.size()));
        }
        result.outputTotal += got;
        if (result.outputTotal > limits.outputBytes && !result.outputExceeded) {
          result.outputExceeded = true;
          killAll();
        }
      }
    }
    if (fds[1].revents != 0) {
      std::array<int, 2> message{};
      const ssize_t n = ::read(status.read(), message.data(), sizeof(message));
      if (n == static_cast<ssize_t>(sizeof(message))) {
        statusInts.insert(statusInts.end(), message.begin(), message.end());
      } else if (n <= 0) {
        statusOpen = false;
      }
    }
    const pid_t done = ::wait4(pid, &waitStatus, WNOHANG, &usage);
    if (done == pid) reaped = true;
  }
  // What is still buffered in the pipes (a plain fork's leftovers are killed first).
  if (!setup.namespaces) ::kill(-pid, SIGKILL);
  ::fcntl(status.read(), F_SETFL, O_NONBLOCK);
  for (std::array<int, 2> message{}; ::read(status.read(), message.data(), sizeof(message)) ==
                                     static_cast<ssize_t>(sizeof(message));) {
    statusInts.insert(statusInts.end(), message.begin(), message.end());
  }
  ::fcntl(output.read(), F_SETFL, O_NONBLOCK);
  for (ssize_t n; (n = ::read(output.read(), buffer.data(), buffer.size())) > 0;) {
    const auto got = static_cast<std::size_t>(n);
    if (result.output.size() < limits.keptOutputBytes) {
      result.output.append(buffer.data(), std::min(got, limits.keptOutputBytes - result.output.size()));
    }
    result.outputTotal += got;
  }
  result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.cpuSeconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);

  int execErrno = 0;
  bool haveProgramStatus = !setup.namespaces;
  int programStatus = waitStatus;
  for (std::size_t i = 0; i + 1 < statusInts.size(); i += 2) {
    switch (statusInts[i]) {
      case kExecFailed: execErrno = statusInts[i + 1]; break;
      case kReadOnly: result.readOnlyFs = statusInts[i + 1] != 0; break;
      case kWaitStatus:
        programStatus = statusInts[i + 1];
        haveProgramStatus = true;
        break;
      default: break;
    }
  }
  if (execErrno != 0 && !result.timedOut && !result.cancelled) {
    throw std::system_error(execErrno, std::generic_category(), "cannot run " + args[0]);
  }
  if (!haveProgramStatus) programStatus = waitStatus;  // init itself was killed (time-out)
  if (WIFEXITED(programStatus)) {
    result.exited = true;
    result.exitCode = WEXITSTATUS(programStatus);
  } else if (WIFSIGNALED(programStatus)) {
    result.signal = WTERMSIG(programStatus);
  }
  result.cpuExceeded = result.signal == SIGXCPU ||
                       (result.signal == SIGKILL && result.cpuSeconds >= static_cast<double>(limits.cpuSeconds));
  return result;
}

std::string IsolationStatus::describe() const {
  if (full) return "full isolation (PID, mount and network namespaces; read-only filesystem)";
  std::string text = "partial isolation: missing ";
  for (std::size_t i = 0; i < missing.size(); ++i) text += (i == 0 ? "" : "; ") + missing[i];
  return text;
}

const IsolationStatus& isolationStatus() {
  static const IsolationStatus status = [] {
    IsolationStatus probe;
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    SandboxLimits limits;
    limits.wallTime = std::chrono::seconds(10);
    try {
      const std::vector<std::string> argv{"/bin/true"};
      const SandboxResult result = runSandboxed(argv, {}, dir, limits);
      if (!result.namespaces) probe.missing.push_back("PID, mount and network namespaces (clone failed)");
      if (result.namespaces && !result.readOnlyFs) probe.missing.push_back("read-only filesystem (remount failed)");
      if (!result.exited || result.exitCode != 0) probe.missing.push_back("a trial program did not run cleanly");
    } catch (const std::system_error& e) {
      probe.missing.push_back(std::string("a trial program could not start: ") + e.what());
    }
    probe.full = probe.missing.empty();
    return probe;
  }();
  return status;
}

}  // namespace nndna::specrun
