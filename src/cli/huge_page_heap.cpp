#include "cli/huge_page_heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <mutex>

namespace nndna::cli {

void backHeapWithHugePages() {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  static std::once_flag once;
  std::call_once(once, [] {
    constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
    constexpr int kReserve = 1 << 30;       // what the heap grows by, at once
    constexpr int kLargestFromHeap = 32 << 20;  // glibc's largest mmap threshold
    // Keep the reserve (glibc would hand a free top of the heap back to the kernel), let blocks
    // up to 32 MiB come from the heap rather than from mmaps of their own, and grow the heap by
    // the reserve at its next growth.
    if (mallopt(M_TRIM_THRESHOLD, INT_MAX) == 0 || mallopt(M_MMAP_THRESHOLD, kLargestFromHeap) == 0 ||
        mallopt(M_TOP_PAD, kReserve) == 0) {
      return;
    }
    // A block larger than the heap's free top makes that growth happen now.
    void* probe = std::malloc(std::size_t{8} << 20);
    const auto heapEnd = reinterpret_cast<std::uintptr_t>(::sbrk(0));
    const auto begin = (reinterpret_cast<std::uintptr_t>(probe) + kHugePage - 1) & ~(kHugePage - 1);
    const auto end = heapEnd & ~(kHugePage - 1);
    // The probe lies in the brk heap unless glibc had to take its memory elsewhere: then the range
    // is empty and nothing is advised.
    if (probe != nullptr && reinterpret_cast<std::uintptr_t>(probe) < heapEnd && end > begin) {
      ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    }
    std::free(probe);
    mallopt(M_TOP_PAD, 0);  // later growth (past the reserve) in ordinary steps
  });
#endif
}

}  // namespace nndna::cli
