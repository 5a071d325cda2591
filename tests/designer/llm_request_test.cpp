// The two wire formats: request bodies, answer readers, Retry-After.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <vector>

#include "designer/events.hpp"
#include "designer/llm_client.hpp"

namespace nndna::designer {
namespace {

using nlohmann::json;

const std::vector<ChatMessage> kConversation = {{ChatMessage::Role::user, "a small MLP"},
                                                {ChatMessage::Role::assistant, "{\"source\": \"x\"}"},
                                                {ChatMessage::Role::user, "it failed"}};

TEST(LlmRequest, OpenAiStructured) {
  const Endpoint e{.baseUrl = "http://h/v1", .model = "gpt-4o-mini", .style = ApiStyle::openai, .apiKey = "k"};
  const json body = json::parse(openAiRequestBody(e, "SYSTEM", kConversation, true));
  EXPECT_EQ(body["model"], "gpt-4o-mini");
  ASSERT_EQ(body["messages"].size(), 4u);
  EXPECT_EQ(body["messages"][0], (json{{"role", "system"}, {"content", "SYSTEM"}}));
  EXPECT_EQ(body["messages"][1], (json{{"role", "user"}, {"content", "a small MLP"}}));
  EXPECT_EQ(body["messages"][2]["role"], "assistant");
  EXPECT_EQ(body["messages"][3]["content"], "it failed");
  EXPECT_EQ(body["response_format"]["type"], "json_schema");
  const json& schema = body["response_format"]["json_schema"]["schema"];
  EXPECT_EQ(schema["required"], json::array({"source"}));
  EXPECT_EQ(schema["properties"]["source"]["type"], "string");
  EXPECT_EQ(schema["additionalProperties"], false);
  EXPECT_EQ(body.dump().find("\"k\""), std::string::npos);  // the key travels in a header only
}

TEST(LlmRequest, OpenAiPlain) {
  const Endpoint e{.baseUrl = "http://h/v1", .model = "m"};
  const json body = json::parse(openAiRequestBody(e, "S", kConversation, false));
  EXPECT_FALSE(body.contains("response_format"));
}

TEST(LlmRequest, AnthropicStructured) {
  const Endpoint e{.baseUrl = "http://h/v1", .model = "claude-3-5-haiku-latest", .style = ApiStyle::anthropic};
  const json body = json::parse(anthropicRequestBody(e, "SYSTEM", kConversation, true));
  EXPECT_EQ(body["system"], "SYSTEM");
  EXPECT_EQ(body["max_tokens"], 8192);
  ASSERT_EQ(body["messages"].size(), 3u);  // the system prompt is not a message
  EXPECT_EQ(body["tools"][0]["name"], "write_spec");
  EXPECT_EQ(body["tools"][0]["input_schema"]["required"], json::array({"source"}));
  EXPECT_EQ(body["tool_choice"], (json{{"type", "tool"}, {"name", "write_spec"}}));
  const json plain = json::parse(anthropicRequestBody(e, "S", kConversation, false));
  EXPECT_FALSE(plain.contains("tools"));
  EXPECT_FALSE(plain.contains("tool_choice"));
}

TEST(LlmAnswer, OpenAi) {
  const Endpoint e{.model = "asked"};
  const ChatAnswer a = readOpenAiAnswer(
      R"({"model": "gpt-4o-mini-2024-07-18", "choices": [{"message": {"role": "assistant", "content": "{\"source\": \"s\"}"}}],
          "usage": {"prompt_tokens": 812, "completion_tokens": 96}})",
      e);
  EXPECT_EQ(a.text, "{\"source\": \"s\"}");
  EXPECT_EQ(a.model, "gpt-4o-mini-2024-07-18");
  EXPECT_EQ(a.promptTokens, 812);
  EXPECT_EQ(a.completionTokens, 96);
}

TEST(LlmAnswer, AnthropicToolUseAndText) {
  const Endpoint e{.model = "asked", .style = ApiStyle::anthropic};
  const ChatAnswer tool = readAnthropicAnswer(
      R"({"model": "claude-x", "content": [{"type": "tool_use", "name": "write_spec", "input": {"source": "s"}}],
          "usage": {"input_tokens": 1000, "output_tokens": 200}})",
      e);
  EXPECT_EQ(json::parse(tool.text), (json{{"source", "s"}}));
  EXPECT_TRUE(tool.structured);
  EXPECT_EQ(tool.promptTokens, 1000);
  EXPECT_EQ(tool.completionTokens, 200);
  const ChatAnswer text = readAnthropicAnswer(
      R"({"content": [{"type": "text", "text": "part one "}, {"type": "text", "text": "part two"}]})", e);
  EXPECT_EQ(text.text, "part one part two");
  EXPECT_EQ(text.model, "asked");
  EXPECT_FALSE(text.structured);
}

TEST(LlmAnswer, NotTheApisShape) {
  const Endpoint e{.baseUrl = "http://h/v1", .model = "m"};
  try {
    (void)readOpenAiAnswer(R"({"result": 1})", e);
    FAIL() << "no error";
  } catch (const LlmError& error) {
    EXPECT_EQ(error.kind(), LlmError::Kind::bad_response);
    EXPECT_NE(std::string(error.what()).find("no choices[0].message"), std::string::npos) << error.what();
  }
  EXPECT_THROW((void)readAnthropicAnswer("<html>", e), LlmError);
}

TEST(RetryAfter, SecondsAndDates) {
  const auto now = std::chrono::system_clock::from_time_t(1445412480);  // Wed, 21 Oct 2015 07:28:00 GMT
  EXPECT_EQ(parseRetryAfter("2", now), std::chrono::milliseconds(2000));
  EXPECT_EQ(parseRetryAfter(" 0 ", now), std::chrono::milliseconds(0));
  EXPECT_EQ(parseRetryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now), std::chrono::milliseconds(30000));
  EXPECT_EQ(parseRetryAfter("Wed, 21 Oct 2015 07:27:00 GMT", now), std::chrono::milliseconds(0));  // past
  // Dates centuries away (the fuzz test found the clock overflowing): past is 0, the future is
  // capped at a day.
  EXPECT_EQ(parseRetryAfter("Tue, 01 Jan 0200 00:00:00 GMT", now), std::chrono::milliseconds(0));
  EXPECT_EQ(parseRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now), std::chrono::hours(24));
  EXPECT_FALSE(parseRetryAfter("soon", now));
  EXPECT_FALSE(parseRetryAfter("", now));
}

TEST(DesignEvents, AsJson) {
  DesignEvent e;
  e.kind = EventKind::llm_answer;
  e.attempt = 2;
  e.message = "m";
  e.llm = LlmCall{.model = "x", .promptTokens = 3, .completionTokens = 4, .costUsd = 0.5, .latencySeconds = 1.5};
  EXPECT_EQ(toJson(e), json::parse(R"({"kind": "llm_answer", "attempt": 2, "message": "m",
      "llm": {"model": "x", "prompt_tokens": 3, "completion_tokens": 4, "cost_usd": 0.5, "latency_seconds": 1.5,
              "http_attempts": 1}})"));
  DesignEvent check;
  check.kind = EventKind::check_result;
  check.check = CheckOutcome{.ok = false,
                             .errorKind = "trace_error",
                             .error = "e",
                             .line = 7,
                             .seconds = 1,
                             .compileSeconds = 0.75,
                             .runSeconds = 0.25};
  EXPECT_EQ(toJson(check)["check"],
            json::parse(R"({"ok": false, "error_kind": "trace_error", "error": "e", "line": 7, "seconds": 1.0,
                            "compile_seconds": 0.75, "run_seconds": 0.25, "cache_hit": false})"));
}

}  // namespace
}  // namespace nndna::designer
