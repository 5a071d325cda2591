// xray must never break or mislead the program it traces (issue #15, first part): values whose
// text cannot be made, null C strings, rethrown exceptions, streamed timestamps, sessions started
// inside spans, coroutines that suspend inside spans, the stream closed while a line is written,
// the price table, and trace JSON of very deep nesting.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <coroutine>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "trace_lookup.hpp"

namespace {

namespace xr = nndna::xray;
using xray_test::input;
using xray_test::only;
namespace fs = std::filesystem;
using nlohmann::json;



fs::path tempFile(const std::string& stem) {
  return fs::temp_directory_path() / (stem + "_" + std::to_string(::getpid()) + ".jsonl");
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Converts to string_view, but refuses to (as nlohmann::json does for a non-string).
struct RefusesText {
  operator std::string_view() const { throw std::runtime_error("no text for you"); }  // NOLINT
};

// --- 1. Any value: JSON as JSON, a conversion that throws falls back -------------------------

TEST(NeverBreak, JsonArgumentsShowAsJsonAndThrowingConversionsFallBack) {
  json body = {{"model", "gpt-4o"}, {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}};
  json number = 42;
  xr::Session session;
  {
    XRAY_SPAN("call", {{"body", body}, {"number", number}, {"refuses", RefusesText{}}});
    xr::Span inner("inner");
    inner.output(RefusesText{});
    inner.meta("request", body);
    inner.meta("odd", RefusesText{});
  }
  auto trace = session.finish();
  const auto& call = only(trace, "call");
  // nlohmann::json prints objects with their keys sorted.
  EXPECT_EQ(input(call, "body"), R"({"messages":[{"content":"hi","role":"user"}],"model":"gpt-4o"})");
  EXPECT_EQ(input(call, "number"), "42");
  EXPECT_EQ(input(call, "refuses"), "<(anonymous namespace)::RefusesText>");
  const auto& inner = only(trace, "inner");
  EXPECT_EQ(inner.output(), "<(anonymous namespace)::RefusesText>");
  EXPECT_EQ(inner.meta()["request"], body);  // JSON metadata stays JSON
  EXPECT_EQ(inner.meta()["odd"], "<(anonymous namespace)::RefusesText>");
}

// xray.hpp does not name nlohmann::json: JSON values are recognised by their dump() and a user's
// to_json is called through a capture that becomes the JSON type it asks for.
struct Credentials {
  std::string user;
  std::string token;
};
void to_json(json& j, const Credentials& c) { j = {{"auth", {{"user", c.user}, {"token", c.token}}}}; }
struct ThrowsInToJson {};
void to_json(json& j, const ThrowsInToJson&) {
  j = json::array({1, 2, 3});  // the capture holds a value when the throw comes: it must be freed
  throw std::runtime_error("to_json failed");
}

TEST(NeverBreak, JsonOfAnyKindWithoutNamingItInTheHeader) {
  nlohmann::ordered_json ordered = {{"zeta", 1}, {"alpha", 2}};  // another basic_json: its own order
  json deep = 0;
  for (int i = 0; i < 300; ++i) deep = json::array({deep});
  xr::Session session;
  {
    XRAY_SPAN("call", {{"ordered", ordered}, {"deep", deep}, {"creds", Credentials{"ada", "sk-1"}},
                       {"throws", ThrowsInToJson{}}});
  }
  auto trace = session.finish();
  const auto& call = only(trace, "call");
  EXPECT_EQ(input(call, "ordered"), R"({"zeta":1,"alpha":2})");
  EXPECT_EQ(input(call, "deep"), "<JSON nested deeper than 256 levels>");
  EXPECT_EQ(input(call, "creds"), R"({"auth":{"token":"[REDACTED]","user":"ada"}})");
  EXPECT_EQ(input(call, "throws"), "<(anonymous namespace)::ThrowsInToJson>");
  EXPECT_EQ(xr::toText(Credentials{"bo", "t"}), R"({"auth":{"token":"t","user":"bo"}})");  // toText does not redact
}

// --- 2. A null C string --------------------------------------------------------------------------

TEST(NeverBreak, NullCStringIsRecordedAsNull) {
  const char* unset = std::getenv("NNDNA_XRAY_TEST_SURELY_UNSET_VARIABLE");
  ASSERT_EQ(unset, nullptr);
  char* mutableNull = nullptr;
  xr::Session session;
  {
    XRAY_SPAN("env", {{"home", unset}, {"other", mutableNull}});
    xr::annotate("value", unset);
  }
  auto trace = session.finish();
  EXPECT_EQ(input(only(trace, "env"), "home"), "null");
  EXPECT_EQ(input(only(trace, "env"), "other"), "null");
  EXPECT_EQ(only(trace, "env").meta()["value"], "null");
  EXPECT_EQ(xr::toText(unset), "null");
}

// --- 3. Rethrown exceptions are recorded as themselves ------------------------------------------

TEST(NeverBreak, RethrownExceptionsAreRecordedAsThemselves) {
  xr::Session session;
  {
    // An older exception, thrown and caught inside a span earlier on this thread.
    XRAY_SPAN("earlier");
    try {
      throw std::logic_error("old and unrelated");
    } catch (const std::exception&) {
    }
  }
  std::exception_ptr stored = std::make_exception_ptr(std::runtime_error("stored"));
  try {
    XRAY_SPAN("rethrow_exception");
    std::rethrow_exception(stored);
  } catch (const std::runtime_error&) {
  }
  std::promise<int> promise;
  promise.set_exception(std::make_exception_ptr(std::domain_error("from the future")));
  try {
    XRAY_SPAN("future_get");
    promise.get_future().get();
  } catch (const std::domain_error&) {
  }
  try {
    XRAY_SPAN("bare_rethrow");
    try {
      throw std::out_of_range("first");
    } catch (...) {
      try {
        throw std::length_error("handled inside the handler");
      } catch (...) {
      }
      throw;
    }
  } catch (const std::out_of_range&) {
  }
  auto trace = session.finish();
  EXPECT_FALSE(only(trace, "earlier").error());
  EXPECT_EQ(only(trace, "rethrow_exception").error(), "std::runtime_error: stored");
  EXPECT_EQ(only(trace, "future_get").error(), "std::domain_error: from the future");
  EXPECT_EQ(only(trace, "bare_rethrow").error(), "std::out_of_range: first");
}

// --- 4. Streamed timestamps never go backwards -----------------------------------------------------

TEST(NeverBreak, StreamedTimestampsAreMonotonicAndChildrenStayInsideParents) {
  fs::path path = tempFile("xray_monotonic");
  fs::remove(path);
  xr::startStreaming(path.string());
  constexpr int kOuter = 60'000;  // 3 spans each: 180,000 spans, 360,000 lines
  for (int i = 0; i < kOuter; ++i) {
    XRAY_SPAN("outer");
    {
      XRAY_SPAN("inner");
    }
    XRAY_SPAN("leaf");
  }
  xr::stopStreaming();
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  double previous = -1;
  std::size_t lines = 0, backwards = 0, negative = 0, outside = 0;
  std::map<std::string, double> begins;
  std::map<std::string, std::string> parentOf;
  std::map<std::string, double> ends;
  while (std::getline(in, line)) {
    json e = json::parse(line);
    double t = e["t"].get<double>();
    if (t < previous) ++backwards;
    previous = t;
    ++lines;
    std::string id = e["id"];
    if (e["ev"] == "B") {
      begins[id] = t;
      if (e["parent"].is_string()) {
        parentOf[id] = e["parent"];
        if (t < begins[e["parent"]]) ++outside;
      }
    } else {
      ends[id] = t;
      if (t < begins[id]) ++negative;
      if (auto p = parentOf.find(id); p != parentOf.end() && ends.contains(p->second)) ++outside;  // parent ended first
    }
  }
  fs::remove(path);
  EXPECT_EQ(lines, std::size_t{kOuter} * 6);
  EXPECT_EQ(backwards, 0u);
  EXPECT_EQ(negative, 0u);
  EXPECT_EQ(outside, 0u);
}

// --- 5. A session started inside an open span -------------------------------------------------

TEST(NeverBreak, SessionStartedInsideAStreamedSpanHasNoFakeRoot) {
  fs::path path = tempFile("xray_session_inside");
  xr::startStreaming(path.string());
  xr::Trace trace;
  {
    XRAY_SPAN("before_the_session");
    xr::Session session;
    {
      XRAY_SPAN("inside");
      XRAY_SPAN("deeper");
    }
    trace = session.finish();
  }
  xr::stopStreaming();
  fs::remove(path);
  ASSERT_EQ(trace.nodes.size(), 2u);
  ASSERT_EQ(trace.roots.size(), 1u);
  EXPECT_EQ(trace.nodes[trace.roots[0]].name, "inside");
  EXPECT_FALSE(trace.nodes[trace.roots[0]].open);
  EXPECT_EQ(trace.nodes[1].name, "deeper");
}

// --- 6. Coroutines that suspend inside spans ----------------------------------------------------

// The smallest coroutine task: starts suspended, resumed by hand.
struct Task {
  struct promise_type {
    Task get_return_object() { return Task{std::coroutine_handle<promise_type>::from_promise(*this)}; }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() { std::terminate(); }
  };
  explicit Task(std::coroutine_handle<promise_type> h) : handle(h) {}
  Task(Task&& other) noexcept : handle(std::exchange(other.handle, {})) {}
  ~Task() {
    if (handle) handle.destroy();
  }
  void resume() { handle.resume(); }
  std::coroutine_handle<promise_type> handle;
};

Task suspendsInsideASpan(std::string name) {
  XRAY_SPAN(name);
  co_await std::suspend_always{};
  XRAY_SPAN("after_resume");
}

TEST(NeverBreak, CoroutinesResumedOutOfOrderLoseNoSpanAndAreMarked) {
  xr::Session session;
  {
    XRAY_SPAN("main");
    Task a = suspendsInsideASpan("coroutine_a");
    Task b = suspendsInsideASpan("coroutine_b");
    a.resume();  // opens coroutine_a, suspends inside it
    b.resume();  // opens coroutine_b (on top of coroutine_a), suspends
    a.resume();  // coroutine_a ends while coroutine_b is still open above it
    b.resume();  // coroutine_b ends
    {
      XRAY_SPAN("afterwards");  // nests under main again
    }
  }
  auto trace = session.finish();
  EXPECT_EQ(trace.nodes.size(), 6u);  // main, coroutine_a, coroutine_b, after_resume x2, afterwards
  const auto& a = only(trace, "coroutine_a");
  EXPECT_FALSE(a.open);
  ASSERT_TRUE(a.meta().contains("xray.misnested")) << a.meta().dump();
  EXPECT_NE(a.meta()["xray.misnested"].get<std::string>().find("closed while 1 span opened after it"), std::string::npos);
  const auto& b = only(trace, "coroutine_b");
  EXPECT_FALSE(b.open);
  ASSERT_TRUE(b.meta().contains("xray.misnested"));
  EXPECT_NE(b.meta()["xray.misnested"].get<std::string>().find("outlived"), std::string::npos);
  ASSERT_EQ(trace.warnings.size(), 1u);
  EXPECT_NE(trace.warnings[0].find("2 spans closed out of order"), std::string::npos);
  const auto& afterwards = only(trace, "afterwards");
  ASSERT_TRUE(afterwards.parent);
  EXPECT_EQ(trace.nodes[*afterwards.parent].name, "main");
  EXPECT_FALSE(only(trace, "main").meta().contains("xray.misnested"));
}

TEST(NeverBreak, CoroutineResumedOnAnotherThreadIsRecordedAndMarked) {
  xr::Session session;
  {
    XRAY_SPAN("main");
    Task task = suspendsInsideASpan("coroutine");
    task.resume();                                 // opens "coroutine" on this thread
    std::thread([&] { task.resume(); }).join();  // ends it on another
    XRAY_SPAN("later");
  }
  auto trace = session.finish();
  EXPECT_EQ(trace.nodes.size(), 4u);
  const auto& coroutine = only(trace, "coroutine");
  EXPECT_FALSE(coroutine.open);
  ASSERT_TRUE(coroutine.meta().contains("xray.misnested"));
  EXPECT_NE(coroutine.meta()["xray.misnested"].get<std::string>().find("opened on thread"), std::string::npos);
  const auto& later = only(trace, "later");
  ASSERT_TRUE(later.parent);
  EXPECT_EQ(trace.nodes[*later.parent].name, "main");
}

// --- 7. The stream is never closed under a line being written ----------------------------------

std::atomic<int> g_hookCalls{0};
void slowWrite() {
  if (g_hookCalls.fetch_add(1) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
}

TEST(NeverBreak, StopStreamingWaitsForALineBeingWritten) {
  fs::path streamPath = tempFile("xray_stream_race");
  fs::path otherPath = tempFile("xray_stream_other");
  fs::remove(streamPath);
  fs::remove(otherPath);
  xr::startStreaming(streamPath.string());
  xr::testing::setStreamWriteHook(&slowWrite);
  std::thread writer([] { XRAY_SPAN("written_late"); });
  while (g_hookCalls.load() == 0) std::this_thread::yield();  // the writer holds the descriptor
  xr::stopStreaming();
  // The lowest free descriptor: the stream's, had it been closed under the writer.
  int other = ::open(otherPath.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  ASSERT_GE(other, 0);
  writer.join();
  xr::testing::setStreamWriteHook(nullptr);
  ::close(other);
  EXPECT_EQ(slurp(otherPath), "");
  EXPECT_NE(slurp(streamPath).find("\"written_late\""), std::string::npos);
  fs::remove(streamPath);
  fs::remove(otherPath);
}

// --- 8. Prices: exact names, dated variants to their family, never a neighbour's -----------------

TEST(NeverBreak, EveryListedModelHasItsOwnPrice) {
  // US$ per million input / output tokens, the vendors' list prices (the table in pricing.cpp).
  const std::vector<std::tuple<std::string, double, double>> listed{
      {"gpt-4o", 2.50, 10.00},           {"gpt-4o-mini", 0.15, 0.60},      {"gpt-4.1", 2.00, 8.00},
      {"gpt-4.1-mini", 0.40, 1.60},      {"gpt-4.1-nano", 0.10, 0.40},     {"gpt-4-turbo", 10.00, 30.00},
      {"gpt-4", 30.00, 60.00},           {"gpt-3.5-turbo", 0.50, 1.50},    {"o1", 15.00, 60.00},
      {"o1-mini", 1.10, 4.40},           {"o3-mini", 1.10, 4.40},          {"claude-3-haiku", 0.25, 1.25},
      {"claude-3-opus", 15.00, 75.00},   {"claude-3-5-haiku", 0.80, 4.00}, {"claude-3-5-sonnet", 3.00, 15.00},
      {"claude-3-7-sonnet", 3.00, 15.00}, {"claude-sonnet-4", 3.00, 15.00}, {"claude-opus-4", 15.00, 75.00},
      {"gemini-1.5-flash", 0.075, 0.30}, {"gemini-1.5-pro", 1.25, 5.00}};
  for (const auto& [model, in, out] : listed) {
    auto price = xr::modelPrice(model);
    ASSERT_TRUE(price) << model;
    EXPECT_DOUBLE_EQ(price->inputPerMillion, in) << model;
    EXPECT_DOUBLE_EQ(price->outputPerMillion, out) << model;
    // A million tokens each way cost the two prices.
    EXPECT_DOUBLE_EQ(*xr::estimateCostUsd({.model = model, .promptTokens = 1'000'000, .completionTokens = 1'000'000}),
                     in + out)
        << model;
  }
  // Dated and versioned names take their family's price.
  const std::map<std::string, std::string> variants{
      {"gpt-4o-2024-08-06", "gpt-4o"},
      {"gpt-4o-mini-2024-07-18", "gpt-4o-mini"},
      {"gpt-4.1-nano-2025-04-14", "gpt-4.1-nano"},
      {"gpt-4-turbo-2024-04-09", "gpt-4-turbo"},
      {"gpt-4-0613", "gpt-4"},
      {"gpt-3.5-turbo-0125", "gpt-3.5-turbo"},
      {"o1-2024-12-17", "o1"},
      {"o1-mini-2024-09-12", "o1-mini"},
      {"claude-3-5-sonnet-20241022", "claude-3-5-sonnet"},
      {"claude-3-5-sonnet-latest", "claude-3-5-sonnet"},
      {"claude-3-5-sonnet@20240620", "claude-3-5-sonnet"},
      {"claude-sonnet-4-20250514", "claude-sonnet-4"},
      {"gemini-1.5-pro-002", "gemini-1.5-pro"},
      {"openai/gpt-4o-mini", "gpt-4o-mini"}};
  for (const auto& [variant, family] : variants) {
    auto price = xr::modelPrice(variant);
    ASSERT_TRUE(price) << variant;
    EXPECT_DOUBLE_EQ(price->inputPerMillion, xr::modelPrice(family)->inputPerMillion) << variant;
    EXPECT_DOUBLE_EQ(price->outputPerMillion, xr::modelPrice(family)->outputPerMillion) << variant;
  }
  // A name that merely starts like a listed one is not priced like it.
  EXPECT_FALSE(xr::modelPrice("gpt-4o-realtime-preview"));
  EXPECT_FALSE(xr::modelPrice("gpt-4.1-turbo-imaginary"));
  EXPECT_FALSE(xr::modelPrice("o1-preview-ish"));
}

// --- 10. Trace JSON stays linear in size and bounded in depth ---------------------------------------

xr::Trace chain(std::size_t depth) {
  xr::Trace trace;
  for (std::size_t i = 0; i < depth; ++i) {
    xr::TraceNode& n = trace.nodes.emplace_back();
    n.id = "s" + std::to_string(i + 1);
    n.name = "frame";
    n.startMs = static_cast<double>(i);
    n.latencyMs = static_cast<double>(2 * (depth - i));
    if (i > 0) n.parent = i - 1;
    if (i + 1 < depth) n.children = {i + 1};
  }
  trace.roots = {0};
  return trace;
}

TEST(NeverBreak, JsonOfADeepCallChainIsLinearInSizeAndReadsBack) {
  constexpr std::size_t kDepth = 10'000;
  xr::Trace deep = chain(kDepth);
  std::string text = xr::toJsonText(deep);
  // Each node prints its fields once (~250 bytes, indentation capped): not depth x indentation.
  EXPECT_LT(text.size(), kDepth * 400) << text.size();
  std::istringstream in(text);
  xr::Trace back = xr::readTraceJson(in);
  ASSERT_EQ(back.nodes.size(), kDepth);
  EXPECT_EQ(back.nodes.back().parent, kDepth - 2);
  EXPECT_EQ(xr::toJsonText(back), text);
  // Compact output too.
  EXPECT_LT(xr::toJsonText(deep, false).size(), kDepth * 250);
}

std::string nestedArrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(NeverBreak, MetadataNestedDeeplyIsAClearErrorNotACrash) {
  const std::string deepMeta = nestedArrays(100'000);
  const std::string document = R"({"format": "nndna-xray-trace", "version": 1, "nodes": [{"id": "s1", "name": "a",
      "start_ms": 0, "latency_ms": 1, "meta": {"deep": )" + deepMeta + "}}]}";
  std::istringstream in(document);
  try {
    xr::readTraceJson(in);
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("$.nodes[0]: \"meta\" is nested deeper than 64 levels"), std::string::npos)
        << e.what();
  }
  // The same document as a JSON value.
  try {
    xr::traceFromJson(json::parse(document));
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("$.nodes[0]: \"meta\" is nested deeper than 64 levels"), std::string::npos)
        << e.what();
  }
  // And in an event stream.
  std::istringstream events("{\"format\":\"nndna-xray-events\",\"version\":1}\n"
                            "{\"ev\":\"B\",\"id\":\"s1\",\"name\":\"a\",\"t\":0}\n"
                            "{\"ev\":\"E\",\"id\":\"s1\",\"t\":1,\"meta\":{\"deep\":" + deepMeta + "}}\n"
                            "{\"ev\":\"exit\",\"t\":2}\n");
  try {
    xr::readEventStream(events);
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("line 3: nested deeper than 66 levels"), std::string::npos) << e.what();
  }
}

TEST(NeverBreak, DeepSpanNestingItselfIsRead) {
  // 100,000 nested spans (200,000 JSON levels) are a valid trace: only values inside a span are
  // bounded.
  std::string text = xr::toJsonText(chain(100'000), false);
  std::istringstream in(text);
  xr::Trace back = xr::readTraceJson(in);
  EXPECT_EQ(back.nodes.size(), 100'000u);
}

}  // namespace
