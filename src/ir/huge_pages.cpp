#include "ir/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace nndna::ir {

void adviseHugePages(const void* data, std::size_t bytes) {
  constexpr std::uintptr_t kHugePage = ir::kHugePageBytes;
  if (data == nullptr || bytes < 2 * kHugePage) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHugePage - 1) & ~(kHugePage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHugePage - 1);
  // Only pages of this allocation are covered (whole huge pages inside it); a failure (a kernel
  // without THP) leaves ordinary pages, which are correct, just slower.
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace nndna::ir
