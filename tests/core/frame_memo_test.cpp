// The memo of resolved call sites a spec program keeps between its runs (trace/frame_memo.hpp),
// and the build ID that tells which binary wrote it.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "trace/frame_memo.hpp"
#include "trace/own_module.hpp"

namespace nndna::tracing {
namespace {

FrameMemo twoFrames() {
  FrameMemo memo;
  memo[0x1a2b] = {.user = true, .file = "/w/model.cpp", .line = 12, .column = 7, .relativeAddress = 0x1a2b,
                  .function = "Block::fwd"};
  memo[0x40] = {.user = false, .file = "/usr/include/c++/12/bits/std_function.h", .line = 290, .column = 9,
                .relativeAddress = 0x40, .function = ""};
  return memo;
}

TEST(FrameMemo, WritesFramesInAddressOrderAndReadsThemBack) {
  const std::string text = writeFrameMemo(twoFrames(), "ab12");
  EXPECT_EQ(text,
            R"({"frames":[[64,false,"/usr/include/c++/12/bits/std_function.h",290,9,""],)"
            R"([6699,true,"/w/model.cpp",12,7,"Block::fwd"]],"nndna_frame_memo":1,"program":"ab12"})");
  const std::optional<FrameMemo> back = readFrameMemo(text, "ab12");
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->size(), 2u);
  const ResolvedFrame& f = back->at(0x1a2b);
  EXPECT_TRUE(f.user);
  EXPECT_EQ(f.file, "/w/model.cpp");
  EXPECT_EQ(f.line, 12);
  EXPECT_EQ(f.column, 7);
  EXPECT_EQ(f.relativeAddress, 0x1a2bu);
  EXPECT_EQ(f.function, "Block::fwd");
  EXPECT_FALSE(back->at(0x40).user);
  EXPECT_EQ(back->at(0x40).line, 290);
}

TEST(FrameMemo, AnotherProgramsMemoIsNotRead) {
  EXPECT_FALSE(readFrameMemo(writeFrameMemo(twoFrames(), "ab12"), "ab13").has_value());
  EXPECT_FALSE(readFrameMemo(writeFrameMemo(twoFrames(), "ab12"), "").has_value());
}

TEST(FrameMemo, ANameThatIsNotUtf8StaysOut) {
  FrameMemo memo = twoFrames();
  memo[0x99] = {.user = true, .file = "/w/mod\xff.cpp", .line = 3, .column = 1, .relativeAddress = 0x99,
                .function = "f"};
  const std::optional<FrameMemo> back = readFrameMemo(writeFrameMemo(memo, "p"), "p");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->size(), 2u);
  EXPECT_FALSE(back->contains(0x99));
}

TEST(FrameMemo, AnythingButAWholeMemoIsRefused) {
  const std::string frame = R"([64,true,"/w/m.cpp",3,1,"f"])";
  const auto memo = [](const std::string& frames, const std::string& rest = R"("nndna_frame_memo":1,"program":"p")") {
    return R"({"frames":[)" + frames + "]," + rest + "}";
  };
  ASSERT_TRUE(readFrameMemo(memo(frame), "p").has_value());  // the well-formed one the others break
  for (const std::string& bad : {
           std::string(""), std::string("{}"), std::string("[]"), std::string("not json"),
           memo(frame).substr(0, 30),                                          // cut short
           memo(frame, R"("nndna_frame_memo":2,"program":"p")"),               // another version
           memo(frame, R"("nndna_frame_memo":1,"program":"p","extra":0)"),     // an unknown key
           memo(frame, R"("nndna_frame_memo":1,"program":7)"),                 // a program that is no ID
           memo(frame + "," + frame),                                          // an address twice
           memo(R"([-64,true,"/w/m.cpp",3,1,"f"])"),                           // a negative address
           memo(R"([64.5,true,"/w/m.cpp",3,1,"f"])"),                          // a fractional one
           memo(R"([64,1,"/w/m.cpp",3,1,"f"])"),                               // user not a boolean
           memo(R"([64,true,7,3,1,"f"])"),                                     // file not a string
           memo(R"([64,true,"/w/m.cpp",-3,1,"f"])"),                           // a negative line
           memo(R"([64,true,"/w/m.cpp",3,4294967296,"f"])"),                   // a column past int
           memo(R"([64,true,"/w/m.cpp",3,1])"),                                // a field missing
           memo(R"([64,true,"/w/m.cpp",3,1,"f",0])"),                          // a field too many
           memo(R"([64,true,")" + std::string(5000, 'a') + R"(",3,1,"f"])"),  // a file name too long
       }) {
    EXPECT_FALSE(readFrameMemo(bad, "p").has_value()) << bad.substr(0, 200);
  }
}

// The build ID the memo is tied to is the one the linker wrote, as binutils' readelf reads it from
// this test program's file.
TEST(FrameMemo, TheProgramsBuildIdIsTheLinkersNote) {
  const std::string command = "readelf -n '" + std::filesystem::read_symlink("/proc/self/exe").string() + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> readelf(::popen(command.c_str(), "r"), &::pclose);
  ASSERT_NE(readelf, nullptr);
  std::string output;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, readelf.get())) > 0;) output.append(buffer, n);
  const std::size_t at = output.find("Build ID: ");
  if (at == std::string::npos) GTEST_SKIP() << "readelf found no build ID (or no readelf):\n" << output;
  const std::string expected = output.substr(at + 10, output.find('\n', at) - at - 10);
  EXPECT_EQ(ownModule().programBuildId, expected);
  EXPECT_GE(expected.size(), 16u);
}

}  // namespace
}  // namespace nndna::tracing
