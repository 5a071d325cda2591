// Text from a spec reaching pages, Graphviz and the terminal (issue 9, small things): control
// characters, bytes that are not UTF-8, terminal escape sequences. Expected strings are written
// out by hand (U+2401 is E2 90 81, U+FFFD is EF BF BD).
#include <gtest/gtest.h>

#include "render/escape.hpp"

namespace nndna::render {
namespace {

TEST(CleanText, ControlCharactersBecomeTheirPictures) {
  EXPECT_EQ(cleanText("a\x01" "b"), "a\xE2\x90\x81" "b");
  EXPECT_EQ(cleanText(std::string_view("\x00\x1b\x1f", 3)), "\xE2\x90\x80\xE2\x90\x9B\xE2\x90\x9F");
  EXPECT_EQ(cleanText("tab\tnewline\ncr\r"), "tab\tnewline\ncr\r");
}

TEST(CleanText, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  EXPECT_EQ(cleanText("l\xff\xfe"), "l\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(cleanText("\xc3\x28"), "\xEF\xBF\xBD(");              // a lead byte without its continuation
  EXPECT_EQ(cleanText("\xe2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // cut short at the end
  EXPECT_EQ(cleanText("\xc0\xaf"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(cleanText("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(cleanText("\xf4\x90\x80\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // past U+10FFFF
}

TEST(CleanText, ValidUtf8IsKept) {
  const std::string text = "[B, T, D] \xC3\x97" "12 \xE2\x86\x92 \xF0\x9F\x98\x80 \xE2\x80\xA8";
  EXPECT_EQ(cleanText(text), text);
}

TEST(EscapeXml, EscapesMarkupAndCleansText) {
  EXPECT_EQ(escapeXml("<a href=\"x\">&'\x01\xff"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\xE2\x90\x81\xEF\xBF\xBD");
}

TEST(EscapeForTerminal, EscapeSequencesArePrintedAsText) {
  EXPECT_EQ(escapeForTerminal("\x1b]0;title\x07" "red \x1b[31mx\x1b[0m\n\tok"),
            "\\x1b]0;title\\x07red \\x1b[31mx\\x1b[0m\n\tok");
  EXPECT_EQ(escapeForTerminal("over\rwrite\x7f"), "over\\x0dwrite\\x7f");
  EXPECT_EQ(escapeForTerminal("csi \xc2\x9b" "2J"), "csi \\xc2\\x9b2J");  // U+009B, a C1 control
  EXPECT_EQ(escapeForTerminal("raw \x9b" "2J \xff"), "raw \\x9b2J \\xff");  // not UTF-8
  EXPECT_EQ(escapeForTerminal("model.cpp:3: \xC3\x97 \xC2\xA0ok"), "model.cpp:3: \xC3\x97 \xC2\xA0ok");
}

}  // namespace
}  // namespace nndna::render
