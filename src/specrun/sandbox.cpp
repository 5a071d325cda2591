#include "specrun/sandbox.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "specrun/minimal_root.hpp"
#include "specrun/sandbox_protocol.h"
#include "specrun/syscall_filter.hpp"
#include "specrun/temp_dir.hpp"

namespace nndna::specrun {

namespace {

using namespace protocol;

// The hostname the program sees (its UTS namespace), instead of the host's.
constexpr const char* kHostname = "nndna-sandbox";

// Everything the child needs, prepared before clone(): after it the child calls only system
// calls (the parent may have other threads, whose locks the child must never need).
struct ChildSetup {
  const char* program = nullptr;  // argv[0] with links resolved: the path visible in the root
  std::vector<char*> argv;
  std::vector<char*> envp;
  const char* workDir = nullptr;
  RootPlan* root = nullptr;  // with namespaces
  const SyscallFilter* filter = nullptr;
  bool namespaces = false;
  bool userNamespace = false;
  bool processesBounded = false;  // a pids cgroup is in place
  std::array<int, 2> joinFiles{-1, -1};  // TreeLimitGroup::selfJoinFiles()
  std::string uidMap, gidMap;
  const SandboxLimits* limits = nullptr;
  int outWrite = -1;     // stdout+stderr
  int outRead = -1;      // the parent's end
  int statusWrite = -1;  // StatusTag messages
  int statusRead = -1;
  int goRead = -1;  // the parent's one byte once the child is in its cgroups (init reads it, or the plain child)
  int goWrite = -1;
  // With namespaces: nndna-sandbox-init (O_PATH, reachable after pivot_root) and its argv.
  int init = -1;
  std::vector<char*> initArgv;
};

// One status message with room for one descriptor (SCM_RIGHTS), as sent and as received.
struct StatusPacket {
  std::array<int, 3> message{};
  iovec data{};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
  msghdr header{};

  StatusPacket() {
    data = {message.data(), sizeof(message)};
    header.msg_iov = &data;
    header.msg_iovlen = 1;
    header.msg_control = control.data();
    header.msg_controllen = control.size();
  }
  StatusPacket(const StatusPacket&) = delete;
  StatusPacket& operator=(const StatusPacket&) = delete;
};

void sendDescriptor(int socket, int fd) {
  StatusPacket packet;
  packet.message = {kWorkDir, 0, 0};
  cmsghdr* cm = CMSG_FIRSTHDR(&packet.header);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(cm), &fd, sizeof(int));
  [[maybe_unused]] ssize_t n = ::sendmsg(socket, &packet.header, MSG_NOSIGNAL);
}

bool writeProcFile(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// Reports `error` as `tag` on `fd` and ends the child (a child sharing nndna's memory may not
// return into it).
[[noreturn]] void failChild(int fd, StatusTag tag, int error) {
  sendStatus(fd, tag, error, 0);
  ::_exit(127);
}

void setLimit(int resource, std::uint64_t value) {
  const rlimit limit{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
  ::setrlimit(resource, &limit);
}

// Every signal's handler back to the default: the caller's choices (an ignored SIGPIPE, nndna's
// own handlers) survive exec otherwise, and in a child sharing nndna's memory a handler of
// nndna's must never run.
void defaultSignalHandlers() {
  struct sigaction byDefault {};
  byDefault.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &byDefault, nullptr);
}

// Descriptor `fd` also at `target` (or `fd` itself, when it is there already), close-on-exec
// or not.
bool placeAt(int fd, int target, bool closeOnExec) {
  if (fd == target) return ::fcntl(fd, F_SETFD, closeOnExec ? FD_CLOEXEC : 0) == 0;
  return ::dup3(fd, target, closeOnExec ? O_CLOEXEC : 0) == target;
}

// The process's descriptors become exactly `fds` at 1, 2, ... (each close-on-exec as asked) and
// /dev/null as stdin; every other one is closed. Each is lifted above the targets first, so that
// no dup onto a target closes one not yet placed. On failure it reports `failTag` on the lifted
// copy of fds[reportIndex] (whose own number a dup may have reused by then) and ends the child.
template <std::size_t N>
void placeDescriptorsOrFail(const std::array<std::pair<int, bool>, N>& fds, std::size_t reportIndex, StatusTag failTag) {
  constexpr int kAbove = 16;
  static_assert(N > 0 && kAbove > static_cast<int>(N));
  std::array<int, N> lifted{};
  if (reportIndex >= N) failChild(fds[0].first, failTag, EINVAL);
  for (std::size_t i = 0; i < fds.size(); ++i) {
    lifted[i] = ::fcntl(fds[i].first, F_DUPFD_CLOEXEC, kAbove);
    if (lifted[i] < 0) failChild(fds[reportIndex].first, failTag, errno);
  }
  const int report = lifted[reportIndex];
  const int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devNull < 0 || !placeAt(devNull, STDIN_FILENO, false)) failChild(report, failTag, errno);
  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (!placeAt(lifted[i], static_cast<int>(i) + 1, fds[i].second)) failChild(report, failTag, errno);
  }
  const unsigned first = static_cast<unsigned>(fds.size()) + 1;
  if (::syscall(SYS_close_range, first, ~0U, 0U) != 0) {
    // Refused (a container's filter older than close_range): one by one, up to the limit.
    rlimit open{};
    ::getrlimit(RLIMIT_NOFILE, &open);
    const rlim_t end = std::min<rlim_t>(open.rlim_cur, rlim_t{1} << 20);
    for (rlim_t fd = first; fd < end; ++fd) ::close(static_cast<int>(fd));
  }
}

// The limits, no capabilities and the filter: the last of the set-up before the exec of the
// program (or of init, which starts it). Reports the layers it put in force on `statusFd`.
// `processesBounded`: the run's pids cgroup was joined.
void confine(const ChildSetup& setup, int statusFd, bool processesBounded) {
  const SandboxLimits& limits = *setup.limits;
  // CPU: SIGXCPU at the soft limit, SIGKILL one second later.
  const rlimit cpu{static_cast<rlim_t>(limits.cpuSeconds), static_cast<rlim_t>(limits.cpuSeconds + 1)};
  ::setrlimit(RLIMIT_CPU, &cpu);
  setLimit(RLIMIT_AS, limits.addressSpaceBytes);
  setLimit(RLIMIT_FSIZE, limits.fileSizeBytes);
  setLimit(RLIMIT_NOFILE, limits.openFiles);
  setLimit(RLIMIT_CORE, 0);
  // Without a pids cgroup, in a user namespace of its own, RLIMIT_NPROC counts exactly the
  // sandbox's processes (as root without one it would count every root process of the host).
  if (setup.userNamespace && !processesBounded) {
    setLimit(RLIMIT_NPROC, limits.maxProcesses);
    sendStatus(statusFd, kLayers, kProcessRlimit, 0);
  }
  // No capabilities, now or after exec (as root, exec would grant them again from the bounding
  // set): without CAP_SYS_ADMIN no mount can be undone.
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  for (int cap = 0; cap <= 63; ++cap) ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  std::array<__user_cap_data_struct, 2> noCaps{};
  ::syscall(SYS_capset, &header, noCaps.data());
  if (installSyscallFilter(*setup.filter)) sendStatus(statusFd, kLayers, kSyscallFilter, 0);
}

// Into the tree's cgroups (v1) first, by itself: see TreeLimitGroup::selfJoinFiles. Each failure
// is reported; returns whether the process limit's group is joined (or was never this child's to
// join). The join files are closed with the rest of the descriptors (placeDescriptorsOrFail).
bool joinGroups(const ChildSetup& setup) {
  bool processesBounded = setup.processesBounded;
  for (std::size_t i = 0; i < setup.joinFiles.size(); ++i) {
    if (setup.joinFiles[i] < 0) continue;
    if (::write(setup.joinFiles[i], "0", 1) != 1) {
      sendStatus(setup.statusWrite, kJoinFailed, static_cast<int>(i), errno);
      if (i == TreeLimitGroup::kProcessGroup) processesBounded = false;
    }
  }
  return processesBounded;
}

// Without namespaces, the child of a plain clone() becomes the program itself: its own process
// group, default signals, its descriptors, limits, no capabilities, the filter, then exec.
[[noreturn]] void execProgram(const ChildSetup& setup) {
  ::setpgid(0, 0);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  defaultSignalHandlers();
  // Descriptor 3 reports the filter and a failed exec; it closes itself on a successful exec.
  const std::array<std::pair<int, bool>, 3> fds{std::pair{setup.outWrite, false}, std::pair{setup.outWrite, false},
                                                std::pair{setup.statusWrite, true}};
  placeDescriptorsOrFail(fds, 2, kExecFailed);
  constexpr int statusFd = 3;
  if (::chdir(setup.workDir) != 0) failChild(statusFd, kExecFailed, errno);
  confine(setup, statusFd, setup.processesBounded);
  sendStatus(statusFd, kExecuting, 0, 0);
  ::execve(setup.program, setup.argv.data(), setup.envp.data());
  failChild(statusFd, kExecFailed, errno);
}

// The child of a plain clone() (no namespaces): a copy of nndna that waits for its go, then
// becomes the program.
int plainChildMain(void* arg) {
  ChildSetup& setup = *static_cast<ChildSetup*>(arg);
  ::close(setup.outRead);
  ::close(setup.statusRead);
  ::close(setup.goWrite);
  // Killed with the thread that made it. The parent may have died before this line: then the go
  // pipe reads end-of-file instead of its byte.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  joinGroups(setup);
  char go = 0;
  if (::read(setup.goRead, &go, 1) != 1) ::_exit(127);
  execProgram(setup);
}

// The child of clone(CLONE_VM | CLONE_VFORK | namespaces), as posix_spawn's child: it runs in
// nndna's memory, on a stack of its own, while the thread that cloned it waits, until its exec of
// nndna-sandbox-init releases both. It makes system calls only (another thread of nndna may hold
// the allocator's lock) and writes nothing of nndna's but the thread-local state of the waiting
// thread, whose thread-local storage it shares: errno, which that thread reads only when clone()
// failed, and the cancellation state that glibc's wrappers of open, write, send... set and
// restore around the call (nndna never cancels a thread); and the root plan's descriptor slots
// (RootPlan::execute; nndna never reads them). What it must not do: anything that belongs to the
// memory it shares — PR_SET_DUMPABLE (init sets it after its exec), and any change of
// credentials other than dropping capabilities (the kernel would reset the memory's dumpability).
// Every signal is blocked in it (the caller blocked them for the clone) until init's start, and
// every handler of nndna's is reset before anything else; glibc's two internal signals, which no
// mask or sigaction reaches, ignore what another process sends.
int sandboxChildMain(void* arg) {
  ChildSetup& setup = *static_cast<ChildSetup*>(arg);
  // Killed with the thread that made it; as PID 1 of its PID namespace (init, after the exec), its
  // death takes every process of the namespace with it. Should that thread end before this line,
  // the go pipe reads end-of-file in init, which then exits without starting the program.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  defaultSignalHandlers();
  const bool processesBounded = joinGroups(setup);
  if (setup.userNamespace) {
    writeProcFile("/proc/self/setgroups", "deny");
    writeProcFile("/proc/self/uid_map", setup.uidMap);
    writeProcFile("/proc/self/gid_map", setup.gidMap);
  }
  ::sethostname(kHostname, std::strlen(kHostname));
  int failedStep = 0;
  int error = 0;
  if (!setup.root->execute(failedStep, error)) {
    sendStatus(setup.statusWrite, kRootFailed, failedStep, error);
    ::_exit(127);
  }
  sendStatus(setup.statusWrite, kLayers,
             kMinimalRoot | kDiesWithParent | (setup.root->workDirBytes() > 0 ? kWorkDirTmpfs : 0), 0);
  const int workDir = ::open(setup.workDir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (workDir >= 0) {
    sendDescriptor(setup.statusWrite, workDir);
    ::close(workDir);
  }
  // init's descriptors: stdin (/dev/null), stdout and stderr (the output pipe), the status socket
  // and the go pipe (kInitStatusFd, kInitGoFd), and init's own file, closed by its exec.
  static_assert(kInitStatusFd == 3 && kInitGoFd == 4);
  const std::array<std::pair<int, bool>, 5> fds{std::pair{setup.outWrite, false}, std::pair{setup.outWrite, false},
                                                std::pair{setup.statusWrite, false},
                                                std::pair{setup.goRead, false}, std::pair{setup.init, true}};
  placeDescriptorsOrFail(fds, 2, kInitFailed);
  constexpr int initFd = 5;
  if (::chdir(setup.workDir) != 0) failChild(kInitStatusFd, kExecFailed, errno);
  confine(setup, kInitStatusFd, processesBounded);
  ::syscall(SYS_execveat, initFd, "", setup.initArgv.data(), setup.envp.data(), AT_EMPTY_PATH);
  failChild(kInitStatusFd, kInitFailed, errno);
}

class Pipe {
 public:
  explicit Pipe(bool socket = false) {
    const int rc = socket ? ::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds_.data())
                          : ::pipe2(fds_.data(), O_CLOEXEC);
    if (rc != 0) throw std::system_error(errno, std::generic_category(), socket ? "socketpair" : "pipe");
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

// One status message, and the descriptor it carries if any. False at end-of-file or error.
bool receiveStatus(int socket, std::array<int, 3>& message, UniqueFd& received) {
  StatusPacket packet;
  const ssize_t n = ::recvmsg(socket, &packet.header, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  if (n != static_cast<ssize_t>(sizeof(packet.message))) return false;
  message = packet.message;
  for (cmsghdr* cm = CMSG_FIRSTHDR(&packet.header); cm != nullptr; cm = CMSG_NXTHDR(&packet.header, cm)) {
    if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(cm), sizeof(int));
      received.reset(fd);
    }
  }
  return true;
}

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; }

// nndna-sandbox-init (sandbox_init.c), found once: in <prefix>/libexec/nndna beside the programs
// installed there (nndna-net), from <prefix>/bin (nndna), else, for the tests and benchmarks, which
// run from the build tree, where the build made it.
const std::filesystem::path& sandboxInitProgram() {
  static const std::filesystem::path found = [] {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      candidates.push_back(self.parent_path() / "nndna-sandbox-init");
      candidates.push_back((self.parent_path() / NNDNA_SANDBOX_INIT_FROM_BIN).lexically_normal());
      // The build tree's only for a program of the build tree: an installed nndna never runs a
      // file that happens to sit where a build once was.
      const fs::path relative = self.lexically_relative(fs::weakly_canonical(NNDNA_BUILD_TREE, ec));
      if (!ec && !relative.empty() && *relative.begin() != "..") candidates.push_back(NNDNA_SANDBOX_INIT_BUILD);
    }
    std::string looked;
    for (const fs::path& candidate : candidates) {
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
      looked += (looked.empty() ? "" : ", ") + candidate.string();
    }
    throw std::system_error(ENOENT, std::generic_category(),
                            "nndna-sandbox-init, the sandbox's init program, is missing: looked for " + looked);
  }();
  return found;
}

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
  const std::string dir = std::filesystem::absolute(workDir).lexically_normal().string();
  std::error_code ec;
  std::string program = std::filesystem::canonical(args[0], ec).string();
  if (ec) program = args[0];  // exec reports it

  std::optional<RootPlan> root;
  if (limits.isolate) {
    root = RootPlan::system();
    root->addReadOnly(program, program);
    for (const VisiblePath& path : limits.visible) {
      root->addReadOnly(path.host, path.inside.empty() ? path.host : path.inside);
    }
    root->setWorkDir(dir, dir, limits.workDirBytes);
  }
  auto group = std::make_unique<TreeLimitGroup>(limits.memoryBytes, limits.maxProcesses);

  ChildSetup setup;
  setup.program = program.c_str();
  for (std::string& a : args) setup.argv.push_back(a.data());
  setup.argv.push_back(nullptr);
  for (std::string& e : env) setup.envp.push_back(e.data());
  setup.envp.push_back(nullptr);
  setup.workDir = dir.c_str();
  setup.root = root ? &*root : nullptr;
  setup.filter = &syscallFilter();
  setup.processesBounded = group->processSource() != TreeLimitSource::none;
  setup.joinFiles = group->selfJoinFiles();
  setup.uidMap = std::to_string(::getuid()) + " " + std::to_string(::getuid()) + " 1";
  setup.gidMap = std::to_string(::getgid()) + " " + std::to_string(::getgid()) + " 1";
  setup.limits = &limits;

  Pipe output;
  Pipe status(/*socket=*/true);
  Pipe go;
  setup.outWrite = output.write();
  setup.outRead = output.read();
  setup.statusWrite = status.write();
  setup.statusRead = status.read();
  setup.goRead = go.read();
  setup.goWrite = go.write();

  // The child's stack. Not zeroed: after a plain clone a write to any page shared with the child
  // is a copy-on-write fault in this process; the child touches the few it uses.
  constexpr std::size_t kStackBytes = std::size_t{256} << 10;
  const auto stack = std::make_unique_for_overwrite<char[]>(kStackBytes);
  void* stackTop = stack.get() + kStackBytes;
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  std::string namespaceError;
  UniqueFd init;
  if (limits.isolate) {
    const std::filesystem::path& initPath = sandboxInitProgram();
    init.reset(::open(initPath.c_str(), O_PATH | O_CLOEXEC));
    if (!init) throw std::system_error(errno, std::generic_category(), "cannot open " + initPath.string());
    setup.init = init.get();
    // Its name alone as argv[0]: the program may read init's command line (/proc/1/cmdline), and
    // where nndna is installed is no business of its.
    static char initArg0[] = "nndna-sandbox-init";
    setup.initArgv = {initArg0, program.data()};
    setup.initArgv.insert(setup.initArgv.end(), setup.argv.begin(), setup.argv.end());  // ends in nullptr
    // The child shares this process's memory until its exec of init (sandboxChildMain): no copy of
    // nndna's page tables, no copy-on-write. No handler of nndna's may run in it, so every signal
    // is blocked from before the clone (the child starts with this thread's mask) until after.
    setup.namespaces = true;
    sigset_t all;
    sigset_t previous;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &previous);
    constexpr int kNamespaces = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS;
    constexpr int kShared = CLONE_VM | CLONE_VFORK;
    pid = ::clone(sandboxChildMain, stackTop, kShared | kNamespaces | SIGCHLD, &setup);
    if (pid < 0) {
      setup.userNamespace = true;
      pid = ::clone(sandboxChildMain, stackTop, kShared | CLONE_NEWUSER | kNamespaces | SIGCHLD, &setup);
    }
    const int cloneErrno = errno;
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    if (pid < 0) namespaceError = std::strerror(cloneErrno);
  }
  if (pid < 0) {
    // Without namespaces the program works in the host's directory, which the caller may have
    // left to be made (a tmpfs working directory needs none on the host).
    if (limits.workDirBytes > 0 && !makePrivateDirectory(dir)) {
      throw std::system_error(errno, std::generic_category(), "cannot create the working directory " + dir);
    }
    setup.namespaces = false;
    setup.userNamespace = false;
    pid = ::clone(plainChildMain, stackTop, SIGCHLD, &setup);
  }
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "cannot start " + args[0]);
  if (!setup.namespaces) ::setpgid(pid, pid);
  // (glibc 2.36's <sys/pidfd.h> lacks extern "C": the system call directly.)
  const UniqueFd pidFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  group->attach(pid);
  SandboxResult result;
  auto killAll = [&] {
    if (!setup.namespaces) ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  };
  // A run stopped or out of time before its child is released never starts its program: the
  // child (or init, with namespaces) waits for this byte, and without it exits at the pipe's end.
  if (std::chrono::steady_clock::now() - start >= limits.wallTime) {
    result.timedOut = true;
  } else if (stop.stop_requested()) {
    result.cancelled = true;
  } else {
    [[maybe_unused]] const ssize_t wrote = ::write(go.write(), "g", 1);
  }
  if (result.timedOut || result.cancelled) killAll();
  go.closeWrite();
  go.closeRead();
  output.closeWrite();
  status.closeWrite();

  int layers = 0;
  bool executing = false;
  int execErrno = 0;
  int initErrno = 0;
  int rootStep = -1;
  int rootErrno = 0;
  bool haveProgramStatus = !setup.namespaces;  // init's report (with namespaces)
  int programStatus = 0;
  bool programAlone = false;  // no other process of the run was left
  bool haveProgramCpu = false;
  double programCpu = 0;
  auto readStatus = [&] {
    std::array<int, 3> message{};
    UniqueFd received;
    if (!receiveStatus(status.read(), message, received)) return false;
    switch (message[0]) {
      case kExecFailed: execErrno = message[1]; break;
      case kInitFailed: initErrno = message[1]; break;
      case kLayers: layers |= message[1]; break;
      case kExecuting: executing = true; break;
      case kRootFailed:
        rootStep = message[1];
        rootErrno = message[2];
        break;
      case kWaitStatus:
        programStatus = message[1];
        haveProgramStatus = true;
        programAlone = message[2] == 1;
        break;
      case kProgramCpu:
        programCpu = message[1] + message[2] / 1e6;
        haveProgramCpu = true;
        break;
      case kWorkDir: result.workDir = std::move(received); break;
      case kJoinFailed: group->selfJoinFailed(static_cast<std::size_t>(message[1]), message[2]); break;
      default: break;
    }
    return true;
  };
  auto keepOutput = [&](const char* data, std::size_t got) {
    if (result.output.size() < limits.keptOutputBytes) {
      result.output.append(data, std::min(got, limits.keptOutputBytes - result.output.size()));
    }
    result.outputTotal += got;
  };

  std::array<char, 65536> buffer;  // filled by read() before use
  bool outputOpen = true;
  bool statusOpen = true;
  int waitStatus = 0;
  rusage usage{};
  bool reaped = false;
  // With namespaces the loop ends as soon as init has reported that the program ended with no
  // other process of the run left, and the output is read to its end: init's exit and the
  // namespaces' teardown are left to result.end. Whatever the caller reads then is final.
  auto programDone = [&] {
    return setup.namespaces && haveProgramStatus && programAlone && haveProgramCpu && !outputOpen;
  };
  while (!reaped && !programDone()) {
    const auto now = std::chrono::steady_clock::now();
    if (!result.timedOut && now - start >= limits.wallTime) {
      result.timedOut = true;
      killAll();
    }
    if (!result.cancelled && stop.stop_requested()) {
      result.cancelled = true;
      killAll();
    }
    // The pidfd wakes the loop the moment the child ends; 20 ms bounds the wait for a stop
    // request or the deadline.
    std::array<pollfd, 3> fds{pollfd{outputOpen ? output.read() : -1, POLLIN, 0},
                              pollfd{statusOpen ? status.read() : -1, POLLIN, 0}, pollfd{pidFd.get(), POLLIN, 0}};
    ::poll(fds.data(), fds.size(), 20);
    if (fds[0].revents != 0) {
      const ssize_t n = ::read(output.read(), buffer.data(), buffer.size());
      if (n <= 0) {
        outputOpen = false;
      } else {
        keepOutput(buffer.data(), static_cast<std::size_t>(n));
        if (result.outputTotal > limits.outputBytes && !result.outputExceeded) {
          result.outputExceeded = true;
          killAll();
        }
      }
    }
    if (fds[1].revents != 0 && !readStatus() && (fds[1].revents & (POLLHUP | POLLERR)) != 0) statusOpen = false;
    const pid_t done = ::wait4(pid, &waitStatus, WNOHANG, &usage);
    if (done == pid) reaped = true;
  }
  // What is still buffered (a plain fork's leftovers are killed first).
  if (!setup.namespaces) ::kill(-pid, SIGKILL);
  while (readStatus()) {
  }
  ::fcntl(output.read(), F_SETFL, O_NONBLOCK);
  for (ssize_t n; (n = ::read(output.read(), buffer.data(), buffer.size())) > 0;) {
    keepOutput(buffer.data(), static_cast<std::size_t>(n));
  }
  result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.cpuSeconds = haveProgramCpu ? programCpu : seconds(usage.ru_utime) + seconds(usage.ru_stime);
  result.memoryExceeded = group->memoryLimitHit();
  result.processLimitHit = group->processLimitHit();

  Isolation& isolation = result.isolation;
  isolation.namespaces = setup.namespaces;
  isolation.userNamespace = setup.userNamespace;
  isolation.minimalRoot = (layers & kMinimalRoot) != 0;
  isolation.syscallFilter = (layers & kSyscallFilter) != 0;
  isolation.workDirBounded = (layers & kWorkDirTmpfs) != 0;
  isolation.diesWithParent = (layers & kDiesWithParent) != 0;
  isolation.programStarted = executing && execErrno == 0;
  isolation.memoryLimit = group->memorySource();
  isolation.processLimit = (layers & kProcessRlimit) != 0 ? TreeLimitSource::rlimit : group->processSource();
  isolation.namespacesWhyNot = limits.isolate ? namespaceError : "not asked for";
  isolation.filterWhyNot = setup.filter->error;
  isolation.treeLimitsWhyNot = group->whyNot();
  result.end = SandboxEnd(reaped ? -1 : pid, std::move(group));

  if (rootStep >= 0) {
    throw std::system_error(rootErrno, std::generic_category(),
                            "cannot build the sandbox's filesystem (" + root->describeStep(rootStep) + ")");
  }
  if (initErrno != 0) {
    throw std::system_error(initErrno, std::generic_category(),
                            "cannot start the sandbox's init " + sandboxInitProgram().string());
  }
  if (!result.workDir) result.workDir.reset(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));

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

SandboxEnd& SandboxEnd::operator=(SandboxEnd&& other) noexcept {
  if (this != &other) {
    finish();
    init_ = std::exchange(other.init_, -1);
    groups_ = std::move(other.groups_);
  }
  return *this;
}

void SandboxEnd::finish() noexcept {
  // init exits right after its report; its exit kills what is left in its namespace. The groups
  // can be removed only once they are empty.
  if (init_ > 0) {
    while (::waitpid(init_, nullptr, 0) < 0 && errno == EINTR) {
    }
    init_ = -1;
  }
  groups_.reset();
}

std::vector<std::string> Isolation::missing() const {
  std::vector<std::string> gaps;
  auto gap = [&](bool inForce, std::string what, const std::string& why) {
    if (!inForce) gaps.push_back(why.empty() ? std::move(what) : what + " (" + why + ")");
  };
  gap(namespaces, "PID, mount, network, IPC and UTS namespaces", namespacesWhyNot);
  gap(minimalRoot, "a minimal root (the host's files are visible)", "");
  gap(syscallFilter, "the system-call filter", filterWhyNot);
  gap(workDirBounded, "a size-limited working directory", "");
  gap(diesWithParent, "death of the whole process tree with nndna", "");
  gap(memoryLimit != TreeLimitSource::none, "a memory limit for the whole process tree", treeLimitsWhyNot);
  gap(processLimit != TreeLimitSource::none, "a process limit for the whole process tree",
      memoryLimit == TreeLimitSource::none ? "" : treeLimitsWhyNot);
  return gaps;
}

std::string Isolation::describe() const {
  if (!programStarted) return "the program did not start (stopped or failed while its sandbox was set up)";
  std::string layers;
  auto add = [&](bool on, const std::string& what) {
    if (on) layers += (layers.empty() ? "" : "; ") + what;
  };
  add(namespaces,
      std::string("PID, mount, network, IPC and UTS namespaces") + (userNamespace ? " (in a user namespace)" : ""));
  add(minimalRoot, "minimal root");
  add(syscallFilter, "seccomp filter");
  add(memoryLimit != TreeLimitSource::none, "tree memory limit: " + specrun::describe(memoryLimit));
  add(processLimit != TreeLimitSource::none, "tree process limit: " + specrun::describe(processLimit));
  add(workDirBounded, "working directory a size-limited tmpfs");
  add(diesWithParent, "dies with nndna");
  const std::vector<std::string> gaps = missing();
  if (gaps.empty()) return "full isolation (" + layers + ")";
  std::string text = "partial isolation: missing ";
  for (std::size_t i = 0; i < gaps.size(); ++i) text += (i == 0 ? "" : "; ") + gaps[i];
  if (!layers.empty()) text += "; in force: " + layers;
  return text;
}

std::string IsolationStatus::describe() const {
  if (full) return inForce.describe();
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
    limits.workDirBytes = std::uint64_t{1} << 20;
    limits.memoryBytes = std::uint64_t{64} << 20;
    limits.maxProcesses = 8;
    try {
      const std::vector<std::string> argv{"/bin/true"};
      const SandboxResult result = runSandboxed(argv, {}, dir, limits);
      probe.inForce = result.isolation;
      probe.missing = result.isolation.missing();
      if (!result.exited || result.exitCode != 0) probe.missing.push_back("a trial program did not run cleanly");
    } catch (const std::system_error& e) {
      probe.missing.push_back(std::string("a trial program could not run: ") + e.what());
    }
    probe.full = probe.missing.empty();
    return probe;
  }();
  return status;
}

}  // namespace nndna::specrun
