// trimCompilerOutput on real g++ 12 output (captured from compiling broken specs).
#include <gtest/gtest.h>

#include <csignal>

#include "specrun/diagnostics.hpp"
#include "specrun/sandbox.hpp"

namespace nndna::specrun {
namespace {

const DiagnosticPaths kPaths{"/home/u/models/model.cpp", "model.cpp"};

TEST(TrimCompilerOutput, KeepsSpecErrorsWithExcerptDropsLibraryNotes) {
  const std::string raw =
      "/home/u/models/model.cpp: In function 'nndna::Tensor lossFn(Net&, const nndna::Inputs&)':\n"
      "/home/u/models/model.cpp:12:10: error: no matching function for call to 'matmul(nndna::Tensor&)'\n"
      "   12 |   return matmul(x);\n"
      "      |          ~~~~~~^~~\n"
      "In file included from /usr/include/nndna/pch.hpp:2,\n"
      "                 from <command-line>:\n"
      "/opt/nndna/include/nndna/nndna.hpp:300:8: note: candidate: 'nndna::Tensor nndna::matmul(Tensor, Tensor)'\n"
      "  300 | Tensor matmul(Tensor a, Tensor b);\n"
      "      |        ^~~~~~\n"
      "/opt/nndna/include/nndna/nndna.hpp:300:8: note:   candidate expects 2 arguments, 1 provided\n"
      "/home/u/models/model.cpp:20:3: error: 'foo' was not declared in this scope\n"
      "   20 |   foo();\n"
      "      |   ^~~\n";
  const std::string trimmed = trimCompilerOutput(raw, kPaths);
  EXPECT_EQ(trimmed,
            "model.cpp: In function 'nndna::Tensor lossFn(Net&, const nndna::Inputs&)':\n"
            "model.cpp:12:10: error: no matching function for call to 'matmul(nndna::Tensor&)'\n"
            "   12 |   return matmul(x);\n"
            "      |          ~~~~~~^~~\n"
            "model.cpp:20:3: error: 'foo' was not declared in this scope\n"
            "   20 |   foo();\n"
            "      |   ^~~\n");
}

TEST(TrimCompilerOutput, ShowsOnlyTheFirstErrorsAndCountsTheRest) {
  std::string raw;
  for (int line = 1; line <= 5; ++line) {
    raw += "/home/u/models/model.cpp:" + std::to_string(line) + ":1: error: bad " + std::to_string(line) + "\n";
  }
  const std::string trimmed = trimCompilerOutput(raw, kPaths, 2);
  EXPECT_EQ(trimmed,
            "model.cpp:1:1: error: bad 1\n"
            "model.cpp:2:1: error: bad 2\n"
            "(3 more errors not shown)\n");
}

// A spec's own `relu6` beside nndna's (both in scope through `using namespace nndna;`): g++ says
// the call is ambiguous and names nndna's candidate in the header, a note the trimmed output
// drops; the hint says what clashed. An ambiguity among the spec's own functions gets no hint.
TEST(TrimCompilerOutput, HintsAtAFunctionOfTheSpecThatNndnaHasToo) {
  const std::string raw =  // g++ 12 on a MobileNetV2 port that defines relu6 itself
      "/home/u/models/model.cpp: In function 'nndna::Tensor f(nndna::Tensor)':\n"
      "/home/u/models/model.cpp:4:34: error: call of overloaded 'relu6(nndna::Tensor&)' is ambiguous\n"
      "    4 | Tensor f(Tensor x) { return relu6(x); }\n"
      "      |                             ~~~~~^~~\n"
      "/home/u/models/model.cpp:3:8: note: candidate: 'nndna::Tensor relu6(nndna::Tensor)'\n"
      "    3 | Tensor relu6(Tensor x) { return clamp(x, 0.0, 6.0); }\n"
      "      |        ^~~~~\n"
      "In file included from /home/u/models/model.cpp:1:\n"
      "/opt/nndna/include/nndna/nndna.hpp:404:8: note: candidate: 'nndna::Tensor nndna::relu6(Tensor)'\n"
      "  404 | Tensor relu6(Tensor x);\n"
      "      |        ^~~~~\n";
  EXPECT_EQ(trimCompilerOutput(raw, kPaths),
            "model.cpp: In function 'nndna::Tensor f(nndna::Tensor)':\n"
            "model.cpp:4:34: error: call of overloaded 'relu6(nndna::Tensor&)' is ambiguous\n"
            "    4 | Tensor f(Tensor x) { return relu6(x); }\n"
            "      |                             ~~~~~^~~\n"
            "model.cpp:3:8: note: candidate: 'nndna::Tensor relu6(nndna::Tensor)'\n"
            "    3 | Tensor relu6(Tensor x) { return clamp(x, 0.0, 6.0); }\n"
            "      |        ^~~~~\n"
            "hint: nndna has its own `relu6` (nndna::relu6), which `using namespace nndna;` brings in beside yours: "
            "use nndna's and drop yours, or give yours another name\n");
  // Typographic quotes (a UTF-8 locale) say the same.
  std::string typographic = raw;
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"'relu6(nndna::Tensor&)'", "\u2018relu6(nndna::Tensor&)\u2019"},
                                 {"'nndna::Tensor nndna::relu6(Tensor)'", "\u2018nndna::Tensor nndna::relu6(Tensor)\u2019"}}) {
    typographic.replace(typographic.find(from), from.size(), to);
  }
  EXPECT_NE(trimCompilerOutput(typographic, kPaths).find("hint: nndna has its own `relu6`"), std::string::npos);
  // Two overloads of the spec's own: no hint.
  const std::string own =
      "/home/u/models/model.cpp:6:10: error: call of overloaded 'scale(double)' is ambiguous\n"
      "/home/u/models/model.cpp:3:8: note: candidate: 'double scale(float)'\n"
      "/home/u/models/model.cpp:4:8: note: candidate: 'double scale(int)'\n";
  EXPECT_EQ(trimCompilerOutput(own, kPaths).find("hint:"), std::string::npos);
}

// nndna.hpp does not include <string>, and g++ then does not say "did you forget '#include
// <string>'?" (std::string is declared, only incomplete): the trimmed output says it instead.
TEST(TrimCompilerOutput, HintsAtIncludingStringWhenStdStringIsMissing) {
  const std::string raw =  // g++ 12 on a spec that uses std::string and std::to_string
      "/home/u/models/model.cpp:3:23: error: return type 'std::string' {aka 'class "
      "std::__cxx11::basic_string<char>'} is incomplete\n"
      "    3 | std::string name(int i) { return \"layer\" + std::to_string(i); }\n"
      "      |                       ^\n"
      "/home/u/models/model.cpp: In function 'void name(int)':\n"
      "/home/u/models/model.cpp:3:49: error: 'to_string' is not a member of 'std'; did you mean 'wstring'?\n"
      "    3 | std::string name(int i) { return \"layer\" + std::to_string(i); }\n"
      "      |                                                 ^~~~~~~~~\n";
  const std::string hint =
      "hint: nndna/nndna.hpp does not include <string>: add `#include <string>` to use std::string or "
      "std::to_string\n";
  const std::string trimmed = trimCompilerOutput(raw, kPaths);
  EXPECT_TRUE(trimmed.starts_with("model.cpp:3:23: error: return type 'std::string'")) << trimmed;
  EXPECT_TRUE(trimmed.ends_with("did you mean 'wstring'?\n"
                                "    3 | std::string name(int i) { return \"layer\" + std::to_string(i); }\n"
                                "      |                                                 ^~~~~~~~~\n" + hint))
      << trimmed;

  for (const std::string line :
       {"/home/u/models/model.cpp:4:23: error: variable 'std::string s' has initializer but incomplete type\n",
        "/home/u/models/model.cpp:4:44: error: 'stoi' is not a member of 'std'\n",
        "/home/u/models/model.cpp:5:13: error: aggregate 'std::string g' has incomplete type and cannot be defined\n"}) {
    EXPECT_TRUE(trimCompilerOutput(line, kPaths).ends_with(hint)) << line;
  }
  // Other errors, and these words in a warning, bring no hint.
  for (const std::string line :
       {"/home/u/models/model.cpp:4:44: error: 'sqrtt' is not a member of 'std'\n",
        "/home/u/models/model.cpp:5:13: error: invalid use of incomplete type 'struct Block'\n",
        "/home/u/models/model.cpp:5:13: warning: 'std::string g' has incomplete type\n"}) {
    EXPECT_EQ(trimCompilerOutput(line, kPaths).find("hint:"), std::string::npos) << line;
  }
}

TEST(TrimCompilerOutput, KeepsSpecNotesAfterAShownError) {
  const std::string raw =
      "/home/u/models/model.cpp:5:7: error: redefinition of 'int B'\n"
      "/home/u/models/model.cpp:4:7: note: 'int B' previously defined here\n";
  EXPECT_EQ(trimCompilerOutput(raw, kPaths),
            "model.cpp:5:7: error: redefinition of 'int B'\n"
            "model.cpp:4:7: note: 'int B' previously defined here\n");
}

TEST(TrimCompilerOutput, ErrorInsideAHeaderIsKeptWhenTheSpecHasNone) {
  const std::string raw =
      "/opt/nndna/include/nndna/nndna.hpp:40:3: error: static assertion failed\n"
      "/opt/nndna/include/nndna/nndna.hpp:41:3: error: second\n";
  EXPECT_EQ(trimCompilerOutput(raw, kPaths),
            "/opt/nndna/include/nndna/nndna.hpp:40:3: error: static assertion failed\n"
            "(1 more error not shown)\n");
}

// An assembler reading a file it was told to .include complains once per line of it: one shown.
TEST(TrimCompilerOutput, AssemblerErrorsAreTrimmedToo) {
  std::string raw = "{standard input}: Assembler messages:\n";
  for (int line = 1; line <= 60; ++line) {
    raw += "/srv/notes.txt:" + std::to_string(line) + ": Error: no such instruction: `secret line " +
           std::to_string(line) + "'\n";
  }
  EXPECT_EQ(trimCompilerOutput(raw, kPaths),
            "/srv/notes.txt:1: Error: no such instruction: `secret line 1'\n"
            "(59 more errors not shown)\n");
}

TEST(TrimCompilerOutput, LinkErrorsKeepTheirLinesWithoutCollect2) {
  const std::string raw =
      "/usr/bin/ld: /tmp/ccX.o: in function `lossFn(Net&, nndna::Inputs const&)':\n"
      "/usr/bin/ld: model.cpp:10: undefined reference to `helper()'\n"
      "collect2: error: ld returned 1 exit status\n";
  EXPECT_EQ(trimCompilerOutput(raw, kPaths),
            "/usr/bin/ld: /tmp/ccX.o: in function `lossFn(Net&, nndna::Inputs const&)':\n"
            "/usr/bin/ld: model.cpp:10: undefined reference to `helper()'\n");
}

TEST(TrimCompilerOutput, PathWithColonsAndFatalErrors) {
  const DiagnosticPaths paths{"/data/a:b/model.cpp", "a:b/model.cpp"};
  const std::string raw =
      "/data/a:b/model.cpp:1:10: fatal error: missing.hpp: No such file or directory\n"
      "    1 | #include \"missing.hpp\"\n"
      "      |          ^~~~~~~~~~~~~\n"
      "compilation terminated.\n";
  EXPECT_EQ(trimCompilerOutput(raw, paths),
            "a:b/model.cpp:1:10: fatal error: missing.hpp: No such file or directory\n"
            "    1 | #include \"missing.hpp\"\n"
            "      |          ^~~~~~~~~~~~~\n");
}

TEST(DescribeSignal, NamesTheSignal) {
  EXPECT_EQ(describeSignal(SIGSEGV), "SIGSEGV (Segmentation fault)");
  EXPECT_EQ(describeSignal(SIGABRT), "SIGABRT (Aborted)");
}

}  // namespace
}  // namespace nndna::specrun
