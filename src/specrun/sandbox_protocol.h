/* What runSandboxed (sandbox.cpp) and the sandbox's init program (sandbox_init.c) agree on: the
   messages on the status socket and the descriptors init starts with. Both sides are nndna's own
   code, built together; nothing here is read from the sandboxed program. C as well as C++: init
   is a C program (CMakeLists.txt says why). */
#pragma once

#include <sys/socket.h>

#ifdef __cplusplus
namespace nndna::specrun::protocol {
#endif

/* Messages on the status socket (sandbox -> nndna), each three ints: {tag, a, b}. */
enum StatusTag {
  kExecFailed = 1, /* a: errno of the program's exec (or of the fork before it) */
  kWaitStatus = 2, /* a: the program's wait status; b: 1 when no other process of the run is
                      left (nndna need not wait for init's exit, which kills any) */
  kLayers = 3,     /* a: LayerBits now in force */
  kRootFailed = 4, /* a: the failed step, b: errno */
  kWorkDir = 5,    /* carries the working directory's descriptor (SCM_RIGHTS) */
  kJoinFailed = 6, /* a: the index in TreeLimitGroup::selfJoinFiles(), b: errno */
  kExecuting = 7,  /* every layer is set up: the program's exec follows */
  kInitFailed = 8, /* a: errno of init's own exec */
  kProgramCpu = 9, /* a, b: the program's CPU time, user + system, in seconds and microseconds
                      (sent just before kWaitStatus) */
};

enum LayerBits {
  kMinimalRoot = 1,
  kWorkDirTmpfs = 2,
  kSyscallFilter = 4,
  kProcessRlimit = 8,
  kDiesWithParent = 16,
};

enum InitStart {
  /* The descriptors init is started with, besides 0-2 (the program's stdin, stdout and stderr). */
  kInitStatusFd = 3, /* the status socket; init makes it close-on-exec itself */
  kInitGoFd = 4,     /* one byte from nndna once init is in the run's cgroups */
  /* init's command line: argv[1] the program's path, argv[2...] the program's own argv. */
  kInitProgramArg = 1,
};

static inline void sendStatus(int fd, int tag, int a, int b) {
  const int message[3] = {tag, a, b};
  (void)send(fd, message, sizeof(message), MSG_NOSIGNAL);
}

#ifdef __cplusplus
}  // namespace nndna::specrun::protocol
#endif
