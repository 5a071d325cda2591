// Memory for finished-span records.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

#include "xray/recorder.hpp"

namespace nndna::xray::detail {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

// Large chunks are mapped directly, aligned to 2 MiB and advised as a huge page, so a chunk
// costs one page fault rather than 512, and freeing it returns it to the system at once.
void* mapAligned(std::size_t bytes) {
  std::size_t span = bytes + kHugePage;
  void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  auto start = reinterpret_cast<std::uintptr_t>(raw);
  std::uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  // Give back the unaligned head and the tail.
  if (aligned > start) ::munmap(raw, aligned - start);
  std::size_t tail = (start + span) - (aligned + bytes);
  if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  void* memory = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  (void)::madvise(memory, bytes, MADV_HUGEPAGE);  // advice only: small pages work too
#endif
  return memory;
}

}  // namespace

void Chunk::FreeMemory::operator()(void* p) const noexcept {
  if (bytes >= kHugePage) ::munmap(p, bytes);
  else std::free(p);
}

void* Chunk::allocate(std::size_t bytes) {
  void* memory = bytes >= kHugePage ? mapAligned(bytes) : std::malloc(bytes);
  if (memory == nullptr) throw std::bad_alloc();
  return memory;
}

Chunk::Chunk(std::uint32_t capacity)
    : capacity_(capacity),
      memory_(allocate(std::size_t{capacity} * sizeof(FinishedSpan)), FreeMemory{std::size_t{capacity} * sizeof(FinishedSpan)}),
      records_(static_cast<FinishedSpan*>(memory_.get())) {}

Chunk::~Chunk() { clear(); }

void Chunk::clear() noexcept {
  std::uint32_t n = count_.load(std::memory_order_relaxed);
  std::destroy(records_, records_ + n);
  count_.store(0, std::memory_order_relaxed);
  generation = 0;
}

}  // namespace nndna::xray::detail
