// Spans and sessions: nesting, inputs and outputs as text, redaction, exceptions, LLM metadata,
// context hand-off across threads, 8 threads x 100,000 spans with nothing lost, spans still open
// on any thread at finish, deep nesting, long names, consecutive sessions.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_traced.hpp>
#include <nndna/xray_trace.hpp>
#include <stdexcept>
#include <thread>
#include <vector>

#include "trace_lookup.hpp"

namespace {

namespace xr = nndna::xray;
using xray_test::input;
using xray_test::only;



struct Point {
  int x, y;
};
std::ostream& operator<<(std::ostream& os, const Point& p) { return os << "(" << p.x << ", " << p.y << ")"; }

struct Order {
  int qty;
};
void to_json(nlohmann::json& j, const Order& o) { j = {{"qty", o.qty}}; }

struct Opaque {};

}  // namespace

template <>
struct nndna::xray::TextOf<Opaque> {
  static std::string convert(const Opaque&) { return "custom opaque"; }
};

namespace {

TEST(Span, DisabledSpanRecordsNothing) {
  EXPECT_FALSE(xr::enabled());
  xr::Span span("nothing", {{"x", 1}});
  EXPECT_FALSE(span.active());
  xr::Session session;
  auto trace = session.finish();
  EXPECT_TRUE(trace.nodes.empty());
}

TEST(Span, NestsAndRecordsInputsOutputsKindAndTags) {
  xr::Session session;
  {
    XRAY_SPAN("outer", {{"user_id", 42}, {"name", std::string("ada")}}, {.kind = "agent", .tags = {"a", "b"}});
    {
      xr::Span inner("inner", {{"p", Point{1, 2}}, {"o", Order{3}}, {"v", std::vector<int>{1, 2}}, {"q", Opaque{}}});
      inner.output(3.5);
      inner.tag("late");
    }
    xr::Span second("second");
  }
  auto trace = session.finish();
  ASSERT_EQ(trace.nodes.size(), 3u);
  ASSERT_EQ(trace.roots.size(), 1u);
  const auto& outer = trace.nodes[trace.roots[0]];
  EXPECT_EQ(outer.name, "outer");
  EXPECT_EQ(outer.kind(), "agent");
  EXPECT_EQ(outer.tags(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(input(outer, "user_id"), "42");
  EXPECT_EQ(input(outer, "name"), "ada");
  ASSERT_EQ(outer.children.size(), 2u);
  const auto& inner = trace.nodes[outer.children[0]];
  EXPECT_EQ(inner.name, "inner");
  EXPECT_EQ(trace.nodes[outer.children[1]].name, "second");
  EXPECT_EQ(input(inner, "p"), "(1, 2)");
  EXPECT_EQ(input(inner, "o"), "{\"qty\":3}");
  EXPECT_EQ(input(inner, "v"), "[1, 2]");
  EXPECT_EQ(input(inner, "q"), "custom opaque");
  EXPECT_EQ(inner.output(), "3.5");
  EXPECT_EQ(inner.tags(), (std::vector<std::string>{"late"}));
  EXPECT_EQ(*inner.parent, trace.roots[0]);
  EXPECT_GE(inner.startMs, outer.startMs);
  EXPECT_LE(inner.startMs + inner.latencyMs, outer.startMs + outer.latencyMs + 1e-6);
  EXPECT_FALSE(outer.open);
}

TEST(Span, TextIsTruncatedOnCharacterBoundaries) {
  xr::setMaxTextLength(10);
  xr::Session session;
  {
    XRAY_SPAN("t", {{"long", std::string(50, 'x')}, {"utf8", std::string("aaaaaaaaa\xc3\xa9\xc3\xa9")}});
  }
  auto trace = session.finish();
  xr::setMaxTextLength(2000);
  const auto& n = only(trace, "t");
  EXPECT_EQ(input(n, "long"), std::string(10, 'x') + "\u2026");
  EXPECT_EQ(input(n, "utf8"), "aaaaaaaaa\u2026");
}

TEST(Span, SecretLookingInputsAreRedactedByDefault) {
  EXPECT_TRUE(xr::looksSecret("api_key"));
  EXPECT_TRUE(xr::looksSecret("OPENAI_API_KEY"));
  EXPECT_TRUE(xr::looksSecret("Authorization"));
  EXPECT_TRUE(xr::looksSecret("token"));
  EXPECT_TRUE(xr::looksSecret("access_token"));
  EXPECT_TRUE(xr::looksSecret("password"));
  EXPECT_FALSE(xr::looksSecret("max_tokens"));
  EXPECT_FALSE(xr::looksSecret("prompt"));
  xr::Session session;
  {
    XRAY_SPAN("call", {{"api_key", "sk-123"}, {"token", "t"}, {"prompt", "hi"}, {"ssn", "1"}}, {.redact = {"ssn"}});
  }
  auto trace = session.finish();
  const auto& n = only(trace, "call");
  EXPECT_EQ(input(n, "api_key"), "[REDACTED]");
  EXPECT_EQ(input(n, "token"), "[REDACTED]");
  EXPECT_EQ(input(n, "ssn"), "[REDACTED]");
  EXPECT_EQ(input(n, "prompt"), "hi");
}

TEST(Span, OutputCaptureCanBeSwitchedOff) {
  xr::Session session;
  {
    xr::Span s("quiet", {}, {.captureOutput = false});
    s.output(std::string("big payload"));
  }
  auto trace = session.finish();
  EXPECT_FALSE(only(trace, "quiet").output().has_value());
}

void failingTool() {
  XRAY_SPAN("tool.search", {{"query", "weather"}});
  throw std::invalid_argument("bad query");
}

TEST(Span, ExceptionIsRecordedAsTypeAndMessageAndPropagates) {
  xr::Session session;
  bool caught = false;
  try {
    XRAY_SPAN("agent");
    failingTool();
  } catch (const std::invalid_argument& e) {
    caught = true;
    EXPECT_STREQ(e.what(), "bad query");
  }
  {
    XRAY_SPAN("after");  // a later span is not marked by the old exception
  }
  auto trace = session.finish();
  EXPECT_TRUE(caught);
  EXPECT_EQ(only(trace, "tool.search").error(), "std::invalid_argument: bad query");
  EXPECT_EQ(only(trace, "agent").error(), "std::invalid_argument: bad query");
  EXPECT_FALSE(only(trace, "after").error().has_value());
  EXPECT_EQ(xr::summarize(trace).errors, 2u);
}

int divide(int a, int b) {
  if (b == 0) throw std::domain_error("division by zero");
  return a / b;
}

TEST(Traced, RecordsArgumentsResultAndErrors) {
  auto tracedDivide = xr::traced("divide", divide, {.kind = "tool", .argNames = {"a", "b"}});
  auto add = xr::traced("add", [](int x, int y) { return x + y; });
  auto log = xr::traced("log", [](const std::string&) {}, {.captureOutput = true});
  xr::Session session;
  EXPECT_EQ(tracedDivide(7, 2), 3);
  EXPECT_EQ(add(1, 2), 3);
  log("hello");
  EXPECT_THROW(tracedDivide(1, 0), std::domain_error);
  auto trace = session.finish();
  ASSERT_EQ(trace.nodes.size(), 4u);
  const auto& ok = trace.nodes[0];
  EXPECT_EQ(ok.name, "divide");
  EXPECT_EQ(ok.kind(), "tool");
  EXPECT_EQ(input(ok, "a"), "7");
  EXPECT_EQ(input(ok, "b"), "2");
  EXPECT_EQ(ok.output(), "3");
  EXPECT_FALSE(ok.error());
  EXPECT_EQ(input(trace.nodes[1], "arg0"), "1");
  EXPECT_EQ(trace.nodes[1].output(), "3");
  EXPECT_FALSE(trace.nodes[2].output().has_value());  // void
  EXPECT_EQ(trace.nodes[3].error(), "std::domain_error: division by zero");
  EXPECT_FALSE(trace.nodes[3].output().has_value());
  // Outside a session the wrapper still works.
  EXPECT_EQ(tracedDivide(9, 3), 3);
}

TEST(Traced, ReturnsReferencesAndMoveOnlyResults) {
  int value = 5;
  auto ref = xr::traced("ref", [&]() -> int& { return value; });
  auto ptr = xr::traced("ptr", [] { return std::make_unique<int>(7); });
  xr::Session session;
  ref() = 6;
  EXPECT_EQ(value, 6);
  EXPECT_EQ(*ptr(), 7);
  auto trace = session.finish();
  EXPECT_EQ(only(trace, "ref").output(), "5");  // the value when it was returned
  EXPECT_EQ(only(trace, "ptr").output()->front(), '0');  // a pointer prints as 0x…
}

TEST(Annotate, LlmUsageAddsTokensAndCostThatRollUp) {
  xr::setModelPrice("test-model", {1.0, 2.0});
  EXPECT_DOUBLE_EQ(*xr::estimateCostUsd({.model = "test-model-2025", .promptTokens = 1'000'000, .completionTokens = 500'000}), 2.0);
  EXPECT_FALSE(xr::modelPrice("unknown-model"));
  xr::Session session;
  {
    XRAY_SPAN("agent");
    for (int i = 0; i < 2; ++i) {
      XRAY_SPAN("llm", {}, {.kind = "llm"});
      xr::annotate({.model = "test-model", .promptTokens = 1000, .completionTokens = 500});
      xr::annotate("temperature", 0.2);
    }
  }
  auto trace = session.finish();
  const auto& llm = trace.nodes[1];
  EXPECT_EQ(llm.meta()["model"], "test-model");
  EXPECT_EQ(llm.meta()["prompt_tokens"], 1000);
  EXPECT_EQ(llm.meta()["completion_tokens"], 500);
  EXPECT_EQ(llm.meta()["total_tokens"], 1500);
  EXPECT_DOUBLE_EQ(llm.meta()["estimated_cost_usd"].get<double>(), 0.002);
  EXPECT_EQ(llm.meta()["temperature"], 0.2);
  auto summary = xr::summarize(trace);
  EXPECT_EQ(summary.totalTokens, 3000);
  EXPECT_DOUBLE_EQ(summary.costUsd, 0.004);
  auto json = xr::toJson(trace);
  EXPECT_EQ(json["nodes"][0]["rollup"]["total_tokens"], 3000);
  EXPECT_DOUBLE_EQ(json["nodes"][0]["rollup"]["estimated_cost_usd"].get<double>(), 0.004);
}

TEST(Context, CarriesTheCurrentSpanToAnotherThread) {
  xr::Session session;
  {
    XRAY_SPAN("request");
    std::thread worker(xr::bindContext([] { XRAY_SPAN("worker_task"); }));
    worker.join();
    auto ctx = xr::currentContext();
    std::thread manual([ctx] {
      xr::ContextScope scope(ctx);
      XRAY_SPAN("manual_task");
    });
    manual.join();
  }
  std::thread unrelated([] { XRAY_SPAN("unrelated"); });
  unrelated.join();
  auto trace = session.finish();
  const auto& request = only(trace, "request");
  const auto& worker = only(trace, "worker_task");
  const auto& manual = only(trace, "manual_task");
  ASSERT_TRUE(worker.parent);
  EXPECT_EQ(trace.nodes[*worker.parent].id, request.id);
  ASSERT_TRUE(manual.parent);
  EXPECT_EQ(trace.nodes[*manual.parent].id, request.id);
  EXPECT_NE(worker.thread, request.thread);
  EXPECT_FALSE(only(trace, "unrelated").parent);
}

TEST(Session, OnlyOneAtATimeAndOpenSpansAreMarked) {
  xr::Session session;
  EXPECT_THROW(xr::Session second, std::logic_error);
  XRAY_SPAN("still_running");
  {
    XRAY_SPAN("done");
  }
  auto trace = session.finish();
  EXPECT_TRUE(only(trace, "still_running").open);
  EXPECT_FALSE(only(trace, "done").open);
  EXPECT_EQ(trace.nodes[*only(trace, "done").parent].name, "still_running");
  EXPECT_THROW(session.finish(), std::logic_error);
}

TEST(Session, EightThreadsTimesHundredThousandSpansLoseNothingAndKeepNesting) {
  constexpr int kThreads = 8;
  constexpr int kOuter = 20'000;  // each outer span holds 4 inner ones: 100,000 spans per thread
  xr::Session session;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t] {
      XRAY_SPAN("thread_root", {{"t", t}});
      for (int i = 0; i < kOuter - 1; ++i) {
        XRAY_SPAN("outer");
        for (int k = 0; k < 3; ++k) {
          XRAY_SPAN("inner");
        }
        XRAY_SPAN("leaf");
      }
      for (int k = 0; k < 4; ++k) {
        XRAY_SPAN("tail");
      }
    });
  for (auto& th : threads) th.join();
  auto trace = session.finish();
  ASSERT_EQ(trace.nodes.size(), static_cast<std::size_t>(kThreads) * 100'000);
  ASSERT_EQ(trace.roots.size(), static_cast<std::size_t>(kThreads));
  std::map<int, int> rootThreads;
  for (std::size_t r : trace.roots) {
    const auto& root = trace.nodes[r];
    ++rootThreads[root.thread];
    EXPECT_EQ(root.children.size(), static_cast<std::size_t>(kOuter - 1 + 4));
    for (std::size_t c : root.children) {
      const auto& child = trace.nodes[c];
      EXPECT_EQ(child.thread, root.thread);
      if (child.name == "outer") {
        ASSERT_EQ(child.children.size(), 4u);
        for (std::size_t g : child.children) {
          EXPECT_EQ(trace.nodes[g].thread, root.thread);
          EXPECT_TRUE(trace.nodes[g].children.empty());
        }
      }
    }
  }
  EXPECT_EQ(rootThreads.size(), static_cast<std::size_t>(kThreads));
}

void waitFor(const std::atomic<bool>& flag) {
  while (!flag) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// Chain of `depth` nested spans named `name`, closed innermost first when destroyed.
class NestedSpans {
 public:
  NestedSpans(int depth, const char* name) {
    for (int i = 0; i < depth; ++i) spans_.push_back(std::make_unique<xr::Span>(name));
  }
  ~NestedSpans() {
    while (!spans_.empty()) spans_.pop_back();
  }

 private:
  std::vector<std::unique_ptr<xr::Span>> spans_;
};

TEST(Session, SpansStillOpenOnEveryThreadAreMarkedOpen) {
  const std::string longName = "a span name longer than the twenty-three inline bytes";
  std::atomic<bool> openedBefore{false}, opened{false}, release{false};
  // Opened before the session: not part of it, even though still open at finish.
  std::thread before([&] {
    XRAY_SPAN("before_session");
    openedBefore = true;
    waitFor(release);
  });
  xr::Trace trace;
  std::thread worker;
  {
    std::unique_ptr<xr::Session> session;
    waitFor(openedBefore);
    session = std::make_unique<xr::Session>();
    XRAY_SPAN("request", {{"id", 7}});
    worker = std::thread(xr::bindContext([&] {
      XRAY_SPAN("handler", {{"not", "visible from another thread"}});
      xr::Span named(longName);
      // Its name is a temporary (copied at once); byte 23 falls inside "é" (bytes 22–23).
      xr::Span utf8(std::string(22, 'x') + "\u00e9tail");
      NestedSpans deep(100, "level");  // crosses the 64-slot blocks of the open stack
      opened = true;
      waitFor(release);
    }));
    waitFor(opened);
    trace = session->finish();
  }
  release = true;
  worker.join();
  before.join();

  ASSERT_EQ(trace.nodes.size(), 104u);
  EXPECT_EQ(xr::summarize(trace).open, 104u);
  const auto& request = only(trace, "request");
  const auto& handler = only(trace, "handler");
  EXPECT_TRUE(request.open);
  EXPECT_EQ(input(request, "id"), "7");  // this thread's own open span keeps its details
  EXPECT_TRUE(handler.open);
  EXPECT_TRUE(handler.inputs().empty());  // another thread's details stay with that thread
  EXPECT_NE(handler.thread, request.thread);
  ASSERT_TRUE(handler.parent);
  EXPECT_EQ(trace.nodes[*handler.parent].id, request.id);
  // Long names of another thread's open spans: their first bytes (whole characters) and "…".
  const auto& cutName = only(trace, "a span name longer than\u2026");
  const auto& cutUtf8 = only(trace, std::string(22, 'x') + "\u2026");
  EXPECT_EQ(trace.nodes[*cutName.parent].id, handler.id);
  EXPECT_EQ(trace.nodes[*cutUtf8.parent].id, cutName.id);
  // Then 100 "level" spans, each under the previous.
  std::size_t levels = 0;
  const xr::TraceNode* at = &cutUtf8;
  while (!at->children.empty()) {
    ASSERT_EQ(at->children.size(), 1u);
    at = &trace.nodes[at->children[0]];
    EXPECT_EQ(at->name, "level");
    EXPECT_TRUE(at->open);
    EXPECT_EQ(at->thread, handler.thread);
    ++levels;
  }
  EXPECT_EQ(levels, 100u);
  for (const auto& n : trace.nodes) EXPECT_NE(n.name, "before_session");
}

TEST(Session, DeepNestingKeepsEveryParent) {
  xr::Session session;
  {
    NestedSpans deep(300, "frame");
  }
  auto trace = session.finish();
  ASSERT_EQ(trace.nodes.size(), 300u);
  ASSERT_EQ(trace.roots.size(), 1u);
  std::size_t depth = 1;
  const xr::TraceNode* at = &trace.nodes[trace.roots[0]];
  while (!at->children.empty()) {
    ASSERT_EQ(at->children.size(), 1u);
    const auto& child = trace.nodes[at->children[0]];
    EXPECT_EQ(trace.nodes[*child.parent].id, at->id);
    EXPECT_FALSE(child.open);
    at = &child;
    ++depth;
  }
  EXPECT_EQ(depth, 300u);
}

TEST(Span, LongNamesAreKeptWhole) {
  const std::string finished(40, 'f');
  const std::string open = "\u00e9t\u00e9 " + std::string(30, 'o');  // UTF-8 beyond the inline bytes
  xr::Session session;
  {
    XRAY_SPAN(finished);
  }
  xr::Span stillOpen(open);
  auto trace = session.finish();
  EXPECT_FALSE(only(trace, finished).open);
  EXPECT_TRUE(only(trace, open).open);
}

TEST(Session, ConsecutiveSessionsKeepTheirOwnSpans) {
  // A long-lived thread records in two sessions (its buffers outlive the first one), and a
  // span that opens in the first session and closes in the second belongs to neither.
  std::atomic<int> step{0};
  std::atomic<bool> done{false};
  auto waitStep = [&](int s) {
    while (step < s) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  std::unique_ptr<xr::Span> straddling;
  std::thread pool([&] {
    waitStep(1);
    for (int i = 0; i < 5000; ++i) {
      XRAY_SPAN("first_session_work");
    }
    done = true;
    waitStep(2);
    for (int i = 0; i < 3; ++i) {
      XRAY_SPAN("second_session_work");
    }
    done = false;
  });
  xr::Trace first, second;
  {
    xr::Session session;
    straddling = std::make_unique<xr::Span>("straddling");
    step = 1;
    waitFor(done);
    first = session.finish();
  }
  {
    xr::Session session;
    step = 2;
    while (done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    straddling.reset();
    {
      XRAY_SPAN("second_session_main");
    }
    second = session.finish();
  }
  pool.join();
  ASSERT_EQ(first.nodes.size(), 5001u);  // 5,000 + straddling (open at the end of the first)
  EXPECT_TRUE(only(first, "straddling").open);
  ASSERT_EQ(second.nodes.size(), 4u);
  for (const auto& n : second.nodes) EXPECT_TRUE(n.name == "second_session_work" || n.name == "second_session_main") << n.name;
}

}  // namespace
