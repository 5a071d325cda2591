// The server's layout workers (server/layout_workers.hpp): real nndna-layout processes laying out
// plans, compared with the same plans laid out in this process; a stop, a crash and a worker
// killed while idle.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "diagram/layout_plan.hpp"
#include "render/svg_render.hpp"
#include "server/layout_workers.hpp"

namespace nndna::server {
namespace {

using diagram::detail::LayoutPlan;
using namespace std::chrono_literals;

const LayoutPlan kSmall{{R"(digraph { a [label=<<B>a</B>>]; b; a -> b; subgraph cluster_0 { label="c" c } b -> c })"}, {}, false};

// Two bands with an edge between them, as a large diagram is drawn.
const LayoutPlan kBands{{R"(digraph { x; y; x -> y })", R"(digraph { z [id="z"] })"},
                        {{"y", "z", "#1f77b4", "only-infer", true, false}},
                        true};

// Waits (up to a minute) until a worker has taken a plan: what a test stops or kills is then a
// running layout.
bool waitUntilLayingOut(const LayoutWorkers& workers) {
  for (int i = 0; i < 6000 && workers.layingOut() == 0; ++i) std::this_thread::sleep_for(10ms);
  return workers.layingOut() == 1;
}

// A chain of boxes each in a cluster of its own, in one piece: Graphviz takes minutes over it
// (the reason for bands), so it is still running when a test stops or kills its worker.
LayoutPlan slowPlan() {
  std::string dot = "digraph {\n";
  for (int i = 0; i < 20000; ++i) {
    dot += "subgraph cluster_" + std::to_string(i) + " { n" + std::to_string(i) + " }\n";
    if (i) dot += "n" + std::to_string(i - 1) + " -> n" + std::to_string(i) + "\n";
  }
  return {{dot + "}"}, {}, false};
}

TEST(LayoutWorkers, DrawWhatThisProcessDraws) {
  LayoutWorkers workers(NNDNA_LAYOUT_WORKER, 1);
  EXPECT_EQ(workers.layOut(kSmall, {}), diagram::detail::layOut(kSmall));
  const std::string banded = workers.layOut(kBands, {});
  EXPECT_EQ(banded, diagram::detail::layOut(kBands));
  EXPECT_NE(banded.find("only-infer"), std::string::npos);
}

TEST(LayoutWorkers, PlansSurviveTheirJson) {
  EXPECT_EQ(diagram::detail::planFromJson(diagram::detail::planToJson(kBands)), kBands);
  EXPECT_THROW(diagram::detail::planFromJson("{\"dots\": [1], \"cross_edges\": [], \"banded\": false}"),
               std::invalid_argument);
  EXPECT_THROW(diagram::detail::planFromJson("[]"), std::invalid_argument);
}

TEST(LayoutWorkers, GraphvizErrorsComeBackAsRenderErrors) {
  LayoutWorkers workers(NNDNA_LAYOUT_WORKER, 1);
  const LayoutPlan broken{{"digraph { a -> }"}, {}, false};
  try {
    (void)workers.layOut(broken, {});
    FAIL() << "no error";
  } catch (const render::RenderError& e) {
    // Graphviz's own message (its line number depends on what the process read before).
    const std::string message = e.what();
    EXPECT_TRUE(message.starts_with("graphviz: Error: syntax error in line ")) << message;
    EXPECT_TRUE(message.ends_with(" near '}'")) << message;
  }
  // The same worker goes on.
  const pid_t pid = workers.pids().at(0);
  EXPECT_EQ(workers.layOut(kSmall, {}), diagram::detail::layOut(kSmall));
  EXPECT_EQ(workers.pids().at(0), pid);
}

TEST(LayoutWorkers, AStopKillsTheRunningLayoutAndAFreshWorkerTakesItsPlace) {
  LayoutWorkers workers(NNDNA_LAYOUT_WORKER, 1);
  const pid_t before = workers.pids().at(0);
  std::stop_source stop;
  auto slow = std::async(std::launch::async, [&] { return workers.layOut(slowPlan(), stop.get_token()); });
  ASSERT_TRUE(waitUntilLayingOut(workers));
  stop.request_stop();
  EXPECT_THROW(slow.get(), LayoutCancelled);
  EXPECT_EQ(workers.pids().at(0), -1);  // the next plan starts a new one
  EXPECT_EQ(::kill(before, 0), -1);     // gone (and reaped)
  EXPECT_EQ(workers.layOut(kSmall, {}), diagram::detail::layOut(kSmall));
  EXPECT_NE(workers.pids().at(0), before);
  EXPECT_GT(workers.pids().at(0), 0);
}

TEST(LayoutWorkers, AStopWhileWaitingForAWorkerCancels) {
  LayoutWorkers workers(NNDNA_LAYOUT_WORKER, 1);
  std::stop_source busy;
  auto slow = std::async(std::launch::async, [&] { return workers.layOut(slowPlan(), busy.get_token()); });
  ASSERT_TRUE(waitUntilLayingOut(workers));
  std::stop_source stop;
  auto waiting = std::async(std::launch::async, [&] { return workers.layOut(kSmall, stop.get_token()); });
  EXPECT_EQ(waiting.wait_for(200ms), std::future_status::timeout);  // no free worker
  stop.request_stop();
  EXPECT_THROW(waiting.get(), LayoutCancelled);
  busy.request_stop();
  EXPECT_THROW(slow.get(), LayoutCancelled);
}

TEST(LayoutWorkers, AWorkerThatDiesOnAPlanAnswersWithAnError) {
  LayoutWorkers workers(NNDNA_LAYOUT_WORKER, 1);
  const pid_t pid = workers.pids().at(0);
  std::stop_source safetyNet;  // should the kill miss, the test ends instead of hanging
  auto slow = std::async(std::launch::async, [&] { return workers.layOut(slowPlan(), safetyNet.get_token()); });
  const bool running = waitUntilLayingOut(workers);
  // What a failed assertion in Graphviz does (and a signal the sanitizers leave alone).
  if (running) {
    EXPECT_EQ(::kill(pid, SIGABRT), 0);
  }
  if (!running || slow.wait_for(60s) != std::future_status::ready) safetyNet.request_stop();
  try {
    (void)slow.get();
    FAIL() << "no error";
  } catch (const render::RenderError& e) {
    EXPECT_EQ(std::string(e.what()), "the layout process ended on this diagram: killed by signal 6 (Aborted)");
  } catch (const LayoutCancelled&) {
    FAIL() << "the worker never took the plan, or did not end when killed";
  }
  EXPECT_NE(workers.pids().at(0), pid);
  EXPECT_EQ(workers.layOut(kSmall, {}), diagram::detail::layOut(kSmall));
}

TEST(LayoutWorkers, AWorkerKilledWhileIdleIsReplacedUnnoticed) {
  LayoutWorkers workers(NNDNA_LAYOUT_WORKER, 1);
  const pid_t pid = workers.pids().at(0);
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(workers.layOut(kSmall, {}), diagram::detail::layOut(kSmall));
  EXPECT_NE(workers.pids().at(0), pid);
}

TEST(LayoutWorkers, TwoWorkersLayOutAtOnce) {
  LayoutWorkers workers(NNDNA_LAYOUT_WORKER, 2);
  std::stop_source stop;
  std::atomic<bool> slowEnded{false};
  auto slow = std::async(std::launch::async, [&] {
    try {
      (void)workers.layOut(slowPlan(), stop.get_token());
    } catch (const LayoutCancelled&) {
    }
    slowEnded = true;
  });
  ASSERT_TRUE(waitUntilLayingOut(workers));
  // The slow layout holds one worker; the other draws this one meanwhile.
  EXPECT_EQ(workers.layOut(kSmall, {}), diagram::detail::layOut(kSmall));
  EXPECT_FALSE(slowEnded);
  stop.request_stop();
  slow.get();
  EXPECT_TRUE(slowEnded);
}

TEST(LayoutWorkers, AProgramThatIsNoWorkerIsAnError) {
  EXPECT_THROW(LayoutWorkers("/nonexistent/nndna-layout", 1), std::runtime_error);
  // One that starts and ends without its ready mark (a worker that cannot load its libraries).
  try {
    LayoutWorkers workers("/bin/true", 1);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "layout worker /bin/true did not start: exited with status 0");
  }
}

}  // namespace
}  // namespace nndna::server
