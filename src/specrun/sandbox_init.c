/* nndna-sandbox-init: PID 1 of a sandboxed run's PID namespace (sandbox.hpp, docs/specrun.md).

   runSandboxed's child sets up everything in nndna's own memory, as posix_spawn's child does
   (the namespaces, the minimal root, the descriptors, the working directory, the limits, no
   capabilities, the syscall filter) and then execs this small static program: it, and the
   program it starts, inherit all of that. It waits for nndna's go (the run's cgroups are joined
   by then), starts the program, reaps whatever ends up as its child, reports how the program
   ended on the status socket and exits; its exit ends every process left in the namespace.

   Everything it is given comes from nndna; it runs no code of the sandboxed program's. C, so that
   it can be built against musl, whose static start-up costs almost nothing (CMakeLists.txt). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "specrun/sandbox_protocol.h"

extern char** environ;

int main(int argc, char** argv) {
  /* Set before the exec already, and kept by it; again, in case a security module's change of
     label at the exec cleared it. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  /* The program runs as the same user: exec left this process dumpable, which would let the
     program read its memory and descriptors through /proc. */
  prctl(PR_SET_DUMPABLE, 0);
  fcntl(kInitStatusFd, F_SETFD, FD_CLOEXEC);
  /* Started with every signal blocked (its parent blocked them to share nndna's memory safely);
     the program starts with none blocked. */
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (argc <= kInitProgramArg + 1) {
    sendStatus(kInitStatusFd, kExecFailed, EINVAL, 0);
    return 127;
  }
  char go = 0;
  if (read(kInitGoFd, &go, 1) != 1) return 127; /* nndna stopped the run before its start */
  close(kInitGoFd);

  /* vfork: this process waits while its child, sharing its memory, makes system calls only. */
  const pid_t program = vfork();
  if (program == 0) {
    setpgid(0, 0);
    sendStatus(kInitStatusFd, kExecuting, 0, 0);
    execve(argv[kInitProgramArg], argv + kInitProgramArg + 1, environ);
    sendStatus(kInitStatusFd, kExecFailed, errno, 0);
    _exit(127);
  }
  if (program < 0) {
    sendStatus(kInitStatusFd, kExecFailed, errno, 0);
    return 127;
  }
  /* The program has its own copies; the output pipe closes when the last of the tree's is closed. */
  for (int fd = 0; fd <= 2; ++fd) close(fd);
  for (;;) {
    int status = 0;
    struct rusage usage;
    const pid_t done = wait4(-1, &status, 0, &usage);
    if (done < 0 && errno != EINTR) return 1;
    if (done == program) {
      long micros = usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
      const long secs = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + micros / 1000000;
      micros %= 1000000;
      sendStatus(kInitStatusFd, kProgramCpu, (int)secs, (int)micros);
      /* Alone: the program's own children were made this process's when it ended, so none is
         left anywhere in the namespace, and none can be made. nndna then goes on without
         waiting for this process's exit; otherwise that exit is what ends them. */
      const int alone = waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
      sendStatus(kInitStatusFd, kWaitStatus, status, alone);
      return 0;
    }
  }
}
