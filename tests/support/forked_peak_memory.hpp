// The peak memory a function adds to a process, measured in a forked child: the heap the parent
// freed is given back first (malloc_trim), the peak a child inherits is reset to its current
// resident size (/proc/self/clear_refs), and the growth of VmHWM over VmRSS is what `fn` made
// resident. Shared by tests and benchmarks of bounded readers. -1 under AddressSanitizer (its
// quarantine keeps freed memory resident: RSS says nothing) or when the fork fails.
#pragma once

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace nndna::testing {

template <class Fn>
long forkedPeakBytes(Fn&& fn) {
#if defined(__SANITIZE_ADDRESS__)
  (void)fn;
  return -1;
#else
  auto statusKb = [](const std::string& field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
    }
    return -1L;
  };
  int fds[2];
  if (pipe(fds) != 0) return -1;
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    close(fds[0]);
    malloc_trim(0);
    std::ofstream("/proc/self/clear_refs") << "5";
    const long before = statusKb("VmRSS");
    fn();
    const long grown = (statusKb("VmHWM") - before) * 1024;
    (void)!write(fds[1], &grown, sizeof grown);
    _exit(0);
  }
  close(fds[1]);
  long grown = -1;
  (void)!read(fds[0], &grown, sizeof grown);
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  return grown;
#endif
}

}  // namespace nndna::testing
