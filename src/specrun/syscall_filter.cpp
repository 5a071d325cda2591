#include "specrun/syscall_filter.hpp"

#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "specrun/unique_fd.hpp"

namespace nndna::specrun {

namespace {

// Denied outright with EPERM. Names, not numbers: libseccomp maps them for this architecture,
// and one it does not know (older than the kernel) is skipped.
constexpr const char* kDenied[] = {
    // namespaces and mounts
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr",
    // other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    // kernel facilities a spec never uses
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd", "io_uring_setup",
    "io_uring_enter", "io_uring_register", "fanotify_init", "name_to_handle_at", "open_by_handle_at",
    // the network, and Unix sockets of any kind
    "socket",
    // capability-only (already dropped): modules, reboot, swap, clocks, accounting, quotas, I/O ports
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon",
    "swapoff", "acct", "quotactl", "quotactl_fd", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "sethostname", "setdomainname", "syslog", "iopl", "ioperm", "vhangup", "lookup_dcookie", "uselib"};

// clone() flags that make a namespace (CLONE_NEWTIME shares its bit with clone()'s exit signal
// and is only honoured by unshare and clone3, both denied).
constexpr unsigned long kNamespaceFlags[] = {CLONE_NEWNS,  CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                                             CLONE_NEWUSER, CLONE_NEWPID,   CLONE_NEWNET};

SyscallFilter build() {
  SyscallFilter filter;
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) {
    filter.error = "seccomp_init failed";
    return filter;
  }
  auto fail = [&](const std::string& what, int rc) {
    filter.error = what + ": " + std::strerror(-rc);
    seccomp_release(ctx);
    return filter;
  };
  // Another architecture's system calls (32-bit int 0x80) kill the process.
  if (int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS); rc < 0) {
    return fail("seccomp_attr_set", rc);
  }
  // The sandbox sets PR_SET_NO_NEW_PRIVS itself, before the filter.
  if (int rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0); rc < 0) return fail("seccomp_attr_set", rc);
  for (const char* name : kDenied) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;
    if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0); rc < 0) return fail(name, rc);
  }
  for (unsigned long flag : kNamespaceFlags) {
    if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                  SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
        rc < 0) {
      return fail("clone", rc);
    }
  }
  if (const int nr = seccomp_syscall_resolve_name("clone3"); nr != __NR_SCMP_ERROR) {
    if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0); rc < 0) return fail("clone3", rc);
  }
  // Exported through a memory file: libseccomp writes the program to a descriptor.
  const UniqueFd memory(::memfd_create("nndna-seccomp", MFD_CLOEXEC));
  if (!memory) return fail("memfd_create", -errno);
  if (int rc = seccomp_export_bpf(ctx, memory.get()); rc < 0) return fail("seccomp_export_bpf", rc);
  seccomp_release(ctx);
  const off_t size = ::lseek(memory.get(), 0, SEEK_END);
  if (size <= 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0) {
    filter.error = "seccomp_export_bpf wrote no program";
    return filter;
  }
  filter.program.resize(static_cast<std::size_t>(size) / sizeof(sock_filter));
  if (::pread(memory.get(), filter.program.data(), static_cast<std::size_t>(size), 0) != size) {
    filter.program.clear();
    filter.error = "cannot read the exported filter";
  }
  return filter;
}

}  // namespace

const SyscallFilter& syscallFilter() {
  static const SyscallFilter filter = build();
  return filter;
}

bool installSyscallFilter(const SyscallFilter& filter) {
  if (filter.program.empty()) {
    errno = ENOSYS;
    return false;
  }
  sock_fprog program{static_cast<unsigned short>(filter.program.size()),
                     const_cast<sock_filter*>(filter.program.data())};
  return ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) == 0;
}

}  // namespace nndna::specrun
