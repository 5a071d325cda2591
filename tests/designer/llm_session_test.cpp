// The designer against a model played by a real HTTP server on loopback, in both API styles: a
// good answer; broken code then a fix; invalid JSON; code in a markdown fence; a timeout; 429 with
// Retry-After then success; 500; 401. Each case checks the events the user sees, the result, what
// the server was sent, and that the API key appears in no event, result or xray trace.
#include <gtest/gtest.h>

#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "designer/designer.hpp"
#include "designer/prompt.hpp"
#include "fake_model.hpp"

namespace nndna::designer {
namespace {

using namespace testing;
using nlohmann::json;

}  // namespace

// gtest prints a style by its name (ctest's test names stay readable).
void PrintTo(ApiStyle style, std::ostream* os) { *os << apiStyleName(style); }

namespace {

// What a design produced: its result, its events, its xray trace.
struct Session {
  DesignResult result;
  std::vector<DesignEvent> events;
  xray::Trace trace;
  std::vector<std::chrono::steady_clock::time_point> eventTimes;

  std::vector<EventKind> kinds() const {
    std::vector<EventKind> out;
    for (const DesignEvent& e : events) out.push_back(e.kind);
    return out;
  }
  const DesignEvent* first(EventKind kind) const {
    for (const DesignEvent& e : events) {
      if (e.kind == kind) return &e;
    }
    return nullptr;
  }
  // Everything the user or a log could see, as one text.
  std::string everything() const {
    std::string all = result.source + result.error + result.fallbackReason;
    for (const DesignEvent& e : events) all += toJson(e).dump() + e.message;
    all += xray::toJsonText(trace);
    return all;
  }
};

class LlmSession : public ::testing::TestWithParam<ApiStyle> {
 protected:
  ApiStyle style() const { return GetParam(); }
  std::string model() const { return style() == ApiStyle::openai ? kOpenAiModel : kAnthropicModel; }

  DesignRequest request(int maxRepairs = 3) const {
    DesignRequest r;
    r.prompt = "a tiny regression MLP";
    r.endpoint = Endpoint{.baseUrl = server.baseUrl(), .model = model(), .style = style(), .apiKey = kTestKey};
    r.maxRepairs = maxRepairs;
    r.http.backoffBase = std::chrono::milliseconds(50);
    r.run.cacheDir = NNDNA_TEST_CACHE_DIR;
    return r;
  }

  Session run(const DesignRequest& r) {
    Session s;
    xray::Session capture;
    s.result = design(r, [&](const DesignEvent& e) {
      s.events.push_back(e);
      s.eventTimes.push_back(std::chrono::steady_clock::now());
    });
    s.trace = capture.finish();
    EXPECT_EQ(s.everything().find(kTestKey), std::string::npos) << "the API key leaked";
    return s;
  }

  // The request carried the key where the style wants it, and the system prompt.
  void expectWellFormed(const SeenRequest& seen) const {
    if (style() == ApiStyle::openai) {
      EXPECT_EQ(seen.path, "/v1/chat/completions");
      EXPECT_EQ(seen.authorization, std::string("Bearer ") + kTestKey);
      ASSERT_TRUE(seen.body.is_object());
      EXPECT_EQ(seen.body["model"], model());
      EXPECT_EQ(seen.body["messages"][0]["role"], "system");
      EXPECT_EQ(seen.body["messages"][0]["content"], systemPrompt());
    } else {
      EXPECT_EQ(seen.path, "/v1/messages");
      EXPECT_EQ(seen.apiKey, kTestKey);
      EXPECT_EQ(seen.anthropicVersion, "2023-06-01");
      EXPECT_TRUE(seen.authorization.empty());
      ASSERT_TRUE(seen.body.is_object());
      EXPECT_EQ(seen.body["system"], systemPrompt());
    }
  }
  // The conversation's last user turn.
  std::string lastUserTurn(const SeenRequest& seen) const {
    const json& messages = seen.body["messages"];
    return messages.back()["content"].get<std::string>();
  }

  FakeModel server;
};

std::string kindsText(const std::vector<EventKind>& kinds) {
  std::string out;
  for (EventKind k : kinds) out += std::string(kindName(k)) + " ";
  return out;
}

TEST_P(LlmSession, AGoodAnswer) {
  server.script({answer(style(), sourceJson(kGoodSpec))});
  const Session s = run(request());
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_FALSE(s.result.offline);
  EXPECT_EQ(s.result.source, kGoodSpec);
  EXPECT_EQ(s.kinds(), (std::vector<EventKind>{EventKind::asking_model, EventKind::attempt_started,
                                                EventKind::llm_answer, EventKind::check_result, EventKind::metrics,
                                                EventKind::finished}))
      << kindsText(s.kinds());
  const DesignEvent& asking = s.events[0];
  EXPECT_EQ(asking.model, model());
  EXPECT_EQ(asking.endpoint, server.baseUrl() + (style() == ApiStyle::openai ? "/chat/completions" : "/messages"));
  const DesignEvent& llm = *s.first(EventKind::llm_answer);
  ASSERT_TRUE(llm.llm);
  EXPECT_EQ(llm.llm->model, model());
  EXPECT_EQ(llm.llm->promptTokens, 1000);
  EXPECT_EQ(llm.llm->completionTokens, 200);
  EXPECT_EQ(llm.llm->httpAttempts, 1);
  // List prices (US$ per million tokens, xray's table): gpt-4o-mini 0.15 in, 0.60 out;
  // claude-3-5-haiku 0.80 in, 4.00 out.
  ASSERT_TRUE(llm.llm->costUsd);
  EXPECT_NEAR(*llm.llm->costUsd, style() == ApiStyle::openai ? 0.000270 : 0.0016, 1e-12);
  const DesignEvent& metrics = *s.first(EventKind::metrics);
  ASSERT_TRUE(metrics.metrics);
  EXPECT_EQ(metrics.metrics->params, 97);
  EXPECT_TRUE(metrics.message.starts_with("model: Tiny regression MLP — 97 parameters")) << metrics.message;

  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  expectWellFormed(seen[0]);
  EXPECT_NE(lastUserTurn(seen[0]).find("a tiny regression MLP"), std::string::npos);
  // Structured output was asked for.
  if (style() == ApiStyle::openai) EXPECT_EQ(seen[0].body["response_format"]["type"], "json_schema");
  else EXPECT_EQ(seen[0].body["tool_choice"]["name"], "write_spec");

  // The trace: the design span, one LLM call with its usage and cost, one compile.
  const auto spans = s.trace.nodes;
  const auto llmSpan = std::find_if(spans.begin(), spans.end(), [](const xray::TraceNode& n) { return n.name == "llm_call"; });
  ASSERT_NE(llmSpan, spans.end());
  EXPECT_EQ(llmSpan->kind(), "llm");
  EXPECT_EQ(llmSpan->meta()["prompt_tokens"], 1000);
  EXPECT_EQ(llmSpan->meta()["completion_tokens"], 200);
  EXPECT_TRUE(llmSpan->meta().contains("estimated_cost_usd"));
  EXPECT_EQ(std::count_if(spans.begin(), spans.end(), [](const xray::TraceNode& n) { return n.name == "compile_and_trace"; }),
            1);
}

TEST_P(LlmSession, BrokenCodeThenAFix) {
  server.script({answer(style(), sourceJson(brokenSpec())), answer(style(), sourceJson(kGoodSpec))});
  const Session s = run(request());
  ASSERT_TRUE(s.result.ok) << s.result.error;
  ASSERT_EQ(s.result.attempts.size(), 2u);
  const CheckOutcome& failed = *s.result.attempts[0].check;
  EXPECT_EQ(failed.errorKind, "compile_error");
  EXPECT_EQ(failed.line, 8);
  EXPECT_NE(failed.error.find("design.cpp:8:"), std::string::npos) << failed.error;
  EXPECT_NE(failed.error.find("l3"), std::string::npos) << failed.error;
  // The repair round saw the error text, its line and the lines around it.
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  expectWellFormed(seen[1]);
  const std::string repair = lastUserTurn(seen[1]);
  EXPECT_NE(repair.find("Your spec failed (compile_error)"), std::string::npos) << repair;
  EXPECT_NE(repair.find("The error is on line 8:"), std::string::npos) << repair;
  EXPECT_NE(repair.find(">    8 | Tensor forward(const Net& m, Tensor x) { return m.l2(relu(m.l3(x))); }"),
            std::string::npos)
      << repair;
  EXPECT_NE(repair.find("     7 | };"), std::string::npos) << repair;
  EXPECT_EQ(seen[1].body["messages"].size(), style() == ApiStyle::openai ? 4u : 3u);  // (+ system) user, assistant, user
  // What the user saw: the failed check, then the repair request naming the line.
  std::vector<std::string> messages;
  for (const DesignEvent& e : s.events) messages.push_back(e.message);
  EXPECT_NE(std::find_if(messages.begin(), messages.end(),
                         [](const std::string& m) { return m.starts_with("attempt 1: compile_error at line 8:\n"); }),
            messages.end());
  EXPECT_NE(std::find(messages.begin(), messages.end(), "attempt 2: asking for a fix of the compile_error at line 8"),
            messages.end());
}

TEST_P(LlmSession, AShapeErrorThenAFix) {
  server.script({answer(style(), sourceJson(shapeErrorSpec())), answer(style(), sourceJson(kGoodSpec))});
  const Session s = run(request());
  ASSERT_TRUE(s.result.ok) << s.result.error;
  const CheckOutcome& failed = *s.result.attempts.at(0).check;
  EXPECT_EQ(failed.errorKind, "trace_error");
  EXPECT_EQ(failed.line, 8);
  EXPECT_NE(failed.error.find("design.cpp:8: Linear: layer 'l2': the input's last axis is"), std::string::npos)
      << failed.error;
  const std::string repair = lastUserTurn(server.requests().at(1));
  EXPECT_NE(repair.find("the input's last axis is"), std::string::npos);
  EXPECT_NE(repair.find("The error is on line 8:"), std::string::npos);
}

TEST_P(LlmSession, InvalidJsonTwiceFallsBackOffline) {
  server.script({answer(style(), "{source: this is not JSON")});
  const Session s = run(request(/*maxRepairs=*/1));
  ASSERT_TRUE(s.result.ok) << s.result.error;  // the offline designer's spec
  EXPECT_TRUE(s.result.offline);
  EXPECT_NE(s.result.fallbackReason.find("the model's answers held no spec (the answer is not valid JSON"),
            std::string::npos)
      << s.result.fallbackReason;
  EXPECT_EQ(s.kinds(), (std::vector<EventKind>{EventKind::asking_model, EventKind::attempt_started,
                                                EventKind::llm_answer, EventKind::answer_unusable,
                                                EventKind::attempt_started, EventKind::llm_answer,
                                                EventKind::answer_unusable, EventKind::fallback_offline,
                                                EventKind::offline_choice, EventKind::check_result,
                                                EventKind::metrics, EventKind::finished}))
      << kindsText(s.kinds());
  const DesignEvent& fallback = *s.first(EventKind::fallback_offline);
  EXPECT_TRUE(fallback.message.ends_with("\nfalling back to the offline designer")) << fallback.message;
  // The second round told the model what was wrong.
  const std::string again = lastUserTurn(server.requests().at(1));
  EXPECT_NE(again.find("I could not use your answer: the answer is not valid JSON"), std::string::npos) << again;
  EXPECT_EQ(s.result.offlineChoice->templateName, "mlp");
  EXPECT_EQ(s.first(EventKind::finished)->message,
            "designed in 1 attempt by the offline designer, after 2 unusable answers from the model");
}

TEST_P(LlmSession, CodeInAMarkdownFence) {
  server.script({answer(style(), "Here is your spec:\n\n```cpp\n" + kGoodSpec + "```\n\nIt has 97 parameters.")});
  const Session s = run(request());
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_EQ(s.result.source, kGoodSpec);
  EXPECT_EQ(s.result.attempts.size(), 1u);
  EXPECT_FALSE(s.result.offline);
}

TEST_P(LlmSession, ATimeoutFallsBackOffline) {
  server.script({Reply{200, "{}", {}, 3000}});
  DesignRequest r = request();
  r.http.requestTimeout = std::chrono::milliseconds(500);
  r.http.maxRetries = 0;
  const auto start = std::chrono::steady_clock::now();
  const Session s = run(r);
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_TRUE(s.result.offline);
  const DesignEvent* fallback = s.first(EventKind::fallback_offline);
  ASSERT_NE(fallback, nullptr);
  EXPECT_NE(fallback->reason.find("no answer from " + server.baseUrl()), std::string::npos) << fallback->reason;
  EXPECT_NE(fallback->reason.find("in time"), std::string::npos) << fallback->reason;
  // The client gave up at its limit, not when the server would have answered.
  const auto fellBackAt = s.eventTimes[static_cast<std::size_t>(fallback - s.events.data())];
  EXPECT_LT(fellBackAt - start, std::chrono::milliseconds(2500));
}

TEST_P(LlmSession, RateLimitedThenServed) {
  Reply limited = apiError(429, "Rate limit reached");
  limited.headers = {{"Retry-After", "1"}};
  server.script({limited, answer(style(), sourceJson(kGoodSpec))});
  const Session s = run(request());
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_FALSE(s.result.offline);
  const DesignEvent* retry = s.first(EventKind::retrying);
  ASSERT_NE(retry, nullptr);
  ASSERT_TRUE(retry->retry);
  EXPECT_EQ(retry->retry->status, 429);
  EXPECT_EQ(retry->retry->seconds, 1.0);
  EXPECT_TRUE(retry->retry->fromRetryAfter);
  EXPECT_EQ(retry->message, "attempt 1: HTTP 429 (rate limited), retrying in 1 s as the server asked (Retry-After)");
  EXPECT_EQ(s.first(EventKind::llm_answer)->llm->httpAttempts, 2);
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_GE(seen[1].at - seen[0].at, std::chrono::milliseconds(950));
}

TEST_P(LlmSession, ServerErrorsFallBackAfterTheRetries) {
  server.script({apiError(500, "The server had an error while processing your request.")});
  DesignRequest r = request();
  r.http.maxRetries = 2;
  const Session s = run(r);
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_TRUE(s.result.offline);
  EXPECT_EQ(server.requests().size(), 3u);
  const std::string expected = (style() == ApiStyle::openai ? server.baseUrl() + "/chat/completions"
                                                            : server.baseUrl() + "/messages") +
                               " kept failing: HTTP 500 after 3 attempts — the endpoint said: The server had an "
                               "error while processing your request.";
  EXPECT_EQ(s.result.fallbackReason, expected);
  std::size_t retries = 0;
  for (const DesignEvent& e : s.events) retries += e.kind == EventKind::retrying;
  EXPECT_EQ(retries, 2u);
}

// Bytes that are not UTF-8, from the user (the description) and from the endpoint (an error
// page): the request is still valid JSON, and every event can still be written as JSON (run()
// writes them all); the bytes are shown as U+FFFD.
TEST_P(LlmSession, BytesThatAreNotUtf8AreShownReplaced) {
  server.script({Reply{404, "no route \xff\xfe here", {}, 0}});
  DesignRequest r = request();
  r.prompt = "a tiny regression MLP \xc3";
  const Session s = run(r);
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_TRUE(s.result.offline);
  ASSERT_EQ(server.requests().size(), 1u);
  ASSERT_TRUE(server.requests()[0].body.is_object());
  EXPECT_NE(lastUserTurn(server.requests()[0]).find("a tiny regression MLP \xEF\xBF\xBD"), std::string::npos);
  EXPECT_NE(s.result.fallbackReason.find("the endpoint said: no route \xEF\xBF\xBD\xEF\xBF\xBD here"),
            std::string::npos)
      << s.result.fallbackReason;
  const DesignEvent& fallback = *s.first(EventKind::fallback_offline);
  EXPECT_EQ(fallback.reason, s.result.fallbackReason);
}

TEST_P(LlmSession, UnauthorizedSaysSoWithoutTheKey) {
  // An endpoint that echoes the key it was sent: the designer must still never show it.
  server.script({apiError(401, std::string("Incorrect API key provided: ") + kTestKey)});
  const Session s = run(request());
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_TRUE(s.result.offline);
  EXPECT_EQ(server.requests().size(), 1u);  // a 401 is not retried
  const std::string keyVar = style() == ApiStyle::openai ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
  EXPECT_NE(s.result.fallbackReason.find("refused the API key (HTTP 401): check NNDNA_LLM_API_KEY (or " + keyVar + ")"),
            std::string::npos)
      << s.result.fallbackReason;
  EXPECT_NE(s.result.fallbackReason.find("Incorrect API key provided: [REDACTED]"), std::string::npos)
      << s.result.fallbackReason;
}

INSTANTIATE_TEST_SUITE_P(BothStyles, LlmSession, ::testing::Values(ApiStyle::openai, ApiStyle::anthropic),
                         [](const auto& info) { return std::string(apiStyleName(info.param)); });

// --- Cases of one style ------------------------------------------------------------------------

class LlmEndpoint : public ::testing::Test {
 protected:
  DesignRequest request(std::string baseUrl) const {
    DesignRequest r;
    r.prompt = "a tiny regression MLP";
    r.endpoint = Endpoint{.baseUrl = std::move(baseUrl), .model = kOpenAiModel, .apiKey = kTestKey};
    r.http.backoffBase = std::chrono::milliseconds(50);
    r.run.cacheDir = NNDNA_TEST_CACHE_DIR;
    return r;
  }
  FakeModel server;
};

TEST_F(LlmEndpoint, AKeyWithALineBreakIsNotSent) {
  DesignRequest r = request(server.baseUrl());
  r.endpoint->apiKey = "sk-abc\r\nX-Injected: 1";
  const DesignResult result = design(r);
  EXPECT_TRUE(result.offline);
  EXPECT_EQ(result.fallbackReason, "the API key contains a line break: check NNDNA_LLM_API_KEY");
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(LlmEndpoint, NotFoundNamesTheUrlAndTheModel) {
  server.script({apiError(404, "The model `gpt-4o-mini` does not exist")});
  const DesignResult r = design(request(server.baseUrl()));
  EXPECT_TRUE(r.offline);
  EXPECT_EQ(r.fallbackReason, server.baseUrl() +
                                  "/chat/completions answered HTTP 404: no such endpoint or model — check the base "
                                  "URL (OpenAI-style URLs usually end in /v1) and the model name 'gpt-4o-mini' — the "
                                  "endpoint said: The model `gpt-4o-mini` does not exist");
}

TEST_F(LlmEndpoint, ConnectionRefused) {
  // A port nothing listens on: the fake server's, after it is stopped.
  std::string url;
  {
    FakeModel gone;
    url = gone.baseUrl();
  }
  const DesignResult r = design(request(url));
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.offline);
  EXPECT_TRUE(r.fallbackReason.starts_with("cannot connect to " + url + "/chat/completions:")) << r.fallbackReason;
  EXPECT_NE(r.fallbackReason.find("is the server running"), std::string::npos);
}

TEST_F(LlmEndpoint, WithoutStructuredOutputItAsksAgainPlainly) {
  // An older server that rejects response_format: the designer asks once more without it.
  server.script({apiError(400, "Unrecognized request argument supplied: response_format"),
                 answer(ApiStyle::openai, sourceJson(kGoodSpec))});
  const DesignResult r = design(request(server.baseUrl()));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.offline);
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(seen[0].body.contains("response_format"));
  EXPECT_FALSE(seen[1].body.contains("response_format"));
}

TEST_F(LlmEndpoint, RepairsRunOutAndTheLastErrorIsKept) {
  server.script({answer(ApiStyle::openai, sourceJson(brokenSpec()))});
  DesignRequest req = request(server.baseUrl());
  req.maxRepairs = 2;
  req.sourceName = "adder.cpp";
  std::vector<DesignEvent> events;
  const DesignResult r = design(req, [&](const DesignEvent& e) { events.push_back(e); });
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.offline);  // a spec that fails is the user's to fix, not replaced
  EXPECT_EQ(r.attempts.size(), 3u);
  EXPECT_EQ(r.source, brokenSpec());
  EXPECT_EQ(r.errorLine, 8);
  EXPECT_NE(r.error.find("adder.cpp:8:"), std::string::npos) << r.error;
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().message, "no working spec after 3 attempts; the last error is shown above (line 8)");
  EXPECT_FALSE(events.back().ok);
}

TEST_F(LlmEndpoint, ProxiesFromTheEnvironmentAreUsed) {
  // The base URL's host does not exist; the proxy (our fake) answers for it.
  server.script({answer(ApiStyle::openai, sourceJson(kGoodSpec))});
  ::setenv("http_proxy", ("http://127.0.0.1:" + std::to_string(server.port())).c_str(), 1);
  const DesignResult r = design(request("http://model.invalid/v1"));
  ::unsetenv("http_proxy");
  ASSERT_TRUE(r.ok) << r.fallbackReason;
  EXPECT_FALSE(r.offline);
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].path, "http://model.invalid/v1/chat/completions");  // the absolute form a proxy gets
}

TEST_F(LlmEndpoint, CancellationStopsAWaitingRequest) {
  server.script({Reply{200, "{}", {}, 3000}});
  std::stop_source stop;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop.request_stop();
  });
  const auto start = std::chrono::steady_clock::now();
  std::vector<DesignEvent> events;
  const DesignResult r =
      design(request(server.baseUrl()), [&](const DesignEvent& e) { events.push_back(e); }, stop.get_token());
  const auto took = std::chrono::steady_clock::now() - start;
  canceller.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.offline);  // cancelled, not fallen back
  EXPECT_LT(took, std::chrono::milliseconds(2000));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().kind, EventKind::finished);
  EXPECT_EQ(events.back().message, "the design was cancelled");
}

}  // namespace
}  // namespace nndna::designer
