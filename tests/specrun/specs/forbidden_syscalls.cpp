// Issue 9.7: system calls a spec never needs. It throws a message naming each call and its
// result ("unshare(CLONE_NEWUSER)=EPERM ..."), which the test checks call by call.
#include <nndna/nndna.hpp>

#include <errno.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

std::string results;

void record(const char* call, long rc) {
  results += std::string(" ") + call + "=" + (rc >= 0 ? "ok" : strerrorname_np(errno));
}

Tensor lossFn(Net& m, const Inputs& in) {
  // In a child: a call that succeeds must not change this process (a new namespace, say).
  const pid_t child = ::fork();
  if (child == 0) {
    results.clear();
    record("unshare(CLONE_NEWUSER)", ::unshare(CLONE_NEWUSER));
    record("unshare(CLONE_NEWNS)", ::unshare(CLONE_NEWNS));
    const long cloned = ::syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
    if (cloned == 0) std::_Exit(0);
    record("clone(CLONE_NEWUSER)", cloned);
    record("mount", ::mount("none", "/tmp", "tmpfs", 0, nullptr));
    record("ptrace(PTRACE_TRACEME)", ::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr));
    record("keyctl", ::syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0));
    record("bpf", ::syscall(SYS_bpf, 0, nullptr, 0));
    record("io_uring_setup", ::syscall(SYS_io_uring_setup, 1, nullptr));
    record("socket(AF_UNIX)", ::socket(AF_UNIX, SOCK_STREAM, 0));
    record("socket(AF_INET)", ::socket(AF_INET, SOCK_STREAM, 0));
    record("socket(AF_INET6)", ::socket(AF_INET6, SOCK_DGRAM, 0));
    record("socket(AF_NETLINK)", ::socket(AF_NETLINK, SOCK_RAW, 0));
    std::fputs(results.c_str(), stderr);
    std::_Exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  throw std::runtime_error("done");
  return mean(m.l(in["x"]));
}

NNDNA_SPEC(Net) { return {.label = "syscalls", .loss = lossFn, .inputs = {{"x", {8, 4}}}}; }
