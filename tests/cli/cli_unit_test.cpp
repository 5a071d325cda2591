// The commands' shared parts in process (nndna_cli_common): the renderer's warm-up thread and how
// the IR a command writes is indented.
#include <gtest/gtest.h>

#include <csignal>
#include <thread>

#include "cli/diagram_output.hpp"
#include "cli/files.hpp"

namespace nndna::cli {
namespace {

sigset_t maskInTheThread{};

void recordTheThreadsMask() noexcept { pthread_sigmask(SIG_BLOCK, nullptr, &maskInTheThread); }

bool blocksTermination(const sigset_t& mask) {
  return sigismember(&mask, SIGTERM) == 1 && sigismember(&mask, SIGINT) == 1 && sigismember(&mask, SIGHUP) == 1;
}

// The warm-up thread must never take SIGTERM, SIGINT or SIGHUP (a spec run reads them from a
// signalfd, and a thread that let one through would end nndna before the run is cleaned up); the
// thread that starts it keeps its own mask.
TEST(RendererWarmUp, RunsWithTheTerminationSignalsBlockedAndLeavesTheCallersMask) {
  sigset_t before{};
  pthread_sigmask(SIG_BLOCK, nullptr, &before);
  ASSERT_FALSE(blocksTermination(before)) << "the test starts with the signals deliverable";
  sigemptyset(&maskInTheThread);
  {
    std::jthread warmUp = startRendererWarmUp(recordTheThreadsMask);
    ASSERT_TRUE(warmUp.joinable());
  }
  EXPECT_TRUE(blocksTermination(maskInTheThread));
  sigset_t after{};
  pthread_sigmask(SIG_BLOCK, nullptr, &after);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) EXPECT_EQ(sigismember(&after, sig), sigismember(&before, sig)) << sig;
}

TEST(DiagramOutput, PagesAndSvgsAreLaidOutDotAndJsonAreNot) {
  EXPECT_TRUE(diagramOutputIsLaidOut("model.html"));
  EXPECT_TRUE(diagramOutputIsLaidOut("out/model.svg"));
  EXPECT_FALSE(diagramOutputIsLaidOut("model.dot"));
  EXPECT_FALSE(diagramOutputIsLaidOut("model.json"));
}

// Indented up to 100,000 ops over both graphs, compact above (files.hpp says why).
TEST(IrIndent, IndentedUpToAHundredThousandOpsCompactAbove) {
  ir::TracedModel model;
  model.train.ops.resize(60'000);
  model.infer.ops.resize(40'000);
  EXPECT_EQ(irIndent(model), 1);
  model.infer.ops.resize(40'001);
  EXPECT_EQ(irIndent(model), -1);
}

}  // namespace
}  // namespace nndna::cli
