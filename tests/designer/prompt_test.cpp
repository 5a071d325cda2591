// The prompt never goes stale: every op it lists is declared in nndna.hpp, every public op of
// nndna.hpp is listed, and so are the layers; what it says nndna lacks, nndna lacks. When this
// test fails after an op was added to nndna.hpp, add the op to docs/design_prompt.md ("Everything
// the API offers") and, where it helps, a line of how to use it.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "designer/prompt.hpp"
#include "prompt_support.hpp"

namespace nndna::designer {
namespace {

using namespace testprompt;

const std::string& header() {
  static const std::string text = readSourceFile("include/nndna/nndna.hpp");
  return text;
}
const std::string& prompt() {
  static const std::string text = readSourceFile("docs/design_prompt.md");
  return text;
}

// Free functions at namespace scope (unindented declarations) returning tensors or a flag.
// namespace detail holds what NNDNA_SPEC calls, not ops.
std::set<std::string> headerOps() {
  std::set<std::string> ops;
  const std::regex declaration(R"(^(?:Tensor|std::vector<Tensor>|std::pair<Tensor, Tensor>|TopK|bool) (\w+)\()");
  bool inDetail = false;
  for (const std::string& line : linesOf(header())) {
    if (line.starts_with("namespace detail {")) inDetail = true;
    if (line.starts_with("}  // namespace detail")) inDetail = false;
    std::smatch m;
    if (!inDetail && std::regex_search(line, m, declaration)) ops.insert(m[1]);
  }
  return ops;
}

std::set<std::string> headerLayers() {
  std::set<std::string> layers;
  const std::regex declaration(R"(^class (\w+) : public Module)");
  for (const std::string& line : linesOf(header())) {
    std::smatch m;
    if (std::regex_search(line, m, declaration)) layers.insert(m[1]);
  }
  return layers;
}

// The prompt's lines from the one starting with `from` up to (not including) the one starting
// with `to`.
std::string promptSection(std::string_view from, std::string_view to) {
  std::string out;
  bool inside = false;
  for (const std::string& line : linesOf(prompt())) {
    if (line.starts_with(from)) inside = true;
    else if (inside && line.starts_with(to)) break;
    if (inside) out += line + "\n";
  }
  return out;
}

// Names in `code spans` that are followed by `suffix` ("add(" -> add).
std::set<std::string> spanNames(const std::string& text, const std::string& suffix) {
  std::set<std::string> names;
  const std::regex span("`(\\w+)" + std::regex_replace(suffix, std::regex(R"([{(])"), R"(\$&)"));
  for (auto it = std::sregex_iterator(text.begin(), text.end(), span); it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1]);
  }
  return names;
}

TEST(Prompt, TheHeaderIsReadable) {
  // Guards the parsing below: a header reshaped so that the regexes find nothing must fail here.
  EXPECT_GT(headerOps().size(), 60u);
  EXPECT_TRUE(headerOps().contains("matmul"));
  EXPECT_TRUE(headerOps().contains("split"));    // std::vector<Tensor>
  EXPECT_TRUE(headerOps().contains("rope"));     // std::pair<Tensor, Tensor>
  EXPECT_TRUE(headerOps().contains("topk"));     // TopK
  EXPECT_TRUE(headerOps().contains("isTraining"));
  EXPECT_TRUE(headerLayers().contains("Linear"));
}

TEST(Prompt, EveryListedOpExistsAndEveryOpIsListed) {
  const std::set<std::string> listed = spanNames(promptSection("Ops (free functions", "Dtypes:"), "(");
  ASSERT_GT(listed.size(), 60u) << "the prompt's op list was not found";
  const std::set<std::string> declared = headerOps();
  for (const std::string& op : listed) {
    EXPECT_TRUE(declared.contains(op)) << "docs/design_prompt.md lists `" << op
                                       << "`, which include/nndna/nndna.hpp does not declare";
  }
  for (const std::string& op : declared) {
    EXPECT_TRUE(listed.contains(op)) << "include/nndna/nndna.hpp declares `" << op
                                     << "`, which docs/design_prompt.md does not list: add it to \"Everything "
                                        "the API offers\"";
  }
}

TEST(Prompt, EveryLayerIsListed) {
  const std::set<std::string> listed = spanNames(promptSection("Layers (members", "Ops (free functions"), "{");
  EXPECT_EQ(listed, headerLayers()) << "the layers of docs/design_prompt.md and nndna.hpp differ";
}

// The bullet's bold head names what nndna lacks; the rest of it, the alternatives, exist.
TEST(Prompt, WhatItSaysNndnaLacksItLacks) {
  const std::string bullet = promptSection("- **No `Conv3d`", "- **Parameters exist");
  ASSERT_FALSE(bullet.empty());
  const std::size_t headEnd = bullet.find("**:");
  ASSERT_NE(headEnd, std::string::npos);
  const std::string head = bullet.substr(0, headEnd);
  const std::string alternatives = bullet.substr(headEnd);
  const std::regex span("`(\\w+)`");
  int named = 0;
  for (auto it = std::sregex_iterator(head.begin(), head.end(), span); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    ++named;
    EXPECT_FALSE(headerOps().contains(name) || headerLayers().contains(name))
        << "docs/design_prompt.md says nndna has no `" << name << "`, but nndna.hpp declares it";
  }
  EXPECT_EQ(named, 3);  // Conv3d, MaxPool3d, interpolate
  for (auto it = std::sregex_iterator(alternatives.begin(), alternatives.end(), span); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    EXPECT_TRUE(headerOps().contains(name) || headerLayers().contains(name))
        << "docs/design_prompt.md offers `" << name << "` instead, but nndna.hpp does not declare it";
  }
}

TEST(Prompt, TheBuiltInPromptIsTheDocument) {
  EXPECT_EQ(systemPrompt(), prompt());
  EXPECT_TRUE(systemPrompt().starts_with("# Writing nndna model specs"));
}

}  // namespace
}  // namespace nndna::designer
