// The compile cache stays bounded: least recently used binaries (and their .deps) past the count
// or size limit, surplus precompiled headers and stored sources, and stale temporary directories
// are removed.
#include "specrun/cache_pruning.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "specrun/temp_dir.hpp"

namespace nndna::specrun {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class CachePruning : public ::testing::Test {
 protected:
  TempDir cache_{fs::temp_directory_path(), "nndna-prune-test-"};
  const fs::file_time_type now_ = fs::file_time_type::clock::now();

  // A file of `bytes` bytes last used `age` ago.
  fs::path file(const fs::path& relative, std::size_t bytes, fs::file_time_type::duration age) {
    const fs::path p = cache_.path() / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << std::string(bytes, 'x');
    fs::last_write_time(p, now_ - age);
    return p;
  }
  fs::path binary(const std::string& name, std::size_t bytes, fs::file_time_type::duration age) {
    file("bin/" + name + ".deps", 10, age);
    file("bin/" + name + ".cpp", 10, age);
    return file("bin/" + name, bytes, age);
  }
  fs::path directory(const fs::path& relative, fs::file_time_type::duration age) {
    const fs::path p = cache_.path() / relative;
    fs::create_directories(p);
    std::ofstream(p / "content") << "x";
    fs::last_write_time(p, now_ - age);
    return p;
  }
  bool has(const fs::path& relative) const { return fs::exists(cache_.path() / relative); }
};

TEST_F(CachePruning, KeepsTheMostRecentlyUsedBinariesUpToTheCount) {
  for (int i = 0; i < 5; ++i) binary("b" + std::to_string(i), 100, std::chrono::minutes(i));
  CacheLimits limits;
  limits.maxBinaries = 3;
  pruneCache(cache_.path(), {}, limits);
  EXPECT_TRUE(has("bin/b0") && has("bin/b1") && has("bin/b2"));
  EXPECT_FALSE(has("bin/b3") || has("bin/b4"));
  EXPECT_TRUE(has("bin/b2.deps") && has("bin/b2.cpp"));
  EXPECT_FALSE(has("bin/b3.deps") || has("bin/b4.deps"));  // gone with their binaries
  EXPECT_FALSE(has("bin/b3.cpp") || has("bin/b4.cpp"));
}

TEST_F(CachePruning, KeepsBinariesUpToTheTotalSize) {
  binary("new", 600, 1min);
  binary("mid", 300, 2min);
  binary("old", 200, 3min);
  CacheLimits limits;
  limits.maxBinaryBytes = 1000;  // 600 + 300 fit; + 200 would not
  pruneCache(cache_.path(), {}, limits);
  EXPECT_TRUE(has("bin/new") && has("bin/mid"));
  EXPECT_FALSE(has("bin/old"));
}

TEST_F(CachePruning, NeverRemovesTheEntryJustMade) {
  const fs::path big = binary("just_made", 5000, 10min);
  binary("recent", 10, 1min);
  CacheLimits limits;
  limits.maxBinaries = 1;
  limits.maxBinaryBytes = 100;
  pruneCache(cache_.path(), big, limits);
  EXPECT_TRUE(has("bin/just_made"));
  EXPECT_TRUE(has("bin/recent"));  // the one within the limits
}

TEST_F(CachePruning, TouchingAnEntryMakesItRecent) {
  binary("a", 10, 1min);
  const fs::path b = binary("b", 10, 5min);
  touchCacheEntry(b);
  CacheLimits limits;
  limits.maxBinaries = 1;
  pruneCache(cache_.path(), {}, limits);
  EXPECT_TRUE(has("bin/b"));
  EXPECT_FALSE(has("bin/a"));
}

TEST_F(CachePruning, RemovesOrphanedDepsFiles) {
  file("bin/lost.deps", 10, 1h);
  file("bin/lost.cpp", 10, 1h);
  binary("kept", 10, 1min);
  pruneCache(cache_.path(), {});
  EXPECT_FALSE(has("bin/lost.deps") || has("bin/lost.cpp"));
  EXPECT_TRUE(has("bin/kept.deps") && has("bin/kept.cpp"));
}

// A concurrent compile publishes the text and the header list before its binary: pruning in
// that moment (another process's compile) must not take them (a designer test once failed so:
// "cannot build the sandbox's filesystem (bind .../bin/<key>.cpp ...)").
TEST_F(CachePruning, KeepsRecentCompanionsWhoseBinaryIsNotPublishedYet) {
  file("bin/arriving.deps", 10, 1min);
  file("bin/arriving.cpp", 10, 1min);
  pruneCache(cache_.path(), {});
  EXPECT_TRUE(has("bin/arriving.deps") && has("bin/arriving.cpp"));
}

TEST_F(CachePruning, KeepsTheMostRecentPrecompiledHeaders) {
  // One directory per toolchain and set of standard headers a spec includes; six by default.
  for (int i = 1; i <= 8; ++i) directory("pch/set" + std::to_string(i), std::chrono::hours(i));
  pruneCache(cache_.path(), {});
  for (int i = 1; i <= 6; ++i) EXPECT_TRUE(has("pch/set" + std::to_string(i))) << i;
  EXPECT_FALSE(has("pch/set7") || has("pch/set8"));
}

// A PCH directory used in the last minutes may be in use by a compile that chose it and has not
// started yet: it stays past the count, up to twice the count (a server's visitors choose the sets).
TEST_F(CachePruning, KeepsPrecompiledHeadersUsedInTheLastMinutes) {
  for (int i = 1; i <= 5; ++i) directory("pch/recent" + std::to_string(i), std::chrono::minutes(i));
  directory("pch/old", 1h);
  CacheLimits limits;
  limits.maxPrecompiledHeaders = 2;
  pruneCache(cache_.path(), {}, limits);
  for (int i = 1; i <= 4; ++i) EXPECT_TRUE(has("pch/recent" + std::to_string(i))) << i;
  EXPECT_FALSE(has("pch/recent5")) << "past twice the count";
  EXPECT_FALSE(has("pch/old"));
}

// A server stores every text a visitor sends (runSpecSource): without a bound, sources/ grows
// for good.
TEST_F(CachePruning, KeepsTheMostRecentlyUsedSources) {
  for (int i = 0; i < 5; ++i) directory("sources/s" + std::to_string(i), std::chrono::minutes(i));
  CacheLimits limits;
  limits.maxSources = 2;
  pruneCache(cache_.path(), {}, limits);
  EXPECT_TRUE(has("sources/s0/content") && has("sources/s1/content"));
  EXPECT_FALSE(has("sources/s2") || has("sources/s3") || has("sources/s4"));
}

TEST_F(CachePruning, RemovesOnlyStaleTemporaryDirectories) {
  directory("tmp/compile-killed", 30h);
  directory("tmp/compile-running", 1min);
  pruneCache(cache_.path(), {});
  EXPECT_FALSE(has("tmp/compile-killed"));
  EXPECT_TRUE(has("tmp/compile-running"));
}

TEST_F(CachePruning, AnEmptyOrMissingCacheIsFine) {
  pruneCache(cache_.path(), {});
  pruneCache(cache_.path() / "does-not-exist", {});
  EXPECT_TRUE(fs::exists(cache_.path()));
}

}  // namespace
}  // namespace nndna::specrun
