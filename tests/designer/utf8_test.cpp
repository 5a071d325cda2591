// Making outside text valid UTF-8, and cutting it on a character boundary.
#include <gtest/gtest.h>

#include "designer/utf8.hpp"

namespace nndna::designer {
namespace {

const std::string kFFFD = "\xEF\xBF\xBD";

TEST(Utf8, ValidTextIsKept) {
  const std::string text = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF";  // é € 😀 U+10FFFF
  EXPECT_EQ(validUtf8(text), text);
  EXPECT_EQ(validUtf8(""), "");
}

TEST(Utf8, EachInvalidSequenceBecomesOneReplacement) {
  EXPECT_EQ(validUtf8("a\xFF" "b"), "a" + kFFFD + "b");            // never a UTF-8 byte
  EXPECT_EQ(validUtf8("\x80\x80"), kFFFD + kFFFD);                 // stray continuations
  EXPECT_EQ(validUtf8("\xC3"), kFFFD);                             // truncated at the end
  EXPECT_EQ(validUtf8("\xE2\x82" "x"), kFFFD + "x");               // truncated: one for both bytes
  EXPECT_EQ(validUtf8("\xC0\xAF"), kFFFD + kFFFD);                 // overlong '/': C0 is never valid
  EXPECT_EQ(validUtf8("\xE0\x80\x80"), kFFFD + kFFFD + kFFFD);     // overlong 3-byte: E0 then 80
  EXPECT_EQ(validUtf8("\xED\xA0\x80"), kFFFD + kFFFD + kFFFD);     // surrogate U+D800
  EXPECT_EQ(validUtf8("\xF4\x90\x80\x80"), kFFFD + kFFFD + kFFFD + kFFFD);  // past U+10FFFF
}

TEST(Utf8, PrefixEndsOnACharacter) {
  const std::string text = "ab\xE2\x82\xAC" "c";  // a b € c: bytes 0, 1, 2-4, 5
  EXPECT_EQ(utf8Prefix(text, 10), text);
  EXPECT_EQ(utf8Prefix(text, 5), "ab\xE2\x82\xAC");
  EXPECT_EQ(utf8Prefix(text, 4), "ab");
  EXPECT_EQ(utf8Prefix(text, 3), "ab");
  EXPECT_EQ(utf8Prefix(text, 2), "ab");
  EXPECT_EQ(utf8Prefix(text, 0), "");
}

}  // namespace
}  // namespace nndna::designer
