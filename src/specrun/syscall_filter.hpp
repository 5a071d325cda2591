// The system calls a spec program (and the compiler reading one) never needs, denied by a
// seccomp filter: new namespaces (unshare, setns, clone with CLONE_NEW*), every mount call,
// ptrace and reading other processes' memory, the kernel keyring, bpf, perf events,
// userfaultfd, io_uring (it performs socket and file operations outside the filter's view) and
// `socket` for every address family (no network, no Unix sockets of the host even if one were
// visible). Calls that need a capability the sandbox has dropped are listed too, as a second wall.
// A denied call fails with EPERM; clone3 fails with ENOSYS, so that the C library falls back to
// clone, whose flags the filter can see.
//
// The filter is built with libseccomp once per process and kept as a BPF program: the sandbox's
// child, which may run only system calls, installs it with one prctl().
#pragma once

#include <linux/filter.h>

#include <string>
#include <vector>

namespace nndna::specrun {

struct SyscallFilter {
  std::vector<sock_filter> program;  // empty when it could not be built
  std::string error;                 // why not
};

// Built on the first call; thread-safe.
const SyscallFilter& syscallFilter();

// In the child, after PR_SET_NO_NEW_PRIVS: installs the filter. Only system calls; returns false
// (errno set) if the kernel refused it.
bool installSyscallFilter(const SyscallFilter& filter);

}  // namespace nndna::specrun
