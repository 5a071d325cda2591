#include "cli/huge_page_heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <mutex>

#include "ir/huge_pages.hpp"

namespace nndna::cli {

void topUpHugePageHeap() {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  constexpr std::uintptr_t kHugePage = ir::kHugePageBytes;
  // What the heap grows by, at once (virtual). It must stay under the trim threshold below (at
  // most INT_MAX), or glibc hands the free top back at the next free().
  constexpr int kRoom = 1536 << 20;
  constexpr std::size_t kProbe = 20 << 20;    // less free than this at the top: grow
  constexpr int kLargestFromHeap = 32 << 20;  // glibc's largest mmap threshold
  static std::once_flag configured;
  static bool usable = false;
  std::call_once(configured, [] {
    // Keep free memory at the top of the heap (glibc would hand it back to the kernel, and the
    // next growth would touch fresh pages again), and let blocks up to 32 MiB come from the heap
    // rather than from mmaps of their own.
    usable = mallopt(M_TRIM_THRESHOLD, INT_MAX) != 0 && mallopt(M_MMAP_THRESHOLD, kLargestFromHeap) != 0;
  });
  if (!usable) return;
  // A block the heap's free top cannot hold makes it grow, by the block and the pad, now.
  const auto before = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  mallopt(M_TOP_PAD, kRoom);
  void* probe = std::malloc(kProbe);
  mallopt(M_TOP_PAD, 0);  // later growth (past the room) in ordinary steps
  const auto after = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  const auto at = reinterpret_cast<std::uintptr_t>(probe);
  // Grown, and the probe at the top of the brk heap (not in a block of its own elsewhere; it may
  // start below the old end, in the free top it was too large for): advise the whole huge pages
  // from the probe to the heap's new end.
  if (probe != nullptr && after > before && at < after && after - at >= kProbe) {
    const std::uintptr_t begin = (at + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t end = after & ~(kHugePage - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
  std::free(probe);
#endif
}

}  // namespace nndna::cli
