// Reading what a sandboxed program left in its directory (issue 9.5): only regular files with one
// link, never through a symbolic link, never blocking on a FIFO, never past the bound.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "specrun/child_files.hpp"
#include "specrun/temp_dir.hpp"
#include "specrun/unique_fd.hpp"

namespace nndna::specrun {
namespace {

namespace fs = std::filesystem;

class ChildFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_.path() / "ir.json") << "{\"ok\": true}";
    std::ofstream(secret_.path() / "secret.txt") << "the parent's secret";
    fd_.reset(::open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(fd_);
  }
  TempDir dir_{fs::temp_directory_path(), "child-files-test-"};
  TempDir secret_{fs::temp_directory_path(), "child-files-secret-"};
  UniqueFd fd_;
};

TEST_F(ChildFiles, ReadsARegularFile) {
  const ChildFile file = readChildFile(fd_.get(), "ir.json", 100);
  EXPECT_EQ(file.status, ChildFileStatus::ok);
  EXPECT_EQ(file.text, "{\"ok\": true}");
  EXPECT_EQ(file.size, 12u);
}

TEST_F(ChildFiles, MissingIsMissing) {
  EXPECT_EQ(readChildFile(fd_.get(), "error.json", 100).status, ChildFileStatus::missing);
}

TEST_F(ChildFiles, NeverFollowsASymbolicLink) {
  fs::create_symlink(secret_.path() / "secret.txt", dir_.path() / "error.json");
  fs::create_symlink("/proc/self/environ", dir_.path() / "environ.json");
  for (const char* name : {"error.json", "environ.json"}) {
    const ChildFile file = readChildFile(fd_.get(), name, 1 << 20);
    EXPECT_EQ(file.status, ChildFileStatus::notRegular) << name;
    EXPECT_EQ(file.error, "a symbolic link") << name;
    EXPECT_TRUE(file.text.empty()) << name;
  }
  EXPECT_EQ(copyChildFile(fd_.get(), "error.json", dir_.path() / "copy", 1 << 20), ChildFileStatus::notRegular);
  EXPECT_FALSE(fs::exists(dir_.path() / "copy"));
}

TEST_F(ChildFiles, AFifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo((dir_.path() / "error.json").c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(readChildFile(fd_.get(), "error.json", 100).status, ChildFileStatus::notRegular);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(ChildFiles, ADirectoryIsRefused) {
  fs::create_directory(dir_.path() / "error.json");
  EXPECT_EQ(readChildFile(fd_.get(), "error.json", 100).status, ChildFileStatus::notRegular);
}

TEST_F(ChildFiles, AFileWithASecondHardLinkIsRefused) {
  // Where the directory is the host's, a hard link could name a file outside it.
  fs::create_hard_link(dir_.path() / "ir.json", dir_.path() / "other.json");
  const ChildFile file = readChildFile(fd_.get(), "ir.json", 100);
  EXPECT_EQ(file.status, ChildFileStatus::notRegular);
  EXPECT_EQ(file.error, "a file with several hard links");
}

TEST_F(ChildFiles, ALargerFileIsNotRead) {
  const ChildFile file = readChildFile(fd_.get(), "ir.json", 11);
  EXPECT_EQ(file.status, ChildFileStatus::tooLarge);
  EXPECT_EQ(file.size, 12u);
  EXPECT_TRUE(file.text.empty());
  EXPECT_EQ(copyChildFile(fd_.get(), "ir.json", dir_.path() / "copy", 11), ChildFileStatus::tooLarge);
  EXPECT_FALSE(fs::exists(dir_.path() / "copy"));
}

TEST_F(ChildFiles, NamesThatLeaveTheDirectoryAreRefused) {
  for (const char* name : {"../x", "a/b", "..", ".", ""}) {
    EXPECT_EQ(readChildFile(fd_.get(), name, 100).status, ChildFileStatus::unreadable) << name;
  }
}

TEST_F(ChildFiles, CopiesRegularFilesOnly) {
  fs::create_symlink(secret_.path() / "secret.txt", dir_.path() / "link.txt");
  std::ofstream(dir_.path() / "notes.txt") << "notes";
  TempDir to(fs::temp_directory_path(), "child-files-copy-");
  copyChildFiles(fd_.get(), to.path(), 1 << 20);
  std::vector<std::string> copied;
  for (const auto& entry : fs::directory_iterator(to.path())) copied.push_back(entry.path().filename().string());
  std::sort(copied.begin(), copied.end());
  EXPECT_EQ(copied, (std::vector<std::string>{"ir.json", "notes.txt"}));
  EXPECT_EQ(fs::file_size(to.path() / "ir.json"), 12u);
}

}  // namespace
}  // namespace nndna::specrun
