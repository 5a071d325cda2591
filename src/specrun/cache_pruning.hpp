// Internal to the spec runner: keeps the compile cache bounded. Without it every edited spec
// leaves a binary behind and every new nndna version a precompiled header (tens of MB) for good.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>

namespace nndna::specrun {

struct CacheLimits {
  std::size_t maxBinaries = 256;                           // compiled specs kept (bin/)
  std::uintmax_t maxBinaryBytes = std::uintmax_t{1} << 30;  // and their total size
  // PCH directories (pch/): one per toolchain and set of standard headers specs include
  // (about 30-40 MB each). Up to as many again used more recently than `pchInUse` stay: a
  // concurrent compile may have chosen one and not yet started g++.
  std::size_t maxPrecompiledHeaders = 6;
  std::chrono::minutes pchInUse{5};
  std::size_t maxSources = 256;  // texts runSpecSource stored (sources/), one directory each
  std::chrono::hours staleTemp{24};  // tmp/ work directories a killed run left behind
  // A binary's .cpp/.deps without the binary is removed once older than this: a concurrent
  // compile publishes them before its binary (a compile takes at most 120 s).
  std::chrono::minutes orphanAge{10};
};

// Marks a cache entry (a binary, a PCH directory or a stored source's directory) as just used:
// pruning drops the least recently used first. Errors are ignored (an entry another process just
// pruned is fine).
void touchCacheEntry(const std::filesystem::path& entry) noexcept;

// Removes the least recently used binaries (with their .deps and .cpp) past either limit, PCH
// directories and stored sources past theirs (a server stores every text a visitor sends), and
// tmp/ entries older than `staleTemp`. `keep` (the binary or PCH directory just
// made) is never removed. Entries other processes remove meanwhile are skipped; nothing throws.
void pruneCache(const std::filesystem::path& cache, const std::filesystem::path& keep,
                const CacheLimits& limits = {}) noexcept;

}  // namespace nndna::specrun
