// The server's pure parts: gzip, Accept-Encoding, error locations, static assets, the job pool.
#include <gtest/gtest.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <thread>

#include "server/error_locations.hpp"
#include "compress/gzip.hpp"
#include "server/accept_encoding.hpp"
#include "server/job_pool.hpp"
#include "support/gunzip.hpp"
#include "server/static_assets.hpp"

namespace nndna::server {
namespace {

using namespace std::chrono_literals;

using nndna::test::gunzip;

TEST(Gzip, RoundTripsAndHasGzipMagic) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "line " + std::to_string(i) + "\n";
  const std::string z = nndna::compress::gzip(text);
  ASSERT_GE(z.size(), 18u);
  EXPECT_EQ(static_cast<unsigned char>(z[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(z[1]), 0x8b);
  EXPECT_LT(z.size(), text.size() / 3);
  EXPECT_EQ(gunzip(z), text);
  EXPECT_EQ(gunzip(nndna::compress::gzip("")), "");
}

TEST(Gzip, AcceptEncoding) {
  EXPECT_TRUE(acceptsGzip("gzip"));
  EXPECT_TRUE(acceptsGzip("gzip, deflate, br"));
  EXPECT_TRUE(acceptsGzip("br;q=1.0, gzip;q=0.8"));
  EXPECT_TRUE(acceptsGzip("*"));
  EXPECT_FALSE(acceptsGzip(""));
  EXPECT_FALSE(acceptsGzip("br, deflate"));
  EXPECT_FALSE(acceptsGzip("gzip;q=0"));
  EXPECT_FALSE(acceptsGzip("x-gzip2"));
}

TEST(ErrorLocations, CompilerErrorsWithLineColumnAndNotes) {
  const std::string message =
      "model.cpp: In function 'Tensor f(M&, const Inputs&)':\n"
      "model.cpp:12:5: error: 'y' was not declared in this scope\n"
      "   12 |     y = relu(x);\n"
      "      |     ^\n"
      "model.cpp:3:7: note: 'struct M' declared here\n"
      "/usr/include/c++/12/bits/x.h:9:1: error: elsewhere\n"
      "model.cpp:40:1: warning: unused\n";
  const auto d = locateDiagnostics(message, "model.cpp");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].line, 12);
  EXPECT_EQ(d[0].column, 5);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[0].message, "'y' was not declared in this scope");
  EXPECT_EQ(d[1].line, 3);
  EXPECT_EQ(d[1].column, 7);
  EXPECT_EQ(d[1].severity, "info");
  EXPECT_EQ(d[2].severity, "warning");
  EXPECT_EQ(d[2].line, 40);
}

TEST(ErrorLocations, TraceErrorHasALineOnly) {
  const auto d = locateDiagnostics("model.cpp:14: matmul: inner dimensions differ: [256, 32] · [64, 128]", "model.cpp");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 14);
  EXPECT_EQ(d[0].column, 0);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[0].message, "matmul: inner dimensions differ: [256, 32] · [64, 128]");
}

// An error in a helper names the calls that led to it; each such line of this file is marked
// (another file's, "other.hpp:3", is not: the editor shows this one).
TEST(ErrorLocations, TheCallsThatLedToATraceErrorAreMarked) {
  const auto d = locateDiagnostics(
      "model.cpp:5: matmul: inner dimensions differ: [8, 4] · [8, 4] (called from line 9, from line 20)", "model.cpp");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].line, 5);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[1].line, 9);
  EXPECT_EQ(d[1].severity, "info");
  EXPECT_EQ(d[1].message, "the call that led to line 5's error");
  EXPECT_EQ(d[2].line, 20);
  const auto other = locateDiagnostics("model.cpp:5: matmul: x (called from other.hpp:3, from line 8)", "model.cpp");
  ASSERT_EQ(other.size(), 2u);
  EXPECT_EQ(other[1].line, 8);
}

// A crash the runner placed (spec_runner.cpp: the spec program's crash record) marks its line.
TEST(ErrorLocations, ACrashAtALineIsLocated) {
  const auto d = locateDiagnostics("model.cpp:12: the spec crashed: SIGSEGV (Segmentation fault)", "model.cpp");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 12);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[0].message, "the spec crashed: SIGSEGV (Segmentation fault)");
}

TEST(ErrorLocations, NothingLocatedInOtherMessages) {
  EXPECT_TRUE(locateDiagnostics("model.cpp: the spec crashed: SIGSEGV (segmentation fault)", "model.cpp").empty());
  EXPECT_TRUE(locateDiagnostics("other.cpp:3:1: error: x", "model.cpp").empty());
  EXPECT_TRUE(locateDiagnostics("model.cpp:0: x", "model.cpp").empty());
  EXPECT_TRUE(locateDiagnostics("model.cppx:3: x", "model.cpp").empty());
  EXPECT_TRUE(locateDiagnostics("", "model.cpp").empty());
}

TEST(StaticAssets, PathsTypesEtagsAndGzip) {
  const std::string big(5000, 'x');
  const EmbeddedFile files[] = {{"index.html", "<!doctype html>"}, {"app.js", big}, {"favicon.svg", "<svg/>"}};
  const StaticAssets assets(files);
  const StaticAsset* index = assets.find("/");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->contentType, "text/html; charset=utf-8");
  EXPECT_TRUE(index->gzipped.empty());  // too small to pay
  EXPECT_EQ(index->etag.size(), 34u);
  EXPECT_EQ(index->etag.front(), '"');
  const StaticAsset* js = assets.find("/app.js");
  ASSERT_NE(js, nullptr);
  EXPECT_EQ(js->contentType, "text/javascript; charset=utf-8");
  EXPECT_EQ(gunzip(js->gzipped), big);
  EXPECT_NE(js->etag, index->etag);
  EXPECT_EQ(assets.find("/favicon.svg")->contentType, "image/svg+xml");
  EXPECT_EQ(assets.find("/index.html"), nullptr);
  EXPECT_EQ(assets.find("/nope"), nullptr);
}

JobOutcome answer(int status, std::string body) { return {.status = status, .body = std::move(body)}; }

std::optional<JobOutcome> waitFor(JobTicket& t, std::vector<std::string>& events, std::chrono::milliseconds within = 10s) {
  std::size_t seen = 0;
  const auto until = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < until) {
    if (auto out = t.wait(seen, events, until, {})) return out;
  }
  return std::nullopt;
}

TEST(JobPool, RunsAJobAndReportsItsProgress) {
  JobPool pool(2, 4);
  auto ticket = pool.submit("a", [](std::stop_token, const ProgressFn& progress) {
    progress("one");
    progress("two");
    return answer(200, "done");
  });
  ASSERT_TRUE(ticket);
  EXPECT_FALSE(ticket->joined());
  std::vector<std::string> events;
  const auto out = waitFor(*ticket, events);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->status, 200);
  EXPECT_EQ(out->body, "done");
  EXPECT_EQ(events, (std::vector<std::string>{"one", "two"}));
}

TEST(JobPool, IdenticalKeysShareOneRun) {
  JobPool pool(2, 4);
  std::atomic<int> runs{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto fn = [&runs, released](std::stop_token, const ProgressFn&) {
    ++runs;
    released.wait();
    return answer(200, "shared");
  };
  auto first = pool.submit("same", fn);
  auto second = pool.submit("same", fn);
  auto other = pool.submit("other", [](std::stop_token, const ProgressFn&) { return answer(200, "other"); });
  ASSERT_TRUE(first && second && other);
  EXPECT_FALSE(first->joined());
  EXPECT_TRUE(second->joined());
  release.set_value();
  std::vector<std::string> events;
  EXPECT_EQ(waitFor(*first, events)->body, "shared");
  EXPECT_EQ(waitFor(*second, events)->body, "shared");
  EXPECT_EQ(waitFor(*other, events)->body, "other");
  EXPECT_EQ(runs.load(), 1);
}

// Occupies one of the pool's workers until released.
class BusyWorker {
 public:
  explicit BusyWorker(JobPool& pool) {
    std::shared_future<void> released = release_.get_future().share();
    std::optional<JobTicket> ticket = pool.submit("busy", [this, released](std::stop_token, const ProgressFn&) {
      running_.count_down();
      released.wait();
      return answer(200, "");
    });
    ticket_.emplace(std::move(*ticket));
    running_.wait();
  }
  ~BusyWorker() { release(); }
  void release() {
    if (!released_) release_.set_value();
    released_ = true;
  }
  JobTicket& ticket() { return *ticket_; }

 private:
  std::latch running_{1};
  std::promise<void> release_;
  bool released_ = false;
  std::optional<JobTicket> ticket_;
};

TEST(JobPool, QueueBoundRefusesBeyondIt) {
  JobPool pool(1, 2);
  BusyWorker busy(pool);  // the one worker is busy: the next two wait in the queue
  auto q1 = pool.submit("q1", [](std::stop_token, const ProgressFn&) { return answer(200, "q1"); });
  auto q2 = pool.submit("q2", [](std::stop_token, const ProgressFn&) { return answer(200, "q2"); });
  auto q3 = pool.submit("q3", [](std::stop_token, const ProgressFn&) { return answer(200, "q3"); });
  EXPECT_TRUE(q1);
  EXPECT_TRUE(q2);
  EXPECT_FALSE(q3);  // the queue holds 2
  const auto stats = pool.stats();
  EXPECT_EQ(stats.running, 1u);
  EXPECT_EQ(stats.queued, 2u);
  EXPECT_EQ(stats.workers, 1u);
  // Joining a queued job is not a new one: allowed while the queue is full.
  EXPECT_TRUE(pool.submit("q1", [](std::stop_token, const ProgressFn&) { return answer(500, "never runs"); }));
  busy.release();
  std::vector<std::string> events;
  EXPECT_EQ(waitFor(*q2, events)->body, "q2");
}

// A job that waits for a worker says so first: how many are ahead of it, then how long it waited.
TEST(JobPool, AQueuedJobReportsItsWait) {
  JobPool pool(1, 4);
  BusyWorker busy(pool);
  auto first = pool.submit("first", [](std::stop_token, const ProgressFn& progress) {
    progress("ran");
    return answer(200, "first");
  });
  auto second = pool.submit("second", [](std::stop_token, const ProgressFn&) { return answer(200, "second"); });
  ASSERT_TRUE(first && second);
  busy.release();
  std::vector<std::string> events;
  ASSERT_TRUE(waitFor(*first, events));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0], R"({"type":"stage","stage":"queue","state":"start","ahead":0})");
  EXPECT_TRUE(events[1].starts_with(R"({"type":"stage","stage":"queue","state":"done","seconds":)")) << events[1];
  EXPECT_EQ(events[2], "ran");
  std::vector<std::string> secondEvents;
  ASSERT_TRUE(waitFor(*second, secondEvents));
  EXPECT_EQ(secondEvents.at(0), R"({"type":"stage","stage":"queue","state":"start","ahead":1})");
}

TEST(JobPool, LastTicketGoneCancelsTheRunningJob) {
  JobPool pool(1, 4);
  std::latch started(1);
  std::promise<bool> sawStop;
  {
    auto ticket = pool.submit("slow", [&](std::stop_token stop, const ProgressFn&) {
      started.count_down();
      const auto until = std::chrono::steady_clock::now() + 10s;
      while (!stop.stop_requested() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
      sawStop.set_value(stop.stop_requested());
      return answer(409, "");
    });
    ASSERT_TRUE(ticket);
    started.wait();
  }  // the only ticket goes
  auto stopped = sawStop.get_future();
  ASSERT_EQ(stopped.wait_for(5s), std::future_status::ready);
  EXPECT_TRUE(stopped.get());
  // A new request for the same key starts a new job rather than joining the cancelled one.
  auto again = pool.submit("slow", [](std::stop_token, const ProgressFn&) { return answer(200, "fresh"); });
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->joined());
  std::vector<std::string> events;
  EXPECT_EQ(waitFor(*again, events)->body, "fresh");
}

TEST(JobPool, AQueuedJobWhoseTicketsAreGoneNeverRuns) {
  JobPool pool(1, 4);
  BusyWorker busy(pool);
  std::atomic<bool> ran{false};
  pool.submit("queued", [&](std::stop_token, const ProgressFn&) {
    ran = true;
    return answer(200, "");
  });  // its ticket is dropped at once
  EXPECT_EQ(pool.stats().queued, 0u);
  busy.release();
  std::vector<std::string> events;
  waitFor(busy.ticket(), events);
  auto probe = pool.submit("probe", [](std::stop_token, const ProgressFn&) { return answer(200, ""); });
  waitFor(*probe, events);
  EXPECT_FALSE(ran.load());
}

TEST(JobPool, WaitReturnsAtTheCallersCancellation) {
  JobPool pool(1, 4);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto ticket = pool.submit("k", [released](std::stop_token, const ProgressFn&) {
    released.wait();
    return answer(200, "");
  });
  std::stop_source cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(50ms);
    cancel.request_stop();
  });
  std::size_t seen = 0;
  std::vector<std::string> events;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(ticket->wait(seen, events, t0 + 10s, cancel.get_token()));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  canceller.join();
  release.set_value();
}

}  // namespace
}  // namespace nndna::server
