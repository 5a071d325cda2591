// Large arrays of a graph ask the kernel for transparent huge pages.
//
// A graph of a million ops is read at random by tensor and op id (validation, shape rules,
// autodiff, the diagram's walks); with 4 KiB pages most of those reads miss the TLB. Linux backs
// memory with 2 MiB pages only where a program asks (madvise(MADV_HUGEPAGE), the default
// "madvise" mode), and glibc asks only when told to by GLIBC_TUNABLES before the program starts.
// So the few arrays that grow with the model ask for themselves. Arrays under 4 MiB are left alone.
#pragma once

#include <cstddef>
#include <vector>

#include "nndna/export.hpp"

namespace nndna::ir {

// The size of a transparent huge page on x86-64 (the PMD size).
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// Advises huge pages for the whole 2 MiB pages inside [data, data + bytes); a no-op when the
// range is small or the kernel declines.
NNDNA_API void adviseHugePages(const void* data, std::size_t bytes);

// The same for a vector's allocated storage (call it after reserving or growing).
template <class T>
void adviseHugePages(const std::vector<T>& v) {
  adviseHugePages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace nndna::ir
