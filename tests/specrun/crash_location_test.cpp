// locateCrash: a crash record (written by a stranger's program) mapped to a line of the user's
// code in a binary, here this test program itself, at the lines of the functions below.
#include "specrun/crash_location.hpp"

#include <gtest/gtest.h>
#include <link.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

namespace nndna::specrun {
namespace {

constexpr int kMarkedLine = __LINE__ + 1;
[[gnu::noinline]] int markedFunction(int x) { return x * 3 + 1; }

std::uint64_t programBase() {
  std::uint64_t base = 0;
  dl_iterate_phdr([](dl_phdr_info* info, std::size_t, void* out) {
    *static_cast<std::uint64_t*>(out) = info->dlpi_addr;
    return 1;
  }, &base);
  return base;
}

std::uint64_t marked() { return reinterpret_cast<std::uintptr_t>(&markedFunction); }

bool thisFile(std::string_view file) { return file.ends_with("crash_location_test.cpp"); }

std::optional<CrashLocation> locate(const nlohmann::json& record) {
  return locateCrash("/proc/self/exe", record, thisFile);
}

TEST(CrashLocation, TheFaultingInstructionsLine) {
  const auto at = locate({{"kind", "crash"}, {"base", programBase()}, {"pc", marked()}, {"returns", nlohmann::json::array()}});
  ASSERT_TRUE(at.has_value());
  EXPECT_TRUE(thisFile(at->file)) << at->file;
  EXPECT_EQ(at->line, kMarkedLine);
}

// A return address names the call before it: one byte back is still the call's line.
TEST(CrashLocation, AReturnAddressWhenThePcIsNotTheUsers) {
  const std::uint64_t base = programBase();
  const std::uint64_t outside = base - 4096;  // below the program: in no file of it
  EXPECT_EQ(locate({{"kind", "crash"}, {"base", base}, {"pc", outside}, {"top", marked() + 1}})->line, kMarkedLine);
  EXPECT_EQ(locate({{"kind", "crash"}, {"base", base}, {"pc", outside}, {"top", 0}, {"returns", {outside, marked() + 1}}})->line,
            kMarkedLine);
}

TEST(CrashLocation, OnlyTheUsersFilesAreNamed) {
  const nlohmann::json record{{"kind", "crash"}, {"base", programBase()}, {"pc", marked()}};
  EXPECT_FALSE(locateCrash("/proc/self/exe", record, [](std::string_view) { return false; }).has_value());
}

TEST(CrashLocation, RecordsNotWrittenByTheHandlerNameNothing) {
  const std::uint64_t base = programBase();
  for (const nlohmann::json& record : {
           nlohmann::json(),
           nlohmann::json::array({1, 2}),
           nlohmann::json{{"kind", "error"}, {"base", base}, {"pc", marked()}},
           nlohmann::json{{"kind", "crash"}, {"pc", marked()}},
           nlohmann::json{{"kind", "crash"}, {"base", "0x1000"}, {"pc", marked()}},
           nlohmann::json{{"kind", "crash"}, {"base", -5}, {"pc", marked()}},
           nlohmann::json{{"kind", "crash"}, {"base", base}, {"pc", static_cast<double>(marked())}},
           nlohmann::json{{"kind", "crash"}, {"base", base}, {"pc", -1}, {"top", "x"}, {"returns", "all"}},
           nlohmann::json{{"kind", "crash"}, {"base", marked() + 1}, {"pc", marked()}},  // below its base
           nlohmann::json{{"kind", 7}, {"base", base}, {"pc", marked()}},
       }) {
    EXPECT_FALSE(locate(record).has_value()) << record.dump();
  }
}

// The handler writes at most 64 return addresses: the reader looks at no more than that, so a
// record of a million addresses costs no more than a real one.
TEST(CrashLocation, ReturnAddressesBeyondTheHandlersAreIgnored) {
  const std::uint64_t base = programBase();
  nlohmann::json returns = nlohmann::json::array();
  for (int i = 0; i < 1'000'000; ++i) returns.push_back(base - 8);
  returns.push_back(marked() + 1);
  EXPECT_FALSE(locate({{"kind", "crash"}, {"base", base}, {"pc", base - 8}, {"returns", returns}}).has_value());
}

TEST(CrashLocation, AMissingBinaryNamesNothing) {
  EXPECT_FALSE(locateCrash("/nonexistent/spec-binary", {{"kind", "crash"}, {"base", 0}, {"pc", 4096}}, thisFile));
}

}  // namespace
}  // namespace nndna::specrun
