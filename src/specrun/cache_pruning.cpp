#include "specrun/cache_pruning.hpp"

#include <algorithm>
#include <string>
#include <system_error>
#include <vector>

namespace nndna::specrun {

namespace fs = std::filesystem;

namespace {

struct Entry {
  fs::path path;
  fs::file_time_type used;
  std::uintmax_t bytes = 0;
};

// The entries of `dir` that `include` accepts, most recently used first.
template <class Include>
std::vector<Entry> entriesByRecency(const fs::path& dir, Include include) {
  std::vector<Entry> entries;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!include(it->path())) continue;
    std::error_code statError;
    const auto used = fs::last_write_time(it->path(), statError);
    if (statError) continue;  // removed meanwhile
    const auto bytes = it->is_regular_file(statError) ? fs::file_size(it->path(), statError) : 0;
    entries.push_back({it->path(), used, statError ? 0 : bytes});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used > b.used; });
  return entries;
}

// A binary's companions: the user's headers it depends on, the text it was compiled from, and
// the memo of its call sites (child_protocol.hpp, kFrameMemoFile).
constexpr const char* kCompanions[] = {".deps", ".cpp", ".frames"};

bool isCompanion(const fs::path& p) {
  for (const char* extension : kCompanions) {
    if (p.extension() == extension) return true;
  }
  return false;
}

void pruneBinaries(const fs::path& bin, const fs::path& keep, const CacheLimits& limits) {
  const std::vector<Entry> binaries = entriesByRecency(bin, [](const fs::path& p) { return !isCompanion(p); });
  std::size_t kept = 0;
  std::uintmax_t bytes = 0;
  for (const Entry& e : binaries) {
    const bool fits = kept < limits.maxBinaries && bytes + e.bytes <= limits.maxBinaryBytes;
    if (fits || e.path == keep) {
      ++kept;
      bytes += e.bytes;
      continue;
    }
    std::error_code ec;
    fs::remove(e.path, ec);
    for (const char* extension : kCompanions) fs::remove(fs::path(e.path.string() + extension), ec);
  }
  // A companion whose binary is gone (removed by hand, or a compile killed between the renames).
  // A recent one may be a concurrent compile's, published just before its binary: it stays.
  const auto orphanedBefore = fs::file_time_type::clock::now() - limits.orphanAge;
  for (const Entry& e : entriesByRecency(bin, isCompanion)) {
    if (e.used >= orphanedBefore) continue;
    std::error_code ec;
    const fs::path binary = fs::path(e.path).replace_extension();
    if (!fs::exists(binary, ec) && !ec) fs::remove(e.path, ec);
  }
}

// Keeps the `count` most recently used directories of `dir`, `keep`, and up to `count` more
// used since `inUseSince` (bounded: texts a server is sent choose the PCH sets).
void pruneDirectories(const fs::path& dir, const fs::path& keep, std::size_t count,
                      fs::file_time_type inUseSince = fs::file_time_type::max()) {
  std::size_t kept = 0;
  for (const Entry& e : entriesByRecency(dir, [](const fs::path&) { return true; })) {
    if (kept < count || e.path == keep || (e.used >= inUseSince && kept < 2 * count)) {
      ++kept;
      continue;
    }
    std::error_code ec;
    // Used by another process since the listing: it stays (narrows, does not close, the race).
    if (inUseSince != fs::file_time_type::max() && fs::last_write_time(e.path, ec) >= inUseSince) continue;
    fs::remove_all(e.path, ec);
  }
}

void pruneStaleTemp(const fs::path& tmp, const CacheLimits& limits) {
  const auto cutoff = fs::file_time_type::clock::now() - limits.staleTemp;
  for (const Entry& e : entriesByRecency(tmp, [](const fs::path&) { return true; })) {
    if (e.used >= cutoff) continue;
    std::error_code ec;
    fs::remove_all(e.path, ec);
  }
}

}  // namespace

void touchCacheEntry(const fs::path& entry) noexcept {
  std::error_code ec;
  fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);
}

void pruneCache(const fs::path& cache, const fs::path& keep, const CacheLimits& limits) noexcept {
  try {
    pruneBinaries(cache / "bin", keep, limits);
    pruneDirectories(cache / "pch", keep, limits.maxPrecompiledHeaders,
                     fs::file_time_type::clock::now() - limits.pchInUse);
    pruneDirectories(cache / "sources", keep, limits.maxSources);
    pruneStaleTemp(cache / "tmp", limits);
  } catch (...) {
    // Pruning is housekeeping: an allocation failure here must not fail the user's run.
  }
}

}  // namespace nndna::specrun
