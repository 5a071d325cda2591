// The commands' shared parts in process (nndna_cli_common): the renderer's warm-up thread, the
// diagram output's format (-o, --format), how the IR a command writes is indented, the checks of
// outputs against inputs and of numbers against their range.
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli/diagram_output.hpp"
#include "cli/files.hpp"
#include "cli/number_checks.hpp"

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
  EXPECT_TRUE(diagramOutput("model.html").laidOut());
  EXPECT_TRUE(diagramOutput("out/model.svg").laidOut());
  EXPECT_FALSE(diagramOutput("model.dot").laidOut());
  EXPECT_FALSE(diagramOutput("model.json").laidOut());
}

TEST(DiagramOutput, TheFormatIsTheExtensionsUnlessNamed) {
  EXPECT_EQ(diagramOutput("model.html").format, DiagramFormat::html);
  EXPECT_EQ(diagramOutput("a.b/model.svg").format, DiagramFormat::svg);
  EXPECT_EQ(diagramOutput("model.dot").format, DiagramFormat::dot);
  EXPECT_EQ(diagramOutput("model.json").format, DiagramFormat::json);
  EXPECT_EQ(diagramOutput("model.txt", "dot").format, DiagramFormat::dot);
  EXPECT_EQ(diagramOutput("model.html", "svg").format, DiagramFormat::svg);  // named wins
  const DiagramOutput piped = diagramOutput("-", "svg");
  EXPECT_TRUE(piped.toStandardOutput());
  EXPECT_EQ(piped.format, DiagramFormat::svg);
  EXPECT_FALSE(diagramOutput("./-.dot").toStandardOutput());
  EXPECT_TRUE(diagramOutput("/dev/stdout", "dot").toStandardOutput());  // its report goes to stderr
  // An extension in any case, as some systems write them (--format's names are refused in
  // another case: below).
  EXPECT_EQ(diagramOutput("MODEL.SVG").format, DiagramFormat::svg);
  EXPECT_EQ(diagramOutput("model.Html").format, DiagramFormat::html);
  EXPECT_EQ(diagramOutput("MODEL.SVG").path, "MODEL.SVG");  // the file keeps its name
}

// Each refusal names the option at fault and what it takes.
TEST(DiagramOutput, WithoutAFormatItSaysWhichOptionToGive) {
  auto refusal = [](const std::string& path, const std::string& format) {
    try {
      (void)diagramOutput(path, format);
    } catch (const CLI::ValidationError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal("-", ""), "-o: standard output (-o -) has no extension: give --format html, svg, dot or json");
  EXPECT_EQ(refusal("model.png", ""), "-o: the output must end in .html, .svg, .dot or .json (or give --format)");
  EXPECT_EQ(refusal("model", ""), "-o: the output must end in .html, .svg, .dot or .json (or give --format)");
  EXPECT_EQ(refusal("-", "png"), "--format: the format must be html, svg, dot or json");
  EXPECT_EQ(refusal("model.html", "HTML"), "--format: the format must be html, svg, dot or json");
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

// `nndna ir same.cpp -o same.cpp` wrote the IR over the spec: an output that is the input, by any
// path to it, is refused before any work.
TEST(RefuseToOverwriteInput, TheInputByAnyPathIsRefusedOtherFilesAreNot) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("nndna-cli-unit-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string spec = (dir / "model.cpp").string();
  std::ofstream(spec) << "// a spec\n";
  std::filesystem::create_symlink(spec, dir / "link.cpp");
  for (const std::string& same : {spec, (dir / "." / "model.cpp").string(), (dir / "link.cpp").string()}) {
    try {
      refuseToOverwriteInput(same, spec, "-o");
      ADD_FAILURE() << "accepted " << same;
    } catch (const CLI::ValidationError& e) {
      EXPECT_EQ(std::string(e.what()), "-o: the output is the input file " + spec +
                                           ": writing it would destroy the input; give another path");
    }
  }
  for (const std::string& other : {(dir / "model.json").string(), std::string("-"), std::string()}) {
    EXPECT_NO_THROW(refuseToOverwriteInput(other, spec, "-o")) << other;
  }
  EXPECT_NO_THROW(refuseToOverwriteInput(spec, "", "-o"));  // --example: no input file
  std::filesystem::remove_all(dir);
}

// A time limit's check: the whole text a number in range, with a message naming the range.
TEST(NumberChecks, NumbersInTheRangeOnlyWithTheRangeNamed) {
  double seconds = 0;
  CLI::App app;
  app.add_option("--time-limit", seconds)->check(numberFrom(0.001, 604800, "seconds"));
  for (const char* good : {"0.001", "2.5", "604800", "1e3"}) {
    EXPECT_NO_THROW(app.parse(std::vector<std::string>{good, "--time-limit"})) << good;
  }
  EXPECT_DOUBLE_EQ(seconds, 1000);
  for (const char* bad : {"0", "-1", "604800.5", "1e10", "nan", "inf", "abc", "2s", ""}) {
    try {
      app.parse(std::vector<std::string>{bad, "--time-limit"});
      ADD_FAILURE() << "accepted " << bad;
    } catch (const CLI::ValidationError& e) {
      EXPECT_EQ(std::string(e.what()),
                "--time-limit: expected a number of seconds from 0.001 to 604800, got '" + std::string(bad) + "'");
    }
  }
}

}  // namespace
}  // namespace nndna::cli
