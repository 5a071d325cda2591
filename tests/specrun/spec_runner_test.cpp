// runSpecFile end to end: real spec files compiled with g++ against libnndna and run in the
// sandbox. One cache directory in the build tree serves every test (ctest runs each test as its
// own process; the precompiled header is built once); the cache test uses a fresh one.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "nndna/trace.hpp"
#include "specrun/spec_runner.hpp"
#include "specrun/temp_dir.hpp"

namespace nndna::specrun {
namespace {

namespace fs = std::filesystem;
using Kind = SpecRunError::Kind;

const fs::path kDefaultModel = fs::path(NNDNA_SOURCE_DIR) / "examples" / "diffusion_denoiser.cpp";

ino_t inodeOf(const fs::path& file) {
  struct stat st {};
  EXPECT_EQ(::stat(file.c_str(), &st), 0) << file;
  return st.st_ino;
}

class SpecRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_.emplace(fs::temp_directory_path(), "nndna-test-spec-"); }

  RunOptions options() const {
    RunOptions o;
    o.cacheDir = NNDNA_TEST_CACHE_DIR;
    return o;
  }

  // A one-layer spec whose loss function runs `body` first (line 6 of the file).
  fs::path writeSpec(const std::string& body, const std::string& includes = "") const {
    const fs::path file = dir_->path() / "model.cpp";
    std::ofstream(file) << "#include <nndna/nndna.hpp>\n"  // line 1
                        << includes << (includes.empty() ? "\n" : "")  // line 2
                        << "using namespace nndna;\n"  // 3
                        << "struct Net : Module { Linear l{\"l\", 4, 2}; };\n"  // 4
                        << "Tensor lossFn(Net& m, const Inputs& in) {\n"  // 5
                        << body << "\n"  // 6
                        << "  return mean(m.l(in[\"x\"]));\n"  // 7
                        << "}\n"  // 8
                        << "NNDNA_SPEC(Net) { return {.label = \"t\", .loss = lossFn, "
                           ".inputs = {{\"x\", {8, 4}}}}; }\n";
    return file;
  }

  // Runs the spec and returns the error it must raise.
  SpecRunError runExpectingError(const fs::path& spec, const RunOptions& o) const {
    try {
      runSpecFile(spec, o);
    } catch (const SpecRunError& e) {
      return e;
    }
    ADD_FAILURE() << "runSpecFile succeeded";
    return SpecRunError(Kind::setup_error, "no error");
  }

  std::optional<TempDir> dir_;
};

std::int64_t parameterCount(const ir::Graph& g) {
  std::int64_t total = 0;
  for (const ir::Param& p : g.params) total += ir::numel(g.tensor(p.tensor).shape);
  return total;
}

std::size_t forwardOps(const ir::Graph& g) {
  std::size_t n = 0;
  for (const ir::Op& op : g.ops) n += op.phase == ir::Phase::forward;
  return n;
}

TEST_F(SpecRunnerTest, DefaultModelTracesLikeTheLinkedExample) {
  RunReport report;
  const ir::TracedModel model = runSpecFile(kDefaultModel, options(), &report);
  EXPECT_EQ(model.spec.label, "Iterative diffusion denoiser");
  // l1 32x128+128, l2 128x128+128, l3 128x32+32.
  EXPECT_EQ(parameterCount(model.train), 24'864);
  // Training forward: 6 params + 2 inputs, denoise = 3 x (matmul, add) + 2 gelu, then sub,
  // sub, square, mean: 8 + 8 + 4 = 20. Inference: 6 params + 1 input, then 12 steps of
  // denoise (8 ops) + mul + sub: 7 + 12 x 10 = 127.
  EXPECT_EQ(forwardOps(model.train), 20u);
  ASSERT_TRUE(model.hasInfer);
  EXPECT_EQ(model.infer.ops.size(), 127u);

  // The same graphs as tracing the example linked into this program: kinds, shapes, sites.
  const RegisteredSpec* linked = findSpec("diffusion_denoiser");
  ASSERT_NE(linked, nullptr);
  const ir::TracedModel expected = traceModel(loadSpec(*linked));
  for (const auto& [got, want] : {std::pair{&model.train, &expected.train}, std::pair{&model.infer, &expected.infer}}) {
    ASSERT_EQ(got->ops.size(), want->ops.size());
    for (std::size_t i = 0; i < got->ops.size(); ++i) {
      EXPECT_EQ(got->ops[i].kind, want->ops[i].kind) << "op " << i;
      EXPECT_EQ(got->tensor(got->ops[i].out).shape, want->tensor(want->ops[i].out).shape) << "op " << i;
    }
    ASSERT_EQ(got->sites.frames.size(), want->sites.frames.size());
    for (std::size_t i = 0; i < got->sites.frames.size(); ++i) {
      EXPECT_EQ(got->sites.frames[i].line, want->sites.frames[i].line);
      EXPECT_EQ(got->sites.frames[i].column, want->sites.frames[i].column);  // -g1 keeps columns
      EXPECT_EQ(got->sites.frames[i].function, want->sites.frames[i].function);
    }
  }
  // The predict loop's line is a call site of the inference graph.
  int loopLine = 0;
  std::ifstream source(kDefaultModel);
  std::string text;
  for (int n = 1; std::getline(source, text); ++n) {
    if (text.find("x = sub(x, mul(denoise(m, x), STEP_SIZE));") != std::string::npos) loopLine = n;
  }
  ASSERT_GT(loopLine, 0);
  bool sawLoopLine = false;
  for (const ir::Frame& f : model.infer.sites.frames) sawLoopLine |= f.line == loopLine && f.function == "predictFn";
  EXPECT_TRUE(sawLoopLine);
  ASSERT_FALSE(model.train.sites.files.empty());
  EXPECT_EQ(model.train.sites.files[0].path, fs::canonical(kDefaultModel).string());
  EXPECT_FALSE(model.train.sites.files[0].text.empty());
  EXPECT_FALSE(fs::exists(report.runDir)) << "the run directory is removed";
}

TEST_F(SpecRunnerTest, SecondRunIsACacheHitAndAnEditRecompiles) {
  TempDir cache(fs::temp_directory_path(), "nndna-test-fresh-cache-");
  RunOptions o;
  o.cacheDir = cache.path();
  const fs::path spec = writeSpec("");
  RunReport first;
  runSpecFile(spec, o, &first);
  EXPECT_FALSE(first.cacheHit);
  EXPECT_TRUE(first.pchBuilt);
  ASSERT_TRUE(fs::exists(first.binary));
  // A rebuild publishes a new file (rename): the same inode means the binary was not rebuilt.
  const ino_t builtAs = inodeOf(first.binary);
  const auto builtAt = fs::last_write_time(first.binary);

  RunReport second;
  const ir::TracedModel model = runSpecFile(spec, o, &second);
  EXPECT_TRUE(second.cacheHit);
  EXPECT_FALSE(second.pchBuilt);
  EXPECT_EQ(second.binary, first.binary);
  EXPECT_EQ(inodeOf(second.binary), builtAs);
  EXPECT_GE(fs::last_write_time(second.binary), builtAt);  // marked as used, for cache pruning
  EXPECT_EQ(parameterCount(model.train), 4 * 2 + 2);

  std::ofstream(spec, std::ios::app) << "// an edit\n";
  RunReport third;
  runSpecFile(spec, o, &third);
  EXPECT_FALSE(third.cacheHit);
  EXPECT_FALSE(third.pchBuilt) << "the precompiled header is built once per cache";
  EXPECT_NE(third.binary, first.binary);
}

TEST_F(SpecRunnerTest, EditingAnIncludedHeaderRecompiles) {
  TempDir cache(fs::temp_directory_path(), "nndna-test-fresh-cache-");
  RunOptions o;
  o.cacheDir = cache.path();
  const fs::path header = dir_->path() / "width.hpp";
  const fs::path spec = dir_->path() / "model.cpp";
  std::ofstream(header) << "constexpr int WIDTH = 3;\n";
  std::ofstream(spec) << "#include <nndna/nndna.hpp>\n#include \"width.hpp\"\nusing namespace nndna;\n"
                         "struct Net : Module { Linear l{\"l\", 4, WIDTH}; };\n"
                         "Tensor lossFn(Net& m, const Inputs& in) { return mean(m.l(in[\"x\"])); }\n"
                         "NNDNA_SPEC(Net) { return {.label = \"t\", .loss = lossFn, .inputs = {{\"x\", {8, 4}}}}; }\n";
  RunReport first;
  EXPECT_EQ(parameterCount(runSpecFile(spec, o, &first).train), 4 * 3 + 3);
  EXPECT_FALSE(first.cacheHit);
  RunReport second;
  runSpecFile(spec, o, &second);
  EXPECT_TRUE(second.cacheHit);
  std::ofstream(header) << "constexpr int WIDTH = 5;   // wider\n";
  RunReport third;
  EXPECT_EQ(parameterCount(runSpecFile(spec, o, &third).train), 4 * 5 + 5);
  EXPECT_FALSE(third.cacheHit) << "the header changed";
}

TEST_F(SpecRunnerTest, CompileErrorShowsTheSpecLineOnly) {
  writeSpec("  Tensor y = matmul(in[\"x\"]);\n  undefinedThing();");
  fs::current_path(dir_->path());
  const SpecRunError e = runExpectingError("model.cpp", options());
  EXPECT_EQ(e.kind(), Kind::compile_error);
  const std::string message = e.what();
  EXPECT_EQ(message.rfind("model.cpp: In function", 0), 0u) << message;
  EXPECT_NE(message.find("\nmodel.cpp:6:20: error: too few arguments to function 'nndna::Tensor nndna::matmul("), std::string::npos)
      << message;
  EXPECT_NE(message.find("\nmodel.cpp:7:3: error: 'undefinedThing' was not declared"), std::string::npos) << message;
  EXPECT_EQ(message.find("nndna.hpp"), std::string::npos) << message;
  EXPECT_EQ(message.find("/usr/include"), std::string::npos) << message;
  EXPECT_EQ(message.find("In file included"), std::string::npos) << message;
  EXPECT_EQ(message.find("note:"), std::string::npos) << message;
}

TEST_F(SpecRunnerTest, ShapeErrorKeepsTheSpecLine) {
  writeSpec("  Tensor bad = matmul(in[\"x\"], in[\"x\"]);");
  fs::current_path(dir_->path());
  const SpecRunError e = runExpectingError("model.cpp", options());
  EXPECT_EQ(e.kind(), Kind::trace_error);
  const std::string message = e.what();
  EXPECT_EQ(message.rfind("model.cpp:6: matmul: ", 0), 0u) << message;
  EXPECT_NE(message.find("[8, 4]"), std::string::npos) << message;
}

TEST_F(SpecRunnerTest, InfiniteLoopTimesOut) {
  RunOptions o = options();
  o.runLimits.cpuSeconds = 2;
  o.runLimits.wallTime = std::chrono::seconds(120);  // a loaded machine gives it a fraction of a core
  const SpecRunError e = runExpectingError(writeSpec("  for (volatile int i = 0;; i = i + 1) {}"), o);
  EXPECT_EQ(e.kind(), Kind::timeout);
  EXPECT_NE(std::string(e.what()).find("more than 2 s of CPU time"), std::string::npos) << e.what();
}

TEST_F(SpecRunnerTest, SleepingSpecHitsTheWallClock) {
  RunOptions o = options();
  o.runLimits.wallTime = std::chrono::seconds(2);
  const SpecRunError e =
      runExpectingError(writeSpec("  std::this_thread::sleep_for(std::chrono::hours(1));", "#include <thread>\n"), o);
  EXPECT_EQ(e.kind(), Kind::timeout);
  EXPECT_NE(std::string(e.what()).find("ran longer than 2 s"), std::string::npos) << e.what();
}

TEST_F(SpecRunnerTest, MemoryBombHitsTheMemoryLimit) {
  RunOptions o = options();
  o.runLimits.addressSpaceBytes = std::uint64_t{1} << 30;
  const SpecRunError e = runExpectingError(
      writeSpec("  std::vector<std::vector<char>> hog;\n"
                "  for (;;) hog.emplace_back(std::size_t{64} << 20, 'x');",
                "#include <vector>\n"),
      o);
  EXPECT_EQ(e.kind(), Kind::memory_limit);
  EXPECT_NE(std::string(e.what()).find("ran out of memory (limit: 1024 MiB"), std::string::npos) << e.what();
}

TEST_F(SpecRunnerTest, NetworkIsUnreachable) {
  // A listener on the host's loopback: the spec must not reach it (nor anything else).
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  socklen_t len = sizeof(addr);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);

  RunOptions o = options();
  o.runLimits.wallTime = std::chrono::seconds(20);
  const std::string body =
      "  int s = ::socket(AF_INET, SOCK_STREAM, 0);\n"
      "  sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(" + std::to_string(port) + ");\n"
      "  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);\n"
      "  if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) throw std::runtime_error(\"connected\");\n"
      "  throw std::runtime_error(std::string(\"connect failed: \") + std::strerror(errno));";
  RunReport report;
  std::string message;
  try {
    runSpecFile(writeSpec(body, "#include <netinet/in.h>\n#include <sys/socket.h>\n#include <cerrno>\n#include <cstring>\n#include <stdexcept>\n"),
                o, &report);
  } catch (const SpecRunError& e) {
    EXPECT_EQ(e.kind(), Kind::spec_error);
    message = e.what();
  }
  const int accepted = ::accept(listener, nullptr, nullptr);
  ::close(listener);
  if (!report.namespaces) GTEST_SKIP() << "no network namespace on this machine: " << message;
  EXPECT_LT(accepted, 0) << "the spec reached the host's loopback";
  EXPECT_NE(message.find("connect failed: "), std::string::npos) << message;
  EXPECT_LT(report.runSeconds, 10.0);
}

TEST_F(SpecRunnerTest, WritingOutsideItsDirectoryIsDenied) {
  TempDir outside(fs::temp_directory_path(), "nndna-test-outside-");
  const fs::path target = outside.path() / "pwned.txt";
  const std::string body =
      "  std::ofstream(\"inside.txt\") << \"ok\";\n"
      "  if (!std::ifstream(\"inside.txt\")) throw std::runtime_error(\"cannot write inside\");\n"
      "  std::ofstream out(\"" + target.string() + "\");\n"
      "  throw std::runtime_error(out ? \"wrote outside\" : \"outside: denied\");";
  RunReport report;
  std::string message;
  try {
    runSpecFile(writeSpec(body, "#include <fstream>\n#include <stdexcept>\n"), options(), &report);
  } catch (const SpecRunError& e) {
    message = e.what();
  }
  if (!report.namespaces) GTEST_SKIP() << "no mount namespace on this machine (documented): " << message;
  EXPECT_TRUE(report.readOnlyFs);
  EXPECT_NE(message.find("outside: denied"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(target));
}

TEST_F(SpecRunnerTest, SegfaultIsNamed) {
  const SpecRunError e = runExpectingError(writeSpec("  *static_cast<volatile int*>(nullptr) = 1;"), options());
  EXPECT_EQ(e.kind(), Kind::crash);
  EXPECT_NE(std::string(e.what()).find("crashed: SIGSEGV (Segmentation fault)"), std::string::npos) << e.what();
}

TEST_F(SpecRunnerTest, AbortIsNamedWithWhatTheSpecPrinted) {
  const SpecRunError e = runExpectingError(
      writeSpec("  std::fprintf(stderr, \"about to give up\\n\"); std::abort();", "#include <cstdio>\n#include <cstdlib>\n"),
      options());
  EXPECT_EQ(e.kind(), Kind::crash);
  const std::string message = e.what();
  EXPECT_NE(message.find("crashed: SIGABRT (Aborted)"), std::string::npos) << message;
  EXPECT_NE(message.find("about to give up"), std::string::npos) << message;
}

TEST_F(SpecRunnerTest, FileWithoutSpecSaysSo) {
  const fs::path file = dir_->path() / "empty.cpp";
  std::ofstream(file) << "#include <nndna/nndna.hpp>\nint unused = 0;\n";
  const SpecRunError e = runExpectingError(file, options());
  EXPECT_EQ(e.kind(), Kind::spec_error);
  EXPECT_NE(std::string(e.what()).find("no NNDNA_SPEC"), std::string::npos) << e.what();
}

TEST_F(SpecRunnerTest, MissingFileIsASetupError) {
  const SpecRunError e = runExpectingError(dir_->path() / "nope.cpp", options());
  EXPECT_EQ(e.kind(), Kind::setup_error);
  EXPECT_NE(std::string(e.what()).find("nope.cpp: cannot read the spec file"), std::string::npos) << e.what();
}

// The processes whose executable is `binary` (a spec program left running would be one).
int processesRunning(const fs::path& binary) {
  int count = 0;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc", ec)) {
    std::error_code linkError;
    const fs::path exe = fs::read_symlink(entry.path() / "exe", linkError);
    if (!linkError && exe == binary) ++count;
  }
  return count;
}

TEST_F(SpecRunnerTest, SourceTextIsCompiledOnceAndNamedAsGiven) {
  TempDir cache(fs::temp_directory_path(), "nndna-test-cache-");
  RunOptions o = options();
  o.cacheDir = cache.path();
  const std::string source = "#include <nndna/nndna.hpp>\nusing namespace nndna;\n"
                             "struct Net : Module { Linear l{\"l\", 4, 3}; };\n"
                             "Tensor lossFn(Net& m, const Inputs& in) { return mean(m.l(in[\"x\"])); }\n"
                             "NNDNA_SPEC(Net) { return {.label = \"t\", .loss = lossFn, .inputs = {{\"x\", {8, 4}}}}; }\n";
  RunReport first;
  EXPECT_EQ(parameterCount(runSpecSource(source, "mine.cpp", o, &first).train), 4 * 3 + 3);
  EXPECT_FALSE(first.cacheHit);
  RunReport second;
  EXPECT_EQ(parameterCount(runSpecSource(source, "mine.cpp", o, &second).train), 4 * 3 + 3);
  EXPECT_TRUE(second.cacheHit) << "an identical source must reuse the compiled binary";

  std::string broken = source;
  broken.replace(broken.find("{8, 4}"), 6, "{8, 5}");
  try {
    runSpecSource(broken, "mine.cpp", o);
    ADD_FAILURE() << "a shape error must be raised";
  } catch (const SpecRunError& e) {
    EXPECT_EQ(e.kind(), Kind::trace_error);
    EXPECT_NE(std::string(e.what()).find("mine.cpp:4:"), std::string::npos) << e.what();
  }
}

TEST_F(SpecRunnerTest, StagesAreReportedAsTheyStartAndEnd) {
  std::vector<std::string> events;
  RunOptions o = options();
  o.onStage = [&](const StageEvent& e) {
    events.push_back(std::string(e.stage) + (e.finished ? " done" : " start"));
    if (e.finished) {
      EXPECT_GE(e.seconds, 0.0);
    }
  };
  runSpecFile(writeSpec(""), o);
  const std::vector<std::string> expected{"compile start", "compile done", "run start",
                                          "run done",      "read start",   "read done"};
  EXPECT_EQ(events, expected);
}

TEST_F(SpecRunnerTest, StopRequestKillsTheRunningSpec) {
  std::stop_source stop;
  RunOptions o = options();
  o.stop = stop.get_token();
  std::thread stopper;
  o.onStage = [&](const StageEvent& e) {
    if (e.stage == "run" && !e.finished) {
      stopper = std::thread([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        stop.request_stop();
      });
    }
  };
  RunReport report;
  const auto start = std::chrono::steady_clock::now();
  try {
    runSpecFile(writeSpec("  for (volatile int spin = 0;; spin = spin + 1) {}"), o, &report);
    ADD_FAILURE() << "a cancelled run must throw";
  } catch (const SpecRunError& e) {
    EXPECT_EQ(e.kind(), Kind::cancelled) << e.what();
  }
  if (stopper.joinable()) stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(processesRunning(report.binary), 0) << "the spec program must not outlive the cancel";
}

TEST_F(SpecRunnerTest, StopRequestCancelsTheCompile) {
  std::stop_source stop;
  RunOptions o = options();
  o.useCache = false;
  o.stop = stop.get_token();
  std::thread stopper;
  o.onStage = [&](const StageEvent& e) {
    if (e.stage == "compile" && !e.finished) stopper = std::thread([&] { stop.request_stop(); });
  };
  try {
    runSpecFile(writeSpec("  // compiled, then cancelled"), o);
    ADD_FAILURE() << "a cancelled compile must throw";
  } catch (const SpecRunError& e) {
    EXPECT_EQ(e.kind(), Kind::cancelled) << e.what();
  }
  if (stopper.joinable()) stopper.join();
}

TEST_F(SpecRunnerTest, IsolationStatusAgreesWithARun) {
  const IsolationStatus& status = isolationStatus();
  EXPECT_EQ(status.full, status.missing.empty());
  EXPECT_FALSE(status.describe().empty());
  RunReport report;
  runSpecFile(writeSpec(""), options(), &report);
  EXPECT_EQ(status.full, report.namespaces && report.readOnlyFs) << status.describe();
}

}  // namespace
}  // namespace nndna::specrun
