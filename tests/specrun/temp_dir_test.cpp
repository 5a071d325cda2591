// TempDir: made now, or only named until something needs it on disk.
#include "specrun/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <system_error>

namespace nndna::specrun {
namespace {

namespace fs = std::filesystem;

TEST(TempDir, MadeNowIsAPrivateDirectoryRemovedWithItsFiles) {
  fs::path path;
  {
    const TempDir dir(fs::temp_directory_path(), "temp-dir-test-");
    path = dir.path();
    EXPECT_EQ(path.parent_path(), fs::temp_directory_path());
    EXPECT_TRUE(path.filename().string().starts_with("temp-dir-test-"));
    EXPECT_EQ(path.filename().string().size(), std::string("temp-dir-test-").size() + 6);
    ASSERT_TRUE(fs::is_directory(path));
    EXPECT_EQ(fs::status(path).permissions(), fs::perms::owner_all);
    std::ofstream(path / "file") << "x";
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(TempDir, MadeWhenNeededIsOnlyNamedUntilMadeAndRemovedIfMade) {
  const TempDir parent(fs::temp_directory_path(), "temp-dir-test-");
  fs::path path;
  {
    const TempDir named(parent.path(), "run-", TempDir::Made::whenNeeded);
    path = named.path();
    EXPECT_EQ(path.parent_path(), parent.path());
    EXPECT_EQ(path.filename().string().size(), std::string("run-").size() + 6);
    EXPECT_FALSE(fs::exists(path));
  }
  EXPECT_TRUE(fs::is_empty(parent.path()));  // never made, nothing to remove
  {
    const TempDir named(parent.path(), "run-", TempDir::Made::whenNeeded);
    path = named.path();
    named.make();
    ASSERT_TRUE(fs::is_directory(path));
    EXPECT_EQ(fs::status(path).permissions(), fs::perms::owner_all);
    named.make();  // already this user's: accepted
    std::ofstream(path / "file") << "x";
  }
  EXPECT_FALSE(fs::exists(path));
  // Two names in a row differ.
  const TempDir a(parent.path(), "run-", TempDir::Made::whenNeeded);
  const TempDir b(parent.path(), "run-", TempDir::Made::whenNeeded);
  EXPECT_NE(a.path(), b.path());
}

// What make() will not take for the directory it was to make: a link (to a directory it would
// then write in), a file, another user's directory.
TEST(TempDir, MakeRefusesALinkAFileAndAnotherUsersDirectory) {
  const TempDir parent(fs::temp_directory_path(), "temp-dir-test-");
  fs::create_directory(parent.path() / "target");
  fs::create_directory_symlink(parent.path() / "target", parent.path() / "link");
  std::ofstream(parent.path() / "file") << "x";
  for (const char* taken : {"link", "file"}) {
    errno = 0;
    EXPECT_FALSE(makePrivateDirectory(parent.path() / taken)) << taken;
    EXPECT_EQ(errno, EEXIST) << taken;
  }
  EXPECT_TRUE(makePrivateDirectory(parent.path() / "target"));
  if (::geteuid() == 0) {
    fs::create_directory(parent.path() / "theirs");
    ASSERT_EQ(::chown((parent.path() / "theirs").c_str(), 65534, 65534), 0);
    EXPECT_FALSE(makePrivateDirectory(parent.path() / "theirs"));
  }
  EXPECT_FALSE(makePrivateDirectory(parent.path() / "missing" / "below"));
  EXPECT_EQ(errno, ENOENT);
}

}  // namespace
}  // namespace nndna::specrun
