// Which standard headers of a spec go into its precompiled header (src/specrun/standard_headers.cpp).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "specrun/standard_headers.hpp"

namespace nndna::specrun {
namespace {

using Names = std::vector<std::string_view>;

TEST(PrecompilableHeaders, FindsTheStandardHeadersASpecIncludesSortedOnce) {
  const std::string spec =
      "#include <nndna/nndna.hpp>\n"
      "#include <string>\n"
      "  #  include   <cmath>   // spaces and a comment\n"
      "#include<algorithm>\n"
      "#include <cmath>\n"          // again
      "\t#include\t<map>\r\n"       // tabs, CRLF
      "int x; // #include <regex> after code on the line is not an include\n"
      "#include <numbers>";         // no final newline
  EXPECT_EQ(precompilableHeaders(spec), (Names{"algorithm", "cmath", "map", "numbers", "string"}));
}

TEST(PrecompilableHeaders, LeavesOutWhatThePchMustNotOrNeedNotHold) {
  const std::string spec =
      "#include <vector>\n"            // nndna.hpp includes it already
      "#include <optional>\n"          // so too
      "#include <cassert>\n"           // assert depends on NDEBUG where it is included
      "#include <unistd.h>\n"          // not the C++ standard library
      "#include <fmt/format.h>\n"      // nor this
      "#include \"cmath\"\n"           // quoted: the spec's own file first
      "#include <cmath\n"              // unclosed
      "#include_next <map>\n"          // not an #include
      "#includes <set>\n"
      "// #include <regex>\n"          // a comment
      "#include <format>\n"            // not in g++ 12's library
      "#include <CMATH>\n";
  EXPECT_EQ(precompilableHeaders(spec), Names{});
  EXPECT_EQ(precompilableHeaders(""), Names{});
  EXPECT_EQ(precompilableHeaders("\n\n#"), Names{});
}

// The names point into the library's own table: they outlive the text they were found in.
TEST(PrecompilableHeaders, NamesDoNotPointIntoTheText) {
  Names names;
  {
    std::string spec = "#include <cmath>\n";
    names = precompilableHeaders(spec);
    spec.assign(spec.size(), 'x');
  }
  EXPECT_EQ(names, Names{"cmath"});
}

}  // namespace
}  // namespace nndna::specrun
