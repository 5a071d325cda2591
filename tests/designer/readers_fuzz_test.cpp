// The designer's readers of untrusted input, fuzzed (tests/designer/mutator.hpp): what a model
// answers, what an endpoint sends back (bodies, error texts, Retry-After), what a user writes
// (a description, a spec to change) and the compiler's words about a model's code. Each round
// checks what the reader promises its callers; under the sanitizers (the unit label runs in
// build-asan too) any crash, leak or undefined behaviour fails the test.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>

#include "designer/answer.hpp"
#include "designer/llm_client.hpp"
#include "designer/offline/description.hpp"
#include "designer/offline/offline_designer.hpp"
#include "designer/offline/template_catalogue.hpp"
#include "designer/offline/template_text.hpp"
#include "designer/spec_check.hpp"
#include "designer/utf8.hpp"
#include "mutator.hpp"

namespace nndna::designer {
namespace {

using nlohmann::json;
using testing::Mutator;

// Rounds per reader: a few seconds in all under the sanitizers (the offline designer's rounds,
// which fill templates, cost more and are fewer). Longer runs: raise it locally.
constexpr int kRounds = 5000;

// Runs `rounds` mutated inputs through `check`; a failed expectation names the round's input.
void fuzz(std::vector<std::string> seeds, std::vector<std::string> dictionary, int rounds,
          const std::function<void(const std::string&)>& check) {
  Mutator mutator(std::move(seeds), std::move(dictionary), 20261201);
  for (int round = 0; round < rounds; ++round) {
    const std::string input = mutator.next();
    SCOPED_TRACE(::testing::Message() << "round " << round << ", input " << json(input).dump(-1, ' ', true, json::error_handler_t::replace).substr(0, 300));
    check(input);
    if (::testing::Test::HasFailure()) return;  // one finding is enough to reproduce
  }
}

bool isValidUtf8(std::string_view text) { return validUtf8(text) == text; }

const std::vector<std::string> kJsonWords = {"{", "}", "[", "]", "\"", ":", ",", "\\", "\\u", "\\ud800", "null",
                                             "true", "1e999", "-0", "\"source\"", "\"content\"", "\"choices\"",
                                             "\"message\"", "\"type\"", "\"tool_use\"", "\"text\"", "\"input\"",
                                             "\"usage\"", "\"error\"", "```", "```json\n", "```cpp\n", "NNDNA_SPEC",
                                             "\xff", "\xc3", "\xe2\x82", "\xf4\x90\x80\x80"};

TEST(ReadersFuzz, ModelAnswers) {
  fuzz({R"({"source": "#include <nndna/nndna.hpp>\nNNDNA_SPEC(M) {}\n"})",
        "Here you are:\n```json\n{\"source\": \"x\"}\n```\n", "```cpp\nNNDNA_SPEC(Net) { return {}; }\n```",
        "The spec is {\"source\": \"y\"} as asked.", "{source: 'not json'}", ""},
       kJsonWords, kRounds, [](const std::string& text) {
         const AnswerReading r = readAnswer(text);
         if (r.source) {
           EXPECT_NE(r.source->find_first_not_of(" \t\r\n"), std::string::npos);
           EXPECT_TRUE(r.form == "json" || r.form == "fenced json" || r.form == "json in text" ||
                       r.form == "fenced code")
               << r.form;
           EXPECT_TRUE(r.problem.empty());
         } else {
           EXPECT_FALSE(r.problem.empty());
         }
         // What the designer shows of it can always be written as JSON.
         EXPECT_NO_THROW((void)json(validUtf8(r.problem)).dump());
       });
}

// The 200 bodies of both APIs: an LlmError for anything not of the API's shape, never another
// exception; what they yield is read as an answer.
TEST(ReadersFuzz, EndpointBodies) {
  const Endpoint openai{.baseUrl = "http://127.0.0.1:9/v1", .model = "m"};
  const Endpoint anthropic{.baseUrl = "http://127.0.0.1:9/v1", .model = "m", .style = ApiStyle::anthropic};
  fuzz({R"({"model": "gpt-4o-mini", "choices": [{"message": {"role": "assistant", "content": "{\"source\": \"s\"}"}}], "usage": {"prompt_tokens": 812, "completion_tokens": 96}})",
        R"({"choices": [{"message": {"refusal": "no"}}]})",
        R"({"model": "claude-x", "content": [{"type": "tool_use", "name": "write_spec", "input": {"source": "s", "n": [[[1]]]}}], "usage": {"input_tokens": 1000, "output_tokens": 200}})",
        R"({"content": [{"type": "text", "text": "part one "}, {"type": "text", "text": "two"}]})"},
       kJsonWords, kRounds, [&](const std::string& body) {
         for (const Endpoint* e : {&openai, &anthropic}) {
           try {
             const ChatAnswer a = e == &openai ? readOpenAiAnswer(body, *e) : readAnthropicAnswer(body, *e);
             EXPECT_GE(a.promptTokens, 0);
             if (a.structured) {
               // The tool's input, flattened to its top level.
               const json input = json::parse(a.text);
               ASSERT_TRUE(input.is_object());
               for (const auto& [key, value] : input.items()) EXPECT_TRUE(value.is_string()) << key;
             }
             (void)readAnswer(a.text);
           } catch (const LlmError& error) {
             EXPECT_EQ(error.kind(), LlmError::Kind::bad_response);
           }
         }
       });
}

// A tool input nested 200,000 deep (400 KB, well within the 16 MiB body limit) is read without
// recursing: writing it back out as JSON recursed as deep and overflowed the stack.
TEST(ReadersFuzz, DeeplyNestedToolInput) {
  const std::size_t depth = 200'000;
  const std::string body = R"({"content": [{"type": "tool_use", "input": {"source": "s", "deep": )" +
                           std::string(depth, '[') + std::string(depth, ']') + "}}]}";
  const Endpoint anthropic{.model = "m", .style = ApiStyle::anthropic};
  const ChatAnswer a = readAnthropicAnswer(body, anthropic);
  EXPECT_EQ(json::parse(a.text), (json{{"source", "s"}, {"deep", "(array)"}}));
  EXPECT_EQ(*readAnswer(a.text).source, "s");
}

TEST(ReadersFuzz, EndpointErrorTexts) {
  fuzz({R"({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})",
        R"({"error": "model 'x' not found"})", "<html><body>502 Bad Gateway</body></html>",
        std::string(500, 'e') + "\xc3\xa9\xc3\xa9"},
       kJsonWords, kRounds, [](const std::string& body) {
         const std::string text = endpointErrorText(body);
         EXPECT_EQ(text.find_first_of("\r\n\t"), std::string::npos);
         EXPECT_LE(text.size(), 400u + std::string_view("…").size());
         // A cut never splits a character: valid text stays valid.
         if (isValidUtf8(body)) {
           EXPECT_TRUE(isValidUtf8(text));
         }
       });
}

TEST(ReadersFuzz, RetryAfterHeaders) {
  const auto now = std::chrono::system_clock::from_time_t(1445412480);
  fuzz({"2", " 120 ", "Wed, 21 Oct 2015 07:28:30 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "999999999"},
       {"GMT", "Mon, ", " 99 ", ":", "-", "0", "%", "\xff"}, kRounds, [&](const std::string& value) {
         if (auto wait = parseRetryAfter(value, now)) {
           EXPECT_GE(wait->count(), 0);
         }
       });
}

TEST(ReadersFuzz, Utf8Repair) {
  fuzz({"plain", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\xed\xa0\x80 surrogate", "\xc0\xaf overlong"},
       {"\x80", "\xbf", "\xc2", "\xe0\xa0", "\xf0\x90\x80", "\xf4\x90", "\xff"}, kRounds, [](const std::string& text) {
         const std::string fixed = validUtf8(text);
         EXPECT_EQ(validUtf8(fixed), fixed);
         EXPECT_NO_THROW((void)json(fixed).dump());
         if (isValidUtf8(text)) {
           EXPECT_EQ(fixed, text);
         }
         const std::string_view cut = utf8Prefix(fixed, text.size() / 2);
         EXPECT_TRUE(isValidUtf8(cut));
       });
}

// Descriptions: the offline designer reads any text and writes a spec whose integer constants
// are positive and fit the template's `int`s.
TEST(ReadersFuzz, OfflineDescriptions) {
  std::vector<std::string> words = {" layers", " heads", " width ", " batch ", " vocab ", " context ", "x",
                                    "×", " 0 ", " 99999999999 ", "1m", "50k", ",", " levels", " blocks",
                                    " experts", " top-", " steps", " patches", " classes", " resnet ", "-"};
  for (const TemplateInfo& t : templateCatalogue()) {
    for (const Keyword& k : t.keywords) words.push_back(" " + std::string(k.phrase) + " ");
  }
  fuzz({"a small transformer that adds two-digit numbers", "GPT-2 medium with 48 layers",
        "a U-Net for 100x100 images with 4 levels", "a CNN for 32x32 colour images, 10 classes, 5 blocks",
        "thirty-two heads of width 384", "a mixture of experts with 12 experts, top-1",
        "a ResNet-34 for CIFAR-100", "an LSTM forecaster over 24 time steps"},
       words, kRounds / 8, [](const std::string& text) {
         const OfflineDesign design = designOffline(text);
         EXPECT_FALSE(design.choice.templateName.empty());
         for (const auto& [name, value] : specConstants(design.source)) {
           EXPECT_GE(value, 1) << name;
           EXPECT_LE(value, std::int64_t{INT32_MAX}) << name;
         }
         for (const std::string& w : design.choice.unusedWords) EXPECT_TRUE(isValidUtf8(w)) << w;
       });
}

// A spec to change (the user's, possibly broken) with a description: changed, never thrown.
TEST(ReadersFuzz, OfflineChanges) {
  const std::string spec = designOffline("a GPT with 2 layers").source;
  fuzz({spec, "constexpr int D = ;\nconstexpr int N_LAYERS = 3", "LayerNorm LayerNormX RMSNorm"},
       {"constexpr int ", " = ", ";", "\n", "LayerNorm", "N_LAYERS", "D_MODEL"}, kRounds / 8, [](const std::string& source) {
         const OfflineDesign changed = changeOffline("use RMSNorm, 16 layers, width 512 and 8 heads", source);
         EXPECT_EQ(changed.choice.templateName, "your spec");
       });
}

TEST(ReadersFuzz, CompilerMessages) {
  fuzz({"design.cpp:12:5: error: 'x' was not declared", "design.cpp:99999999999: huge",
        "In file included from design.cpp:1:\nother.hpp:3: note"},
       {"design.cpp:", ":", "1", "9"}, kRounds, [](const std::string& message) {
         const int line = errorLine(message, "design.cpp");
         EXPECT_GE(line, 0);
         EXPECT_LE(line, 100'000'000);
       });
}

}  // namespace
}  // namespace nndna::designer
