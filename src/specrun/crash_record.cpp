#include "specrun/crash_record.hpp"

#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace nndna::specrun::child {
namespace {

int crashFd = -1;
std::uintptr_t programBase = 0;
std::uintptr_t stackLow = 0;
std::uintptr_t stackHigh = 0;
constexpr int kMaxReturns = 64;
alignas(16) char handlerStack[64 << 10];

// A fixed buffer the handler formats into: no allocation, no locale, no stdio.
class Record {
 public:
  void add(std::string_view text) {
    for (char c : text) {
      if (size_ < sizeof text_) text_[size_++] = c;
    }
  }
  void add(std::uintptr_t value) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (n > 0) add(std::string_view(&digits[--n], 1));
  }
  std::string_view text() const { return {text_, size_}; }

 private:
  char text_[2048];
  std::size_t size_ = 0;
};

// A frame the handler may read (two words: the caller's frame pointer and the return address):
// aligned and on the main thread's stack. Written so that no sum can wrap around.
bool onStack(std::uintptr_t address) {
  return address % alignof(std::uintptr_t) == 0 && stackHigh - stackLow >= 2 * sizeof(std::uintptr_t) &&
         address >= stackLow && address <= stackHigh - 2 * sizeof(std::uintptr_t);
}

std::uintptr_t wordAt(std::uintptr_t address) { return *reinterpret_cast<const std::uintptr_t*>(address); }

// Whether a fault at `fault` with the stack pointer at `sp` is the stack running out: the stack
// pointer within the lowest 64 KiB the main thread's stack may take (or below), and the fault
// within 64 KiB of it (a frame written below the last page the stack could grow to).
bool stackRanOut(std::uintptr_t fault, std::uintptr_t sp) {
  constexpr std::uintptr_t kMargin = 64 << 10;
  if (stackLow < kMargin || stackHigh <= stackLow) return false;
  return sp < stackLow + kMargin && fault + kMargin >= sp && fault <= sp + kMargin;
}

void onCrash(int signal, siginfo_t* info, void* context) {
  Record record;
  record.add("{\"kind\":\"crash\",\"base\":");
  record.add(programBase);
#if defined(__x86_64__)
  const auto& registers = static_cast<const ucontext_t*>(context)->uc_mcontext.gregs;
  const auto pc = static_cast<std::uintptr_t>(registers[REG_RIP]);
  const auto sp = static_cast<std::uintptr_t>(registers[REG_RSP]);
  auto fp = static_cast<std::uintptr_t>(registers[REG_RBP]);
  if (signal == SIGSEGV && stackRanOut(reinterpret_cast<std::uintptr_t>(info->si_addr), sp)) {
    record.add(",\"stack_overflow\":true");
  }
  record.add(",\"pc\":");
  record.add(pc);
  record.add(",\"top\":");
  record.add(onStack(sp) ? wordAt(sp) : std::uintptr_t{0});
  record.add(",\"returns\":[");
  // The frame layout the spec is compiled for (-fno-omit-frame-pointer): [fp] = the caller's fp,
  // [fp + 8] = the return address. A register that is not a frame pointer (in a library's code)
  // ends the walk at the first word off the stack.
  for (int n = 0; n < kMaxReturns && onStack(fp); ++n) {
    const std::uintptr_t next = wordAt(fp);
    const std::uintptr_t ret = wordAt(fp + sizeof(std::uintptr_t));
    if (ret == 0) break;
    if (n > 0) record.add(",");
    record.add(ret);
    if (next <= fp) break;
    fp = next;
  }
  record.add("]");
#else
  (void)info;
  (void)context;
#endif
  record.add("}");
  const std::string_view text = record.text();
  [[maybe_unused]] const ssize_t wrote = ::pwrite(crashFd, text.data(), text.size(), 0);
  // SA_RESETHAND restored the default action: the faulting instruction, run again on return,
  // ends the program with this signal; a signal that was sent (kill) is sent again.
  ::raise(signal);
}

int recordProgramBase(dl_phdr_info* info, std::size_t, void*) {
  programBase = info->dlpi_addr;  // the first object is the program itself
  return 1;
}

}  // namespace

void recordCrashesTo(int errorFd) {
  if (errorFd < 0) return;
  crashFd = errorFd;
  dl_iterate_phdr(recordProgramBase, nullptr);
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
    void* low = nullptr;
    std::size_t size = 0;
    if (pthread_attr_getstack(&attributes, &low, &size) == 0) {
      stackLow = reinterpret_cast<std::uintptr_t>(low);
      stackHigh = stackLow + size;
    }
    pthread_attr_destroy(&attributes);
  }
  stack_t alternate{};
  alternate.ss_sp = handlerStack;
  alternate.ss_size = sizeof handlerStack;
  if (::sigaltstack(&alternate, nullptr) != 0) return;
  struct sigaction action{};
  action.sa_sigaction = onCrash;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) ::sigaction(signal, &action, nullptr);
}

}  // namespace nndna::specrun::child
