// Every code fragment of the prompt compiles against nndna (and the complete specs in it trace):
// a wrong example in the prompt teaches the model a compile error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "prompt_support.hpp"
#include "specrun/spec_runner.hpp"

namespace nndna::designer {
namespace {

using namespace testprompt;

specrun::RunOptions runOptions() {
  specrun::RunOptions run;
  run.cacheDir = NNDNA_TEST_CACHE_DIR;
  return run;
}

std::filesystem::path writeFile(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::filesystem::path(NNDNA_TEST_CACHE_DIR) / "prompt-fragments";
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / name;
  std::ofstream(file, std::ios::binary) << text;
  return file;
}

TEST(PromptFragments, EveryFragmentCompiles) {
  const std::vector<Fragment> fragments = cppFragments(readSourceFile("docs/design_prompt.md"));
  ASSERT_GE(fragments.size(), 10u);
  // Snippets share one file, each in its own namespace, with the constants the prompt says they
  // use; #line makes an error name the prompt's own line.
  std::string harness =
      "#include <nndna/nndna.hpp>\n#include <cmath>\n#include <vector>\nusing namespace nndna;\n"
      "constexpr int B = 4, T = 8, V = 32, D = 16, H = 2, DH = D / H, F = 4 * D, IN = 8, HIDDEN = 16, OUT = 3;\n"
      "struct Fragments : Module { Linear l{\"l\", IN, OUT}; };\n"
      "Tensor fragmentsLoss(Fragments& m, const Inputs& in) { return mean(m.l(in[\"x\"])); }\n"
      "NNDNA_SPEC(Fragments) { return {.label = \"prompt fragments\", .loss = fragmentsLoss, "
      ".inputs = {{\"x\", {B, IN}}}}; }\n";
  int snippets = 0, specs = 0;
  for (std::size_t i = 0; i < fragments.size(); ++i) {
    const Fragment& f = fragments[i];
    if (f.code.find("NNDNA_SPEC(") != std::string::npos) {
      // A complete spec: compiled and traced on its own.
      SCOPED_TRACE("the spec at docs/design_prompt.md:" + std::to_string(f.firstLine));
      const std::string file = "prompt_spec_" + std::to_string(i) + ".cpp";
      EXPECT_NO_THROW((void)specrun::runSpecFile(writeFile(file, f.code), runOptions())) << f.code;
      ++specs;
      continue;
    }
    harness += "namespace fragment" + std::to_string(i) + " {\n#line " + std::to_string(f.firstLine) +
               " \"docs/design_prompt.md\"\n" + f.code + "}\n";
    ++snippets;
  }
  EXPECT_GE(specs, 1);
  EXPECT_GE(snippets, 10);
  try {
    (void)specrun::runSpecFile(writeFile("prompt_fragments.cpp", harness), runOptions());
  } catch (const specrun::SpecRunError& e) {
    FAIL() << "a fragment of docs/design_prompt.md does not compile:\n" << e.what();
  }
}

}  // namespace
}  // namespace nndna::designer
