// Past flow-xray 0.3.6: LLM usage read from responses, redaction of nested JSON keys,
// normalised previews, flow-xray 0.3.x trace JSON, the overview, the diff, OTLP/JSON, Value's
// accumulating backward; and the header: light, two spans on one line.
// The public header included first: it must not bring in fmt, nlohmann/json.hpp or <sstream>
// (checked before anything else, gtest included, does).
#include <nndna/xray.hpp>
#include <nndna/xray_traced.hpp>
#include <nndna/xray_trace.hpp>
#include <nndna/xray_value.hpp>

#ifdef FMT_VERSION
#error "xray.hpp includes fmt"
#endif
#ifdef INCLUDE_NLOHMANN_JSON_HPP_
#error "xray.hpp includes nlohmann/json.hpp"
#endif
#ifdef _GLIBCXX_SSTREAM
#error "xray.hpp includes <sstream>"
#endif

#include <gtest/gtest.h>

#include <limits>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "trace_lookup.hpp"

namespace {

namespace xr = nndna::xray;
using xray_test::input;
using xray_test::only;
using nlohmann::json;



#define TWO_SPANS XRAY_SPAN("first_of_two"); XRAY_SPAN("second_of_two")

TEST(Header, TwoSpansOnOneLineCompileAndNest) {
  xr::Session session;
  {
    TWO_SPANS;
  }
  auto trace = session.finish();
  ASSERT_EQ(trace.nodes.size(), 2u);
  EXPECT_EQ(trace.nodes[1].name, "second_of_two");
  EXPECT_EQ(trace.nodes[1].parent, 0u);
}

// --- LLM usage from responses -------------------------------------------------------------------

TEST(LlmUsage, ReadFromOpenAiAndAnthropicResponsesPassedAsOutput) {
  json openAi = json::parse(R"({"id": "chatcmpl-1", "model": "gpt-4o-mini-2024-07-18",
      "choices": [{"message": {"role": "assistant", "content": "hi"}}],
      "usage": {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500}})");
  std::string anthropic = R"({"id": "msg_1", "type": "message", "model": "claude-3-5-sonnet-20241022",
      "content": [{"type": "text", "text": "hello"}], "usage": {"input_tokens": 2000, "output_tokens": 100}})";
  xr::Session session;
  {
    xr::Span s("openai", {}, {.kind = "llm"});
    s.output(openAi);
  }
  {
    auto call = xr::traced("anthropic", [&] { return anthropic; }, {.kind = "llm"});
    call();
  }
  {
    xr::Span s("annotated_wins");
    xr::annotate({.model = "gpt-4o", .promptTokens = 1, .completionTokens = 2});
    s.output(openAi);
  }
  auto trace = session.finish();
  const auto& a = only(trace, "openai").meta();
  EXPECT_EQ(a["model"], "gpt-4o-mini-2024-07-18");
  EXPECT_EQ(a["prompt_tokens"], 1200);
  EXPECT_EQ(a["completion_tokens"], 300);
  EXPECT_EQ(a["total_tokens"], 1500);
  // gpt-4o-mini: (1200 x 0.15 + 300 x 0.60) / 1e6 = 0.00036
  EXPECT_NEAR(a["estimated_cost_usd"].get<double>(), 0.00036, 1e-15);
  const auto& b = only(trace, "anthropic").meta();
  EXPECT_EQ(b["model"], "claude-3-5-sonnet-20241022");
  EXPECT_EQ(b["prompt_tokens"], 2000);
  EXPECT_EQ(b["completion_tokens"], 100);
  EXPECT_EQ(b["total_tokens"], 2100);
  // claude-3-5-sonnet: (2000 x 3 + 100 x 15) / 1e6 = 0.0075
  EXPECT_NEAR(b["estimated_cost_usd"].get<double>(), 0.0075, 1e-15);
  EXPECT_EQ(only(trace, "annotated_wins").meta()["model"], "gpt-4o");
  EXPECT_EQ(xr::summarize(trace).totalTokens, 1500 + 2100 + 3);
}

TEST(LlmUsage, AResponsesCountsPastTheIntegerRangeSaturateTheirTotal) {
  // A response is whatever the service (or a proxy) sent: counts are kept as read, and the total
  // is summed as every token count is (a negative as 0, saturating at 2^63-1; before, a sum past
  // the 64-bit range was a signed overflow: undefined).
  json huge = json::parse(R"({"model": "gpt-4o", "usage": {"prompt_tokens": 9223372036854775807,
      "completion_tokens": 5}})");
  json negative = json::parse(R"({"model": "gpt-4o", "usage": {"prompt_tokens": -9223372036854775807,
      "completion_tokens": -5}})");
  xr::Session session;
  {
    xr::Span s("huge", {}, {.kind = "llm"});
    s.output(huge);
  }
  {
    xr::Span s("negative", {}, {.kind = "llm"});
    s.output(negative);
  }
  auto trace = session.finish();
  const auto& h = only(trace, "huge").meta();
  EXPECT_EQ(h["prompt_tokens"], std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(h["completion_tokens"], 5);
  EXPECT_EQ(h["total_tokens"], std::numeric_limits<std::int64_t>::max());
  const auto& n = only(trace, "negative").meta();
  EXPECT_EQ(n["prompt_tokens"], -9223372036854775807);
  EXPECT_EQ(n["total_tokens"], 0);
}

// --- Redaction and normalisation ----------------------------------------------------------------

TEST(Redaction, NestedKeysOfJsonInputsAndOutputsAreRedacted) {
  json request = {{"auth", {{"token", "tok-secret-1"}, {"user", "ada"}}},
                  {"headers", json::array({{{"Authorization", "Bearer sk-2"}}})},
                  {"ssn_field", {{"ssn", "123"}}}};
  std::string asText = R"({"config": {"password": "hunter2", "retries": 3}})";
  xr::Session session;
  {
    xr::Span s("call", {{"request", request}, {"text", asText}, {"plain", "password: not json"}}, {.redact = {"ssn"}});
    s.output(json{{"session", {{"access_token", "tok-3"}, {"ok", true}}}});
  }
  auto trace = session.finish();
  const auto& n = only(trace, "call");
  EXPECT_EQ(json::parse(input(n, "request")),
            json::parse(R"({"auth": {"token": "[REDACTED]", "user": "ada"},
                            "headers": [{"Authorization": "[REDACTED]"}], "ssn_field": {"ssn": "[REDACTED]"}})"));
  EXPECT_EQ(json::parse(input(n, "text")), json::parse(R"({"config": {"password": "[REDACTED]", "retries": 3}})"));
  EXPECT_EQ(input(n, "plain"), "password: not json");  // not JSON: left as it is
  EXPECT_EQ(json::parse(*n.output()), json::parse(R"({"session": {"access_token": "[REDACTED]", "ok": true}})"));
  for (const char* secret : {"tok-secret-1", "sk-2", "hunter2", "tok-3"})
    EXPECT_EQ(xr::toJsonText(trace).find(secret), std::string::npos) << secret;
}

TEST(Normalization, UuidsTimestampsAndTempPathsInPreviewsWhenSwitchedOn) {
  EXPECT_EQ(xr::normalizePreview("job 123e4567-e89b-12d3-a456-426614174000 at 2024-05-01T12:30:45.123Z in "
                                 "/tmp/run-42/out.json and /home/ada/projects/x.txt"),
            "job <uuid> at <timestamp> in <tmp:out.json> and <path:x.txt>");
  EXPECT_EQ(xr::normalizePreview("2024-05-01 12:30:45+02:00 /tmpfoo not-a-uuid-123"),
            "<timestamp> /tmpfoo not-a-uuid-123");
  const std::string text = "saved /tmp/a/b.txt as 0f8fad5b-d9cb-469f-a165-70867728950e";
  xr::Session off;
  {
    XRAY_SPAN("raw", {{"t", text}});
  }
  EXPECT_EQ(input(off.finish().nodes[0], "t"), text);  // off by default
  xr::setNormalizePreviews(true);
  xr::Session on;
  {
    XRAY_SPAN("normalized", {{"t", text}});
  }
  auto trace = on.finish();
  xr::setNormalizePreviews(false);
  EXPECT_EQ(input(trace.nodes[0], "t"), "saved <tmp:b.txt> as <uuid>");
}

// --- flow-xray 0.3.x trace JSON -----------------------------------------------------------------

TEST(FlowXray, ReadsVersion03TraceJsonWithTagsAsAnObject) {
  // flow-xray 0.3.6's TraceResult.to_json(): kind and tags (an object) only when set, meta only
  // when non-empty, outputs and inputs as previews (JSON text).
  const std::string text = R"({"nodes": [{"id": "t1", "name": "agent", "inputs": {"query": "\"weather?\""},
      "output": "\"sunny\"", "error": null, "start_ms": 0.0, "latency_ms": 12.5, "kind": "agent",
      "tags": {"prod": true, "team": "search", "attempt": 2},
      "children": [{"id": "t2", "name": "call_llm", "inputs": {}, "output": "null", "error": "ValueError: bad",
        "start_ms": 1.25, "latency_ms": 10.0, "children": [],
        "meta": {"model": "gpt-4o", "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
                 "estimated_cost_usd": 7.5e-05}}]}]})";
  std::istringstream in(text);
  xr::Trace trace = xr::readTraceJson(in);
  ASSERT_EQ(trace.nodes.size(), 2u);
  const auto& agent = trace.nodes[0];
  EXPECT_EQ(agent.kind(), "agent");
  EXPECT_EQ(std::set<std::string>(agent.tags().begin(), agent.tags().end()),
            (std::set<std::string>{"prod", "team=search", "attempt=2"}));
  EXPECT_EQ(input(agent, "query"), "\"weather?\"");
  EXPECT_EQ(trace.nodes[1].error(), "ValueError: bad");
  EXPECT_EQ(xr::summarize(trace).totalTokens, 15);
  // The same through a JSON value.
  EXPECT_EQ(xr::traceFromJson(json::parse(text)).nodes[0].tags().size(), 3u);
}

// --- Overview --------------------------------------------------------------------------------------

// A trace built by hand: root [0, 100] with children a [0, 30], b [10, 90] (with b1 [20, 85]),
// a second "a" with the same inputs [30, 40], and an llm call.
xr::Trace handMade() {
  xr::Trace t;
  auto add = [&](std::string id, std::string name, double start, double latency, std::optional<std::size_t> parent) {
    xr::TraceNode& n = t.nodes.emplace_back();
    n.id = std::move(id);
    n.name = std::move(name);
    n.startMs = start;
    n.latencyMs = latency;
    n.parent = parent;
    if (parent) t.nodes[*parent].children.push_back(t.nodes.size() - 1);
    return t.nodes.size() - 1;
  };
  add("s1", "root", 0, 100, std::nullopt);
  add("s2", "a", 0, 30, 0);
  t.nodes[1].addInput("q", "x");
  add("s3", "b", 10, 80, 0);
  add("s4", "b1", 20, 65, 2);
  t.nodes[3].setError("std::runtime_error: b1 failed");
  add("s5", "a", 30, 10, 0);
  t.nodes[4].addInput("q", "x");
  add("s6", "llm", 40, 5, 0);
  t.nodes[5].mutableMeta() = {{"model", "gpt-4o"}, {"prompt_tokens", 1000}, {"completion_tokens", 100},
                               {"total_tokens", 1100}, {"estimated_cost_usd", 0.0035}};
  t.roots = {0};
  t.startUnixMs = 1'700'000'000'000;
  t.title = "hand-made";
  return t;
}

// Adds a span under the root of handMade() (its node 0).
xr::TraceNode& addUnderRoot(xr::Trace& t, std::string id, std::string name, double start, double latency) {
  xr::TraceNode& n = t.nodes.emplace_back();
  n.id = std::move(id);
  n.name = std::move(name);
  n.startMs = start;
  n.latencyMs = latency;
  n.parent = 0;
  t.nodes[0].children.push_back(t.nodes.size() - 1);
  return n;
}

TEST(Overview, CriticalPathSlowestRepeatedErrorsAndModels) {
  xr::TraceOverview o = xr::overview(handMade());
  // root ends at 100; its last-ending child is b (90), whose only child is b1.
  EXPECT_EQ(o.criticalPath, (std::vector<std::size_t>{0, 2, 3}));
  ASSERT_GE(o.slowest.size(), 3u);
  EXPECT_EQ((std::vector<std::size_t>(o.slowest.begin(), o.slowest.begin() + 3)), (std::vector<std::size_t>{0, 2, 3}));
  ASSERT_EQ(o.repeated.size(), 1u);
  EXPECT_EQ(o.repeated[0].name, "a");
  EXPECT_EQ(o.repeated[0].nodes, (std::vector<std::size_t>{1, 4}));
  EXPECT_DOUBLE_EQ(o.repeated[0].totalMs, 40.0);
  EXPECT_EQ(o.errors, (std::vector<std::size_t>{3}));
  ASSERT_EQ(o.models.size(), 1u);
  EXPECT_EQ(o.models[0].model, "gpt-4o");
  EXPECT_EQ(o.models[0].calls, 1u);
  EXPECT_EQ(o.models[0].promptTokens, 1000);
  EXPECT_EQ(o.models[0].completionTokens, 100);
  EXPECT_DOUBLE_EQ(o.models[0].costUsd, 0.0035);
}

// Token counts in the model table are whole numbers in 0..2^63-1 (xray/token_count.hpp), and their
// sums saturate: a count written as 12.0 counts, a negative or fractional one does not.
TEST(Overview, ModelTokenCountsAreWholeNumbersAndSaturate) {
  xr::Trace t = handMade();
  xr::TraceNode& second = addUnderRoot(t, "s7", "llm", 50, 5);
  second.mutableMeta() = {{"model", "gpt-4o"}, {"prompt_tokens", 12.0}, {"completion_tokens", -3}};
  xr::TraceOverview o = xr::overview(t);
  ASSERT_EQ(o.models.size(), 1u);
  EXPECT_EQ(o.models[0].calls, 2u);
  EXPECT_EQ(o.models[0].promptTokens, 1012);
  EXPECT_EQ(o.models[0].completionTokens, 100);

  t.nodes[5].mutableMeta()["prompt_tokens"] = std::numeric_limits<std::int64_t>::max();
  t.nodes.back().mutableMeta()["prompt_tokens"] = 5;
  t.nodes.back().mutableMeta()["completion_tokens"] = 1.45e95;
  o = xr::overview(t);
  EXPECT_EQ(o.models[0].promptTokens, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(o.models[0].completionTokens, 100);
}

// --- Diff ---------------------------------------------------------------------------------------------

TEST(Diff, SpansAddedRemovedAndChangedWithLatencyAndCostDeltas) {
  xr::Trace before = handMade();
  xr::Trace after = handMade();
  after.nodes[1].setOutput("new answer");           // /root[0]/a[0]: output changed
  after.nodes[3].setError(std::nullopt);             // /root[0]/b[0]/b1[0]: error fixed
  after.nodes[2].latencyMs = 95;                     // b: +15 ms
  after.nodes[0].children.pop_back();                // the llm call removed…
  after.nodes.pop_back();
  addUnderRoot(after, "s7", "tool", 50, 5);            // …and a tool call added

  xr::TraceDiff d = xr::diffTraces(before, after);
  EXPECT_EQ(d.changed, 2u);
  EXPECT_EQ(d.removed, 1u);
  EXPECT_EQ(d.added, 1u);
  EXPECT_EQ(d.same, 3u);  // root, b (its latency changed, its output and error did not), a[1]
  std::map<std::string, const xr::SpanChange*> byPath;
  for (const auto& c : d.spans) byPath[c.path] = &c;
  EXPECT_TRUE(byPath.at("/root[0]/a[0]")->outputChanged);
  EXPECT_TRUE(byPath.at("/root[0]/b[0]/b1[0]")->errorChanged);
  EXPECT_DOUBLE_EQ(byPath.at("/root[0]/b[0]")->latencyDeltaMs, 15.0);
  EXPECT_FALSE(byPath.at("/root[0]/llm[0]")->after);
  EXPECT_FALSE(byPath.at("/root[0]/tool[0]")->before);
  EXPECT_DOUBLE_EQ(d.costDeltaUsd, -0.0035);  // the llm call (and its cost) is gone
  std::string html = xr::diffHtml(before, after, d, "runs <1> & <2>");
  EXPECT_NE(html.find("<title>runs &lt;1&gt; &amp; &lt;2&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("<span id=\"count-changed\">2 changed</span>"), std::string::npos);
  EXPECT_NE(html.find("/root[0]/tool[0]"), std::string::npos);
  EXPECT_NE(html.find("new answer"), std::string::npos);
}

// --- OTLP/JSON -------------------------------------------------------------------------------------

std::map<std::string, json> attributes(const json& span) {
  std::map<std::string, json> out;
  for (const auto& a : span["attributes"]) out[a["key"]] = a["value"];
  return out;
}

TEST(Otlp, SpansWithIdsParentsNanosecondTimesAndGenAiAttributes) {
  xr::Trace trace = handMade();
  trace.nodes[5].setKind("llm");
  json doc = xr::toOtlpJson(trace, {.serviceName = "agent-service"});
  const json& resource = doc["resourceSpans"][0];
  EXPECT_EQ(resource["resource"]["attributes"][0], json::parse(R"({"key": "service.name", "value": {"stringValue": "agent-service"}})"));
  const json& spans = resource["scopeSpans"][0]["spans"];
  ASSERT_EQ(spans.size(), 6u);
  std::set<std::string> ids;
  for (const auto& s : spans) {
    EXPECT_EQ(s["traceId"].get<std::string>().size(), 32u);
    EXPECT_EQ(s["traceId"], spans[0]["traceId"]);
    std::string id = s["spanId"];
    EXPECT_EQ(id.size(), 16u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 6u);
  EXPECT_FALSE(spans[0].contains("parentSpanId"));
  EXPECT_EQ(spans[3]["parentSpanId"], spans[2]["spanId"]);  // b1 under b
  // b starts 10 ms after 1,700,000,000,000 ms and lasts 80 ms: times in ns, as strings.
  EXPECT_EQ(spans[2]["startTimeUnixNano"], "1700000000010000000");
  EXPECT_EQ(spans[2]["endTimeUnixNano"], "1700000000090000000");
  EXPECT_EQ(spans[3]["status"]["code"], 2);
  EXPECT_EQ(spans[3]["status"]["message"], "std::runtime_error: b1 failed");
  EXPECT_EQ(spans[0]["status"]["code"], 0);
  const json& llm = spans[5];
  EXPECT_EQ(llm["kind"], 3);  // CLIENT
  auto a = attributes(llm);
  EXPECT_EQ(a["gen_ai.operation.name"]["stringValue"], "chat");
  EXPECT_EQ(a["gen_ai.request.model"]["stringValue"], "gpt-4o");
  EXPECT_EQ(a["gen_ai.provider.name"]["stringValue"], "openai");
  EXPECT_EQ(a["gen_ai.usage.input_tokens"]["intValue"], "1000");
  EXPECT_EQ(a["gen_ai.usage.output_tokens"]["intValue"], "100");
  EXPECT_EQ(a["openinference.span.kind"]["stringValue"], "LLM");
  EXPECT_EQ(a["llm.token_count.total"]["intValue"], "1100");
  EXPECT_EQ(spans[1]["kind"], 1);  // INTERNAL
  EXPECT_EQ(attributes(spans[1])["xray.input.q"]["stringValue"], "x");
}

TEST(Otlp, TimesOfAWrongStartOrLatencySaturateInsteadOfOverflowing) {
  // Found by the xray_trace_json fuzz target: a start in the year 2539 overflowed 64 bits in ns.
  xr::Trace trace = handMade();
  trace.startUnixMs = 17'961'277'057'695;
  trace.nodes[1].latencyMs = 1e300;
  json spans = xr::toOtlpJson(trace)["resourceSpans"][0]["scopeSpans"][0]["spans"];
  EXPECT_EQ(spans[0]["startTimeUnixNano"], "9223372036854775807");  // 2^63 - 1
  trace.startUnixMs = 1'700'000'000'000;
  spans = xr::toOtlpJson(trace)["resourceSpans"][0]["scopeSpans"][0]["spans"];
  EXPECT_EQ(spans[1]["endTimeUnixNano"], "9223372036854775807");
  trace.startUnixMs = -17'961'277'057'695;
  spans = xr::toOtlpJson(trace)["resourceSpans"][0]["scopeSpans"][0]["spans"];
  EXPECT_EQ(spans[0]["startTimeUnixNano"], "0");  // the field is unsigned
}

// --- Value -------------------------------------------------------------------------------------------

TEST(Value, BackwardCanAccumulateLikeFlowXraysZeroFirstFalse) {
  xr::Value a(2.0, "a"), b(-3.0, "b");
  xr::Value y = a * b;  // dy/da = b = -3, dy/db = a = 2
  y.backward();
  EXPECT_DOUBLE_EQ(a.grad(), -3.0);
  y.backward({.accumulate = true});  // grads add: a -3 + -3
  EXPECT_DOUBLE_EQ(a.grad(), -6.0);
  EXPECT_DOUBLE_EQ(b.grad(), 4.0);
  EXPECT_DOUBLE_EQ(y.grad(), 1.0);  // the root is set to the seed, not added to
  y.backward();  // zeroes first again
  EXPECT_DOUBLE_EQ(a.grad(), -3.0);
  xr::backwardFrom(y, {.seed = 2.0, .accumulate = true});
  EXPECT_DOUBLE_EQ(a.grad(), -3.0 + -6.0);
}

}  // namespace
