// ir::adviseHugePages marks whole 2 MiB pages of a large buffer for transparent huge pages, and
// nothing outside the buffer. Checked on the kernel's own record: the VmFlags of the memory
// mappings in /proc/self/smaps ("hg" = MADV_HUGEPAGE).
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ir/huge_pages.hpp"

namespace nndna {
namespace {

constexpr std::uintptr_t kHugePage = ir::kHugePageBytes;

// Whether the mapping that contains `address` carries the huge-page advice.
bool advisedAt(std::uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {  // a mapping's first line
      inside = begin <= address && address < end;
    } else if (inside && line.starts_with("VmFlags:")) {
      return line.find(" hg") != std::string::npos;
    }
  }
  return false;
}

TEST(HugePages, AdvisesTheWholeHugePagesInsideABufferAndNothingElse) {
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  // 12 MiB mapped so that 2 MiB-aligned pages lie inside it; the buffer given to the advice starts
  // 1 MiB past an aligned address and is 8 MiB long: the whole huge pages inside it are the three
  // from aligned + 2 MiB to aligned + 8 MiB.
  const std::size_t mapped = 12 << 20;
  void* map = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  const std::uintptr_t aligned = (reinterpret_cast<std::uintptr_t>(map) + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t start = aligned + (1 << 20);
  ir::adviseHugePages(reinterpret_cast<const void*>(start), std::size_t{8} << 20);
  EXPECT_FALSE(advisedAt(start));                   // the partial page the buffer starts in
  EXPECT_TRUE(advisedAt(aligned + kHugePage));      // the first whole page
  EXPECT_TRUE(advisedAt(aligned + 4 * kHugePage - 1));  // the last whole page's end
  EXPECT_FALSE(advisedAt(aligned + 4 * kHugePage));  // the partial page it ends in
  // A buffer under two huge pages is left alone.
  ir::adviseHugePages(reinterpret_cast<const void*>(aligned), std::size_t{3} << 20);
  EXPECT_FALSE(advisedAt(aligned));
  ::munmap(map, mapped);
}

}  // namespace
}  // namespace nndna
