// runSpecFile end to end: real spec files compiled with g++ against libnndna and run in the
// sandbox. One cache directory in the build tree serves every test (ctest runs each test as its
// own process; the precompiled header is built once); the cache test uses a fresh one.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "nndna/trace.hpp"
#include "specrun/compile_cache.hpp"
#include "specrun/pch_builder.hpp"
#include "specrun/spec_runner.hpp"
#include "specrun/temp_dir.hpp"
#include "specrun/toolchain.hpp"
#include "test_cache.hpp"

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
  void SetUp() override {
    startDir_ = fs::current_path();
    dir_.emplace(fs::temp_directory_path(), "nndna-test-spec-");
  }
  // Tests that run from dir_ (to name the spec as the user would) leave it before it is removed:
  // the next test of this process must not start in a deleted directory.
  void TearDown() override { fs::current_path(startDir_); }

  RunOptions options() const {
    RunOptions o;
    o.cacheDir = testCacheDir();
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

  fs::path startDir_;
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

// A spec of one Linear(4, width) layer: 4·width + width parameters.
std::string oneLinearLayer(int width) {
  return "#include <nndna/nndna.hpp>\nusing namespace nndna;\n"
         "struct Net : Module { Linear l{\"l\", 4, " + std::to_string(width) + "}; };\n"
         "Tensor lossFn(Net& m, const Inputs& in) { return mean(m.l(in[\"x\"])); }\n"
         "NNDNA_SPEC(Net) { return {.label = \"t\", .loss = lossFn, .inputs = {{\"x\", {8, 4}}}}; }\n";
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

// The user frames of every op's call site, as "function:line" (the training graph).
std::vector<std::string> userFrames(const ir::TracedModel& model) {
  std::vector<std::string> out;
  for (const ir::Frame& f : model.train.sites.frames) out.push_back(f.function + ":" + std::to_string(f.line));
  return out;
}

// Each run of a binary after its first takes its call sites from the memo the first saved beside
// it (trace/frame_memo.hpp) and never loads libdw; a memo of another binary, or one that does not
// read, is not used and is replaced.
TEST_F(SpecRunnerTest, LaterRunsOfABinaryTakeTheirCallSitesFromTheMemoOfTheFirst) {
  TempDir cache(fs::temp_directory_path(), "nndna-test-fresh-cache-");
  RunOptions o;
  o.cacheDir = cache.path();
  const fs::path spec = dir_->path() / "memo.cpp";
  // The size of `marker` says whether libdw was loaded once the layer's call sites were resolved.
  std::ofstream(spec) << "#include <nndna/nndna.hpp>\n"                                  // 1
                      << "#include <dlfcn.h>\n"                                          // 2
                      << "using namespace nndna;\n"                                     // 3
                      << "struct Net : Module { Linear l{\"l\", 4, 2}; };\n"            // 4
                      << "int libdwLoaded() { return dlopen(\"libdw.so.1\", RTLD_LAZY | RTLD_NOLOAD) ? 3 : 2; }\n"
                      << "Tensor lossFn(Net& m, const Inputs& in) {\n"                   // 6
                      << "  Tensor y = m.l(in[\"x\"]);\n"                                // 7
                      << "  Tensor marker = zeros({libdwLoaded()});\n"                   // 8
                      << "  return add(mean(y), mean(marker));\n"                        // 9
                      << "}\n"
                      << "NNDNA_SPEC(Net) { return {.label = \"t\", .loss = lossFn, "
                         ".inputs = {{\"x\", {8, 4}}}}; }\n";
  const auto markerSize = [](const ir::TracedModel& model) {
    for (const ir::Op& op : model.train.ops) {
      if (op.kind == ir::OpKind::zeros) return model.train.tensor(op.out).shape.at(0);
    }
    ADD_FAILURE() << "no zeros op";
    return std::int64_t{0};
  };
  RunReport first;
  const ir::TracedModel resolved = runSpecFile(spec, o, &first);
  EXPECT_EQ(markerSize(resolved), 3) << "the first run resolves its call sites with libdw";
  const std::vector<std::string> expected = userFrames(resolved);
  EXPECT_NE(std::find(expected.begin(), expected.end(), "lossFn:7"), expected.end());
  const fs::path memo = first.binary.string() + ".frames";
  ASSERT_TRUE(fs::exists(memo));
  const ino_t memoInode = inodeOf(memo);

  const ir::TracedModel recalled = runSpecFile(spec, o);
  EXPECT_EQ(markerSize(recalled), 2) << "the second run takes them all from the memo";
  EXPECT_EQ(userFrames(recalled), expected);
  EXPECT_EQ(inodeOf(memo), memoInode) << "nothing new to keep: the memo is not written again";

  // The memo is what the run believes: a doctored one (the same binary's) names other lines.
  std::string text;
  {
    std::ifstream in(memo);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::size_t at = text.find(R"("lossFn"])");
  ASSERT_NE(at, std::string::npos) << text;
  std::string doctored = text;
  doctored.replace(at, 8, R"("doctored")");
  std::ofstream(memo, std::ios::trunc) << doctored;
  const std::vector<std::string> frames = userFrames(runSpecFile(spec, o));
  EXPECT_NE(std::find(frames.begin(), frames.end(), "doctored:7"), frames.end());

  // Another binary's memo, and one cut short: not used, and replaced by this run's.
  const std::size_t program = text.find(R"("program":")");
  ASSERT_NE(program, std::string::npos);
  std::string another = text;
  another.replace(program + 11, text.find('"', program + 11) - (program + 11), "not-this-program");
  for (const std::string& unusable : {another, text.substr(0, text.size() / 2)}) {
    std::ofstream(memo, std::ios::trunc) << unusable;
    const ir::TracedModel model = runSpecFile(spec, o);
    EXPECT_EQ(markerSize(model), 3);
    EXPECT_EQ(userFrames(model), expected);
    std::ifstream in(memo);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), text);
  }
}

// The precompiled header of a spec that includes <cmath> holds <cmath> too (one PCH per set of
// standard headers); a spec that does not name <cmath> gets the PCH without it, and cannot use it.
TEST_F(SpecRunnerTest, StandardHeadersASpecIncludesArePrecompiledForItAlone) {
  TempDir cache(fs::temp_directory_path(), "nndna-test-fresh-cache-");
  RunOptions o;
  o.cacheDir = cache.path();
  auto pchTexts = [&] {
    std::vector<std::string> texts;
    for (const auto& entry : fs::directory_iterator(cache.path() / "pch")) {
      std::ifstream in(entry.path() / "nndna_pch.hpp");
      texts.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      EXPECT_TRUE(fs::exists(entry.path() / "nndna_pch.hpp.gch")) << entry.path();
    }
    return texts;
  };
  const std::string usesSqrt = "  Tensor scaled = mul(in[\"x\"], std::sqrt(4.0));";

  RunReport withCmath;
  EXPECT_EQ(parameterCount(runSpecFile(writeSpec(usesSqrt, "#include <cmath>\n"), o, &withCmath).train), 4 * 2 + 2);
  EXPECT_TRUE(withCmath.pchBuilt);
  std::vector<std::string> texts = pchTexts();
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_NE(texts[0].find("#include <nndna/nndna.hpp>\n#include <cmath>\n"), std::string::npos) << texts[0];

  writeSpec(usesSqrt);
  fs::current_path(dir_->path());
  const SpecRunError e = runExpectingError("model.cpp", o);
  EXPECT_EQ(e.kind(), Kind::compile_error);
  EXPECT_NE(std::string(e.what()).find("model.cpp:6:"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("'sqrt' is not a member of 'std'"), std::string::npos) << e.what();
  texts = pchTexts();
  ASSERT_EQ(texts.size(), 2u);
  EXPECT_EQ(std::count_if(texts.begin(), texts.end(),
                          [](const std::string& t) { return t.find("<cmath>") == std::string::npos; }),
            1) << "a second PCH, of nndna.hpp alone";

  RunReport again;
  runSpecFile(writeSpec(usesSqrt + " // edited", "#include <cmath>\n"), o, &again);
  EXPECT_FALSE(again.cacheHit);
  EXPECT_FALSE(again.pchBuilt) << "the PCH with <cmath> is built once";
}

// With a builder (nndna serve), a spec whose standard headers have no PCH yet is compiled with
// the PCH of nndna.hpp alone at once; the PCH with its headers is built beside it, for the edits
// after it.
TEST_F(SpecRunnerTest, ABuilderPrecompilesANewStandardHeaderWhileTheSpecCompilesWithoutIt) {
  TempDir cache(fs::temp_directory_path(), "nndna-test-fresh-cache-");
  RunOptions o;
  o.cacheDir = cache.path();
  o.pchBuilder = std::make_shared<PchBuilder>();
  const std::string usesSqrt = "  Tensor scaled = mul(in[\"x\"], std::sqrt(4.0));";
  auto pchText = [](const fs::path& header) {
    std::ifstream in(header);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };

  RunReport first;
  EXPECT_EQ(parameterCount(runSpecFile(writeSpec(usesSqrt, "#include <cmath>\n"), o, &first).train), 4 * 2 + 2);
  ASSERT_FALSE(first.pch.empty());
  EXPECT_EQ(pchText(first.pch).find("<cmath>"), std::string::npos) << "compiled with nndna.hpp's PCH alone";
  EXPECT_TRUE(first.pchBuilt) << "that one was built now (a fresh cache)";

  o.pchBuilder->waitIdle();
  RunReport edited;
  EXPECT_EQ(parameterCount(runSpecFile(writeSpec(usesSqrt + " // edited", "#include <cmath>\n"), o, &edited).train),
            4 * 2 + 2);
  EXPECT_FALSE(edited.cacheHit);
  EXPECT_FALSE(edited.pchBuilt);
  ASSERT_FALSE(edited.pch.empty());
  EXPECT_NE(pchText(edited.pch).find("#include <nndna/nndna.hpp>\n#include <cmath>\n"), std::string::npos)
      << "the builder's PCH, with <cmath>";
  EXPECT_TRUE(fs::exists(edited.pch.string() + ".gch"));
}

// Destroying the builder (the server stopping) stops its build: no compiler is left running, and
// nothing half-built is kept.
TEST_F(SpecRunnerTest, DestroyingAPchBuilderStopsItsBuild) {
  TempDir cache(fs::temp_directory_path(), "nndna-test-fresh-cache-");
  const std::vector<std::string_view> headers{"cmath"};
  const auto started = std::chrono::steady_clock::now();
  {
    PchBuilder builder;
    builder.request(toolchain(), cache.path(), headers, defaultCompileLimits());
    // Until the build has started (its work directory exists).
    auto building = [&] {
      std::error_code ec;
      return fs::exists(cache.path() / "tmp", ec) && !fs::is_empty(cache.path() / "tmp", ec);
    };
    while (!building() && std::chrono::steady_clock::now() - started < std::chrono::seconds(10)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(building());
  }
  EXPECT_FALSE(builtPrecompiledHeader(toolchain(), cache.path(), headers));
  const bool pchKept = fs::exists(cache.path() / "pch") && !fs::is_empty(cache.path() / "pch");
  EXPECT_FALSE(pchKept) << "a stopped build leaves nothing in the cache";
}

// The builder's queue is bounded (the sets come from texts a server is sent): past kMaxQueued
// waiting, the oldest request is dropped, and the newest is always built. Headers that do not
// exist make each build fail fast (and leave its marker directory).
TEST_F(SpecRunnerTest, APchBuildersQueueDropsItsOldestRequests) {
  TempDir cache(fs::temp_directory_path(), "nndna-test-fresh-cache-");
  const Toolchain tc = toolchain();
  constexpr int kRequests = 7;
  std::vector<std::string> names;
  for (int i = 1; i <= kRequests; ++i) names.push_back("nndna_missing_" + std::to_string(i));
  {
    PchBuilder builder;
    for (const std::string& name : names) {
      const std::string_view header[] = {name};
      builder.request(tc, cache.path(), header, defaultCompileLimits());
    }
    builder.waitIdle();
  }
  std::vector<std::string> built;
  for (const auto& entry : fs::directory_iterator(cache.path() / "pch")) {
    std::ifstream in(entry.path() / "nndna_pch.hpp");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const std::string& name : names) {
      if (text.find("<" + name + ">") != std::string::npos) built.push_back(name);
    }
    EXPECT_TRUE(fs::exists(entry.path() / "build-failed")) << entry.path();
  }
  EXPECT_LE(built.size(), 1 + PchBuilder::kMaxQueued) << "one being built and the queue";
  EXPECT_GE(built.size(), PchBuilder::kMaxQueued);
  EXPECT_NE(std::find(built.begin(), built.end(), names.back()), built.end()) << "the newest request is built";
}

// A PCH the compiler refuses (a toolchain without one of the headers) is remembered in the cache:
// later compiles fall back to the PCH of nndna.hpp alone without trying the build again.
TEST_F(SpecRunnerTest, APrecompiledHeaderTheCompilerRefusesIsNotBuiltAgain) {
  TempDir cache(fs::temp_directory_path(), "nndna-test-fresh-cache-");
  const std::vector<std::string_view> missing{"nndna_no_such_standard_header"};
  const Toolchain tc = toolchain();
  RunReport first;
  EXPECT_FALSE(precompiledHeader(tc, cache.path(), missing, defaultCompileLimits(), &first));
  EXPECT_TRUE(first.pchBuilt);
  ASSERT_TRUE(fs::exists(cache.path() / "pch"));
  std::vector<fs::path> entries(fs::directory_iterator(cache.path() / "pch"), fs::directory_iterator());
  ASSERT_EQ(entries.size(), 1u);
  std::ifstream marker(entries[0] / "build-failed");
  const std::string output((std::istreambuf_iterator<char>(marker)), std::istreambuf_iterator<char>());
  EXPECT_NE(output.find("nndna_no_such_standard_header"), std::string::npos) << "the compiler's output: " << output;

  RunReport second;
  EXPECT_FALSE(precompiledHeader(tc, cache.path(), missing, defaultCompileLimits(), &second));
  EXPECT_FALSE(second.pchBuilt) << "not tried again";
  EXPECT_FALSE(builtPrecompiledHeader(tc, cache.path(), missing));
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

// A header outside the spec's folder is hidden by the sandbox, where g++ says only "No such
// file or directory": a note says why (here the file exists on the host).
TEST_F(SpecRunnerTest, AHeaderOutsideTheSpecsFolderIsExplained) {
  const fs::path outside = dir_->path().parent_path() / ("nndna-outside-" + std::to_string(::getpid()) + ".hpp");
  std::ofstream(outside) << "inline int fromOutside = 1;\n";
  writeSpec("", "#include \"../" + outside.filename().string() + "\"\n");
  const SpecRunError e = runExpectingError(dir_->path() / "model.cpp", options());
  fs::remove(outside);
  EXPECT_EQ(e.kind(), Kind::compile_error);
  EXPECT_NE(std::string(e.what()).find("note: the compile sees the system's headers, nndna's and the spec's own "
                                       "folder only; ../" + outside.filename().string() + " is outside them"),
            std::string::npos)
      << e.what();
}

// A module copy would share the original's weights: it does not compile, and the error names the
// copy's line.
TEST_F(SpecRunnerTest, CopyingAModuleIsACompileErrorAtTheCopysLine) {
  writeSpec("  Linear copy = m.l;");
  fs::current_path(dir_->path());
  const SpecRunError e = runExpectingError("model.cpp", options());
  EXPECT_EQ(e.kind(), Kind::compile_error);
  const std::string message = e.what();
  EXPECT_NE(message.find("model.cpp:6:"), std::string::npos) << message;
  EXPECT_NE(message.find("use of deleted function 'nndna::Linear::Linear(const nndna::Linear&)'"),
            std::string::npos) << message;
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

// g++ picks a language by the file's name (a .hpp is a header to precompile, a .txt a linker
// script); a spec is C++ whatever its name, and its errors still name its line.
TEST_F(SpecRunnerTest, ASpecIsCppWhateverItsFileIsCalled) {
  for (const char* name : {"model.hpp", "model.txt", "model"}) {
    fs::rename(writeSpec("  Tensor bad = matmul(in[\"x\"], in[\"x\"]);"), dir_->path() / name);
    fs::current_path(dir_->path());
    const SpecRunError e = runExpectingError(name, options());
    EXPECT_EQ(e.kind(), Kind::trace_error) << name << ": " << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(std::string(name) + ":6: matmul: ", 0), 0u) << e.what();
  }
  fs::rename(dir_->path() / "model", dir_->path() / "good.hpp");
  std::ofstream(dir_->path() / "good.hpp") << oneLinearLayer(3);
  EXPECT_EQ(parameterCount(runSpecFile(dir_->path() / "good.hpp", options()).train), 4 * 3 + 3);
}

// -ffile-prefix-map=OLD=NEW is split at its last '=': a folder with '=' in its path cannot be the
// NEW, and is refused by name instead of leaving a deleted snapshot's path in the errors.
TEST_F(SpecRunnerTest, AFolderWithAnEqualsSignIsRefusedByName) {
  const fs::path folder = dir_->path() / "lr=0.1";
  fs::create_directory(folder);
  const fs::path spec = folder / "model.cpp";
  std::ofstream(spec) << oneLinearLayer(2);
  const SpecRunError e = runExpectingError(spec, options());
  EXPECT_EQ(e.kind(), Kind::setup_error);
  EXPECT_NE(std::string(e.what()).find("the spec's folder " + fs::canonical(folder).string() + " has '='"),
            std::string::npos)
      << e.what();
}

// A shape error inside a helper is at the helper's line, which two calls share: the message says
// which call failed (line 9, not the valid call on line 8).
TEST_F(SpecRunnerTest, AnErrorInAHelperNamesTheCallThatFailed) {
  std::ofstream(dir_->path() / "model.cpp") << "#include <nndna/nndna.hpp>\n"                      // 1
                                            << "using namespace nndna;\n"                            // 2
                                            << "struct Net : Module { Linear l{\"l\", 4, 2}; };\n"  // 3
                                            << "Tensor product(Tensor a, Tensor b) {\n"              // 4
                                            << "  return matmul(a, b);\n"                            // 5
                                            << "}\n"                                                 // 6
                                            << "Tensor lossFn(Net& m, const Inputs& in) {\n"         // 7
                                            << "  Tensor ok = product(in[\"x\"], in[\"w\"]);\n"  // 8
                                            << "  Tensor bad = product(in[\"x\"], in[\"x\"]);\n" // 9
                                            << "  return mean(m.l(add(ok, bad)));\n"                 // 10
                                            << "}\n"
                                            << "NNDNA_SPEC(Net) { return {.label = \"t\", .loss = lossFn, "
                                               ".inputs = {{\"x\", {8, 4}}, {\"w\", {4, 4}}}}; }\n";
  fs::current_path(dir_->path());
  const SpecRunError e = runExpectingError("model.cpp", options());
  EXPECT_EQ(e.kind(), Kind::trace_error);
  EXPECT_EQ(std::string(e.what()), "model.cpp:5: matmul: inner dimensions differ: [8, 4] · [8, 4] (called from line 9)");
}

// A longer chain names the three nearest calls and says that more follow.
TEST_F(SpecRunnerTest, ADeepChainOfHelpersNamesTheNearestThreeCalls) {
  std::ofstream(dir_->path() / "model.cpp") << "#include <nndna/nndna.hpp>\n"                        // 1
                                            << "using namespace nndna;\n"                              // 2
                                            << "struct Net : Module { Linear l{\"l\", 4, 2}; };\n"    // 3
                                            << "Tensor f1(Tensor a) { return matmul(a, a); }\n"        // 4
                                            << "Tensor f2(Tensor a) { return f1(a); }\n"               // 5
                                            << "Tensor f3(Tensor a) { return f2(a); }\n"               // 6
                                            << "Tensor f4(Tensor a) { return f3(a); }\n"               // 7
                                            << "Tensor lossFn(Net& m, const Inputs& in) {\n"           // 8
                                            << "  return mean(m.l(f4(in[\"x\"])));\n"                // 9
                                            << "}\n"
                                            << "NNDNA_SPEC(Net) { return {.label = \"t\", .loss = lossFn, "
                                               ".inputs = {{\"x\", {8, 4}}}}; }\n";
  fs::current_path(dir_->path());
  const SpecRunError e = runExpectingError("model.cpp", options());
  EXPECT_EQ(std::string(e.what()),
            "model.cpp:4: matmul: inner dimensions differ: [8, 4] · [8, 4] (called from line 5, from line 6, from "
            "line 7, …)");
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

// The program starts with the malloc settings that make a large trace fault in huge pages
// (child_protocol.hpp): the spec reads its environment into its label.
TEST_F(SpecRunnerTest, TheProgramStartsWithTheMallocTunables) {
  const std::string source =
      "#include <nndna/nndna.hpp>\n#include <cstdlib>\n#include <string>\nusing namespace nndna;\n"
      "struct Net : Module { Linear l{\"l\", 4, 2}; };\n"
      "Tensor lossFn(Net& m, const Inputs& in) { return mean(m.l(in[\"x\"])); }\n"
      "std::string tunables() { const char* t = std::getenv(\"GLIBC_TUNABLES\"); return t ? t : \"unset\"; }\n"
      "NNDNA_SPEC(Net) { return {.label = tunables(), .loss = lossFn, .inputs = {{\"x\", {8, 4}}}}; }\n";
  const ir::TracedModel model = runSpecSource(source, "model.cpp", options());
  EXPECT_EQ(model.spec.label, "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864");
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
  if (!report.isolation || !report.isolation->namespaces) GTEST_SKIP() << "no network namespace on this machine: " << message;
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
  if (!report.isolation || !report.isolation->namespaces) GTEST_SKIP() << "no mount namespace on this machine (documented): " << message;
  EXPECT_TRUE(report.isolation->minimalRoot);
  EXPECT_NE(message.find("outside: denied"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(target));
}

TEST_F(SpecRunnerTest, SegfaultIsNamedAtItsLine) {
  const fs::path spec = writeSpec("  *static_cast<volatile int*>(nullptr) = 1;");
  const SpecRunError e = runExpectingError(spec, options());
  EXPECT_EQ(e.kind(), Kind::crash);
  EXPECT_EQ(e.file(), spec.string());
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(std::string(e.what()).rfind(spec.string() + ":6: the spec crashed: SIGSEGV (Segmentation fault)", 0), 0u)
      << e.what();
}

// The fault is in the C library (strlen of a null pointer, a function with no frame of its own):
// the line is the spec's call.
TEST_F(SpecRunnerTest, CrashInsideTheCLibraryNamesTheCallingLine) {
  const fs::path spec = writeSpec("  volatile const char* name = nullptr; if (std::strlen(const_cast<const char*>(name)) == 3) return in[\"x\"];",
                                  "#include <cstring>\n");
  const SpecRunError e = runExpectingError(spec, options());
  EXPECT_EQ(e.kind(), Kind::crash);
  EXPECT_EQ(e.line(), 6) << e.what();
  EXPECT_NE(std::string(e.what()).find("crashed: SIGSEGV"), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()).find("stack overflowed"), std::string::npos) << e.what();  // a null pointer
}

// A recursion that runs out of stack: the handler has a stack of its own, and names the line
// that recursed (line 2, the spec's "include" line here).
TEST_F(SpecRunnerTest, StackOverflowNamesTheRecursingLine) {
  const fs::path spec = writeSpec("  if (deep(0) == 3) return in[\"x\"];",
                                  "int deep(int n) { volatile char pad[256]; pad[0] = 1; return deep(n + 1) + pad[0]; }\n");
  const SpecRunError e = runExpectingError(spec, options());
  EXPECT_EQ(e.kind(), Kind::crash);
  EXPECT_EQ(e.line(), 2) << e.what();
  EXPECT_NE(std::string(e.what()).find("crashed: SIGSEGV (Segmentation fault): its stack overflowed (a recursion "
                                       "that does not end?)"),
            std::string::npos)
      << e.what();
}

// A crash in the user's own header is named there, by the header's path.
TEST_F(SpecRunnerTest, CrashInTheUsersHeaderNamesTheHeaderLine) {
  const fs::path header = dir_->path() / "helpers.hpp";
  std::ofstream(header) << "#pragma once\n"          // 1
                        << "inline int zero() { return 0; }\n"  // 2
                        << "inline int divide(int a) { return a / zero(); }\n";  // 3
  const fs::path spec = writeSpec("  if (divide(7) == 3) return in[\"x\"];", "#include \"helpers.hpp\"\n");
  const SpecRunError e = runExpectingError(spec, options());
  EXPECT_EQ(e.kind(), Kind::crash);
  EXPECT_EQ(e.file(), header.string()) << e.what();
  EXPECT_EQ(e.line(), 3) << e.what();
  EXPECT_NE(std::string(e.what()).find("crashed: SIGFPE"), std::string::npos) << e.what();
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
  const std::string source = oneLinearLayer(3);
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

// Issue 9.11: the bytes hashed into the cache key are the bytes compiled (and the text the trace
// carries), even when the file changes while the compiler runs.
TEST_F(SpecRunnerTest, SwappingTheFileDuringTheCompileChangesNothing) {
  TempDir cache(fs::temp_directory_path(), "nndna-test-cache-");
  RunOptions o = options();
  o.cacheDir = cache.path();
  const fs::path spec = dir_->path() / "swapped.cpp";
  auto writeWidth = [&](int width) {
    std::ofstream(spec) << oneLinearLayer(width);
  };
  writeWidth(3);
  o.onStage = [&](const StageEvent& e) {
    if (e.stage == "compile" && !e.finished) writeWidth(5);  // read and hashed already; not yet compiled
  };
  const ir::TracedModel first = runSpecFile(spec, o);
  EXPECT_EQ(parameterCount(first.train), 4 * 3 + 3) << "the compiled text is the text that was read";
  ASSERT_FALSE(first.train.sites.files.empty());
  EXPECT_NE(first.train.sites.files[0].text.find("Linear l{\"l\", 4, 3}"), std::string::npos);
  o.onStage = {};
  RunReport second;
  EXPECT_EQ(parameterCount(runSpecFile(spec, o, &second).train), 4 * 5 + 5) << "the file as it is now";
  EXPECT_FALSE(second.cacheHit);
  RunReport third;
  EXPECT_EQ(parameterCount(runSpecFile(spec, o, &third).train), 4 * 5 + 5);
  EXPECT_TRUE(third.cacheHit);
}

// runSpecSource compiles the text it is given, whatever the stored copy holds by now.
TEST_F(SpecRunnerTest, SourceTextIsCompiledAsGivenNotAsStored) {
  TempDir cache(fs::temp_directory_path(), "nndna-test-cache-");
  RunOptions o = options();
  o.cacheDir = cache.path();
  const std::string source = oneLinearLayer(3);
  EXPECT_EQ(parameterCount(runSpecSource(source, "mine.cpp", o).train), 4 * 3 + 3);
  std::string poisoned = source;
  poisoned.replace(poisoned.find("4, 3}"), 5, "4, 7}");
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(cache.path() / "sources")) {
    if (entry.path().filename() == "mine.cpp") std::ofstream(entry.path()) << poisoned;
  }
  o.useCache = false;
  EXPECT_EQ(parameterCount(runSpecSource(source, "mine.cpp", o).train), 4 * 3 + 3);
}

// The server's workers may store the same text at once: each stores it under a name of its own
// and renames it into place, so none fails and the stored copy is whole. (Stopped before the
// compile: only the storing is under test.)
TEST_F(SpecRunnerTest, ConcurrentRequestsStoreTheSameSourceSafely) {
  const std::string source = oneLinearLayer(3) + "// " + dir_->path().filename().string() + "\n";
  std::stop_source stop;
  stop.request_stop();
  RunOptions o = options();
  o.stop = stop.get_token();
  constexpr int kRequests = 8;
  std::latch start(kRequests);
  std::vector<std::string> kinds(kRequests);
  std::vector<std::thread> requests;
  for (int i = 0; i < kRequests; ++i) {
    requests.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        runSpecSource(source, "same.cpp", o);
      } catch (const SpecRunError& e) {
        kinds[static_cast<std::size_t>(i)] = std::string(kindName(e.kind())) + ": " + e.what();
      }
    });
  }
  for (std::thread& t : requests) t.join();
  for (const std::string& kind : kinds) EXPECT_EQ(kind, "cancelled: same.cpp: the compile was cancelled");
  std::vector<fs::path> stored;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(cacheDirectory(o) / "sources")) {
    if (entry.is_regular_file() && entry.path().parent_path().filename().string().size() == 32) {
      std::ifstream in(entry.path(), std::ios::binary);
      const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      if (text.find(dir_->path().filename().string()) != std::string::npos) stored.push_back(entry.path());
    }
  }
  ASSERT_EQ(stored.size(), 1u) << "one stored copy, no partial file left";
  EXPECT_EQ(stored[0].filename(), "same.cpp");
  std::ifstream in(stored[0], std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), source);
  fs::remove_all(stored[0].parent_path());
}

// `--cache-dir rel` was passed on as a relative path, which the compiler, running in a directory
// of its own, could not find.
TEST_F(SpecRunnerTest, CacheDirectoryIsAbsolute) {
  RunOptions o;
  o.cacheDir = "relative/cache";
  EXPECT_EQ(cacheDirectory(o), fs::current_path() / "relative" / "cache");
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

// A request cancelled while the precompiled header is built (the first compile of a fresh cache,
// or of a new toolchain: seconds) stops that build too; nothing half-built is kept.
TEST_F(SpecRunnerTest, StopRequestCancelsThePrecompiledHeaderBuild) {
  TempDir cache(fs::temp_directory_path(), "nndna-test-cache-");
  std::stop_source stop;
  stop.request_stop();
  RunOptions o = options();
  o.cacheDir = cache.path();
  o.stop = stop.get_token();
  RunReport report;
  try {
    runSpecFile(writeSpec(""), o, &report);
    ADD_FAILURE() << "a cancelled compile must throw";
  } catch (const SpecRunError& e) {
    EXPECT_EQ(e.kind(), Kind::cancelled) << e.what();
    EXPECT_EQ(std::string(e.what()), (dir_->path() / "model.cpp").string() + ": the compile was cancelled");
  }
  EXPECT_TRUE(report.pchBuilt) << "the build was started";
  EXPECT_FALSE(fs::exists(cache.path() / "pch")) << "and none was kept";
  EXPECT_FALSE(fs::exists(cache.path() / "bin"));
}

TEST_F(SpecRunnerTest, IsolationStatusAgreesWithARun) {
  const IsolationStatus& status = isolationStatus();
  EXPECT_EQ(status.full, status.missing.empty());
  EXPECT_FALSE(status.describe().empty());
  RunReport report;
  runSpecFile(writeSpec(""), options(), &report);
  ASSERT_TRUE(report.isolation);
  EXPECT_EQ(status.full, report.isolation->missing().empty()) << status.describe();
}

}  // namespace
}  // namespace nndna::specrun
