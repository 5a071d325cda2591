// Finding the spec in a model's answer: the JSON it was asked for, or the forms models use instead.
#include <gtest/gtest.h>

#include "designer/answer.hpp"

namespace nndna::designer {
namespace {

TEST(Answer, TheAskedForJson) {
  const AnswerReading r = readAnswer(R"({"source": "#include <nndna/nndna.hpp>\nNNDNA_SPEC(M) {}\n"})");
  ASSERT_TRUE(r.source);
  EXPECT_EQ(*r.source, "#include <nndna/nndna.hpp>\nNNDNA_SPEC(M) {}\n");  // \n unescaped
  EXPECT_EQ(r.form, "json");
  EXPECT_TRUE(r.problem.empty());
}

TEST(Answer, JsonWithWhitespaceAround) {
  const AnswerReading r = readAnswer("\n  {\"source\": \"a\"}  \n");
  ASSERT_TRUE(r.source);
  EXPECT_EQ(*r.source, "a");
  EXPECT_EQ(r.form, "json");
}

TEST(Answer, JsonInAMarkdownFence) {
  const AnswerReading r = readAnswer("Here is the spec:\n```json\n{\"source\": \"spec text\"}\n```\nEnjoy.");
  ASSERT_TRUE(r.source);
  EXPECT_EQ(*r.source, "spec text");
  EXPECT_EQ(r.form, "fenced json");
}

TEST(Answer, CppInAMarkdownFence) {
  const AnswerReading r = readAnswer("Sure!\n```cpp\n#include <nndna/nndna.hpp>\nNNDNA_SPEC(Net) {}\n```\n");
  ASSERT_TRUE(r.source);
  EXPECT_EQ(*r.source, "#include <nndna/nndna.hpp>\nNNDNA_SPEC(Net) {}\n");
  EXPECT_EQ(r.form, "fenced code");
}

TEST(Answer, AFenceWithoutASpecIsNotOne) {
  const AnswerReading r = readAnswer("```cpp\nint main() {}\n```");
  EXPECT_FALSE(r.source);
  EXPECT_NE(r.problem.find("neither a JSON object"), std::string::npos) << r.problem;
}

TEST(Answer, JsonInsideProse) {
  const AnswerReading r = readAnswer("The answer is {\"source\": \"x\"} as requested.");
  ASSERT_TRUE(r.source);
  EXPECT_EQ(*r.source, "x");
  EXPECT_EQ(r.form, "json in text");
}

TEST(Answer, InvalidJsonSaysSo) {
  const AnswerReading r = readAnswer("{source: 'not json'}");
  EXPECT_FALSE(r.source);
  EXPECT_NE(r.problem.find("not valid JSON"), std::string::npos) << r.problem;
}

TEST(Answer, JsonWithoutASourceField) {
  const AnswerReading r = readAnswer(R"({"code": "x"})");
  EXPECT_FALSE(r.source);
  EXPECT_EQ(r.problem, "the JSON answer has no string field \"source\"");
}

TEST(Answer, EmptySourceIsNoSpec) {
  const AnswerReading r = readAnswer(R"({"source": "  \n"})");
  EXPECT_FALSE(r.source);
  EXPECT_EQ(r.problem, "the JSON answer's \"source\" is empty");
}

TEST(Answer, EmptyAnswer) {
  const AnswerReading r = readAnswer("  \n ");
  EXPECT_FALSE(r.source);
  EXPECT_EQ(r.problem, "the answer is empty");
}

}  // namespace
}  // namespace nndna::designer
