// nndna::Text, the strings the spec header's types own, and the reason it exists: the spec header
// must not include <string> (in C++20 mode that costs every spec's compile about a third of its
// time in string template instantiations: docs/specrun.md).
#include <nndna/nndna.hpp>

// Checked before anything else here includes <string>: what a spec file gets from nndna.hpp.
#if defined(_GLIBCXX_STRING) || defined(_BASIC_STRING_H)
constexpr bool kSpecHeaderIncludesString = true;
#else
constexpr bool kSpecHeaderIncludesString = false;
#endif

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>

namespace nndna {
namespace {

TEST(SpecHeader, IncludesNoStringHeader) {
  EXPECT_FALSE(kSpecHeaderIncludesString)
      << "nndna/nndna.hpp includes <string> (directly or through another header): every spec "
         "compile then instantiates libstdc++'s string templates";
}

TEST(Text, HoldsWhatItWasMadeFrom) {
  const Text empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_STREQ(empty.c_str(), "");

  const Text literal = "layers.3";
  EXPECT_EQ(literal.size(), 8u);
  EXPECT_STREQ(literal.c_str(), "layers.3");
  EXPECT_EQ(literal.view(), std::string_view("layers.3"));

  const std::string s = "from a std::string";
  const Text fromString = s;  // implicit, as for std::string_view
  EXPECT_EQ(fromString.view(), s);

  // A view is copied up to its size, and c_str() ends there.
  const std::string_view prefix = std::string_view("proj.weight").substr(0, 4);
  const Text cut = prefix;
  EXPECT_STREQ(cut.c_str(), "proj");
  EXPECT_EQ(cut.size(), 4u);

  const Text fromNull = static_cast<const char*>(nullptr);
  EXPECT_TRUE(fromNull.empty());

  // Bytes after a NUL are kept: the size is the view's, not strlen's.
  const Text withNul = std::string_view("a\0b", 3);
  EXPECT_EQ(withNul.size(), 3u);
  EXPECT_EQ(withNul.view(), std::string_view("a\0b", 3));
  EXPECT_EQ(Text(withNul).view(), std::string_view("a\0b", 3));
}

TEST(Text, CopiesAreIndependentAndMovesEmptyTheSource) {
  Text a = "alpha";
  Text b = a;
  EXPECT_EQ(b, "alpha");
  EXPECT_NE(a.c_str(), b.c_str());  // its own bytes
  b = "beta";
  EXPECT_EQ(a, "alpha");

  Text c = std::move(a);
  EXPECT_EQ(c, "alpha");
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty, by design
  a = c;
  EXPECT_EQ(a, "alpha");
  c = std::move(b);
  EXPECT_EQ(c, "beta");

  Text& same = c;
  c = same;  // self copy-assignment keeps the text
  EXPECT_EQ(c, "beta");
  c = std::move(same);  // and so does self move-assignment
  EXPECT_EQ(c, "beta");
}

TEST(Text, ComparesWithAnyString) {
  const Text t = "x";
  EXPECT_TRUE(t == "x");
  EXPECT_TRUE("x" == t);
  EXPECT_TRUE(t == std::string("x"));
  EXPECT_TRUE(std::string("x") == t);
  EXPECT_TRUE(t == Text("x"));
  EXPECT_TRUE(t == std::string_view("x"));
  EXPECT_TRUE(std::string_view("x") == t);
  const char* pointer = "x";
  EXPECT_TRUE(t == pointer);
  EXPECT_TRUE(pointer == t);
  EXPECT_TRUE(t != Text("y"));
  EXPECT_TRUE(t != "y");
  EXPECT_FALSE(t == "xx");
  EXPECT_EQ(std::string(t), "x");
}

TEST(Text, JoinsAndPrints) {
  const Text path = "blocks.2";
  EXPECT_EQ(path + ".residual", "blocks.2.residual");  // a spec's `capture(b.path() + ".x", x)`
  EXPECT_EQ(path + Text(".ln1"), "blocks.2.ln1");
  EXPECT_EQ(path + std::string(".fc"), "blocks.2.fc");
  EXPECT_EQ(Text() + "", "");
  std::ostringstream out;
  out << path << '|' << Text();
  EXPECT_EQ(out.str(), "blocks.2|");
}

}  // namespace
}  // namespace nndna
