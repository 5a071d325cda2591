// Every example spec file through the whole pipeline a user runs with `nndna diagram model.cpp`:
// compile (warm precompiled header, no cache), the sandboxed run with its IR read back, the
// diagram, and Graphviz layout + SVG. One line per example, each stage as a counter (seconds),
// edit_s the whole, and for the default spec and the transformer example (the issue's "3-layer
// transformer"; it has 4) x_aim, edit_s against issue 13's aim for it (<= 1: met). The compile
// is also given as CPU time: on a shared machine it is the steadier figure.
// BM_LargeSpec/*: the large specs of bench/pipeline/large from a cached binary, part by part.
// BM_Command/*: the `nndna diagram` command as a process against the same work in process, and
// for GPT-2 small's `.dot` x_aim, the command against issue 13's 15 ms (<= 1: met; the decoder's
// aim is x_in_process <= 2).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "support/command_output.hpp"
#include "nndna/diagram.hpp"
#include "specrun/spec_runner.hpp"
#include "specrun/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace nndna;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The diagram of a model and its layout + SVG, each timed (seconds).
struct Drawn {
  double build = 0, layout = 0;
  std::size_t boxes = 0;
};
Drawn drawTimed(const ir::TracedModel& model) {
  Drawn drawn;
  const auto t0 = Clock::now();
  const diagram::Diagram d = diagram::buildDiagram(model);
  drawn.build = secondsSince(t0);
  const auto t1 = Clock::now();
  std::string svg = diagram::renderSvg(d);
  drawn.layout = secondsSince(t1);
  benchmark::DoNotOptimize(svg);
  drawn.boxes = d.layerCount();
  return drawn;
}

// One cache for the whole program, so the precompiled header is built once, before any timing.
const specrun::RunOptions& options(const fs::path& anySpec) {
  static specrun::TempDir cache(fs::temp_directory_path(), "nndna-bench-pipeline-");
  static const specrun::RunOptions opts = [&] {
    specrun::RunOptions o;
    o.cacheDir = cache.path();
    specrun::RunReport report;
    const ir::TracedModel model = specrun::runSpecFile(anySpec, o, &report);
    fmt::print(stderr, "precompiled header built in {:.2f} s\n", report.pchSeconds);
    // A process's first layout loads pango and the fonts (about 55 ms), which `nndna serve` does
    // at start-up (its warm-up drawing): not part of an edit.
    (void)drawTimed(model);
    return o;
  }();
  return opts;
}

// Issue 13 point 4's aims for a one-line edit drawn end to end (compile, run, diagram, layout):
// the default spec and the transformer example (the "3-layer transformer": it has 4);
// 0 for the other examples.
double editAimSeconds(const fs::path& spec) {
  if (spec.stem() == "diffusion_denoiser") return 0.25;
  if (spec.stem() == "char_transformer") return 0.4;
  return 0;
}

void BM_Pipeline(benchmark::State& state, const fs::path& spec) {
  specrun::RunOptions fresh = options(spec);
  fresh.useCache = false;
  const specrun::RunOptions& cached = options(spec);
  // The spec's own precompiled header (it differs when the spec includes standard headers) is
  // built before the timing, as in an edit after the first compile.
  specrun::compileSpecFile(spec, cached, nullptr);
  double compileWall = 0, compileCpu = 0, run = 0, read = 0, build = 0, layout = 0, edit = 0;
  std::size_t boxes = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    specrun::RunReport compiled;
    specrun::compileSpecFile(spec, fresh, &compiled);
    specrun::RunReport ran;
    const ir::TracedModel model = specrun::runSpecFile(spec, cached, &ran);
    if (!ran.cacheHit) state.SkipWithError("the run compiled again");
    const Drawn drawn = drawTimed(model);
    edit += secondsSince(t0);
    build += drawn.build;
    layout += drawn.layout;
    compileWall += compiled.compileSeconds;
    compileCpu += compiled.compileCpuSeconds;
    run += ran.runSeconds;
    read += ran.readSeconds;
    boxes = drawn.boxes;
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["compile_s"] = compileWall / n;
  state.counters["compile_cpu_s"] = compileCpu / n;
  state.counters["run_s"] = run / n;
  state.counters["read_ir_s"] = read / n;
  state.counters["diagram_s"] = build / n;
  state.counters["layout_svg_s"] = layout / n;
  state.counters["boxes"] = static_cast<double>(boxes);
  state.counters["edit_s"] = edit / n;
  if (const double aim = editAimSeconds(spec); aim > 0) {
    state.counters["aim_s"] = aim;
    state.counters["x_aim"] = edit / n / aim;  // <= 1: the aim is met
  }
}

// The large specs of bench/pipeline/large (issue 13 point 1: a 200k- and a 1M-op loop, a spec
// with 1M parameter tensors) from a cached binary: the sandboxed run (tracing, writing the IR),
// reading and validating it, the diagram, layout + SVG, and the total against the aim of
// 10 s for 1M ops. Minutes each today; the limits are raised to let them finish.
void BM_LargeSpec(benchmark::State& state, const fs::path& spec) {
  specrun::RunOptions opts = options(spec);
  opts.runLimits.wallTime = std::chrono::minutes(30);
  opts.runLimits.cpuSeconds = 1800;
  opts.runLimits.addressSpaceBytes = opts.runLimits.memoryBytes = std::uint64_t{16} << 30;
  opts.runLimits.outputBytes = std::uint64_t{64} << 20;
  specrun::compileSpecFile(spec, opts, nullptr);
  double run = 0, runCpu = 0, read = 0, build = 0, layout = 0, total = 0;
  std::size_t boxes = 0, ops = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    specrun::RunReport ran;
    ir::TracedModel model;
    try {
      model = specrun::runSpecFile(spec, opts, &ran);
    } catch (const std::exception& e) {  // e.g. an IR past the reader's 256 MiB: say so, go on
      state.SkipWithError(e.what());
      return;
    }
    const Drawn drawn = drawTimed(model);
    total += secondsSince(t0);
    build += drawn.build;
    layout += drawn.layout;
    run += ran.runSeconds;
    runCpu += ran.runCpuSeconds;
    read += ran.readSeconds;
    boxes = drawn.boxes;
    ops = model.infer.ops.size();
  }
  // The same as the command a user runs (its own process, the DOT written), once.
  const fs::path dot = fs::temp_directory_path() / fmt::format("nndna-bench-{}.dot", ::getpid());
  const std::vector<std::string> command{NNDNA_CLI,        "diagram",      spec.string(), "-o",
                                         dot.string(),     "--cache-dir",  opts.cacheDir->string(),
                                         "--time-limit",   "1800",         "--memory-limit",
                                         "16384"};
  const auto c0 = Clock::now();
  const bool commandOk = bench::runQuietly(command);
  const double commandSeconds = secondsSince(c0);
  fs::remove(dot);
  const auto n = static_cast<double>(state.iterations());
  if (commandOk) {
    state.counters["command_s"] = commandSeconds;
    state.counters["command_x_of_aim_10s"] = commandSeconds / 10.0;
  }
  state.counters["forward_ops"] = static_cast<double>(ops);
  state.counters["run_s"] = run / n;
  state.counters["run_cpu_s"] = runCpu / n;
  state.counters["read_ir_s"] = read / n;
  state.counters["diagram_s"] = build / n;
  state.counters["layout_svg_s"] = layout / n;
  state.counters["total_s"] = total / n;
  state.counters["x_of_aim_10s"] = total / n / 10.0;
  state.counters["boxes"] = static_cast<double>(boxes);
}

// The command a user runs, `nndna diagram SPEC -o x.dot` with the binary already cached, as a
// process (start-up and library loading, cache key, sandbox, the spec's run, reading the IR, the
// diagram, the DOT), against the same work in process: issue 13 point 2 (GPT-2 small in <= 15 ms,
// the 96-layer decoder in <= 2x its in-process time). cpu_s is the command's CPU time (user +
// system, its children included); start_s is `nndna --version` (the start-up alone). With
// `extension` ".html" the command also lays the diagram out and writes the page, and so does the
// in-process side (warm: its first layout, which loads pango and the fonts, is in options()).
// Issue 13's aim for the command as a process, where it names one (seconds; 0: none).
double commandAimSeconds(const fs::path& spec, const std::string& extension) {
  return spec.stem() == "gpt2_small" && extension == ".dot" ? 0.015 : 0;
}

void BM_Command(benchmark::State& state, const fs::path& spec, const std::string& extension) {
  const specrun::RunOptions& cached = options(spec);
  specrun::compileSpecFile(spec, cached, nullptr);
  const fs::path out = fs::temp_directory_path() / fmt::format("nndna-bench-{}{}", ::getpid(), extension);
  const std::vector<std::string> command{NNDNA_CLI,     "diagram", spec.string(), "-o", out.string(), "--cache-dir",
                                         cached.cacheDir->string()};
  // The part of every command that is not its work: the program's start (loading its libraries)
  // and its exit, as `nndna --version` pays them.
  const std::vector<std::string> startOnly{NNDNA_CLI, "--version"};
  double process = 0, cpu = 0, inProcess = 0, start = 0;
  for (auto _ : state) {
    rusage before{}, after{};
    getrusage(RUSAGE_CHILDREN, &before);
    const auto t0 = Clock::now();
    if (!bench::runQuietly(command)) {
      state.SkipWithError("the command failed");
      return;
    }
    process += secondsSince(t0);
    getrusage(RUSAGE_CHILDREN, &after);
    auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    cpu += seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_stime);
    const auto t2 = Clock::now();
    if (!bench::runQuietly(startOnly)) {
      state.SkipWithError("nndna --version failed");
      return;
    }
    start += secondsSince(t2);
    const auto t1 = Clock::now();
    const ir::TracedModel model = specrun::runSpecFile(spec, cached, nullptr);
    const diagram::Diagram d = diagram::buildDiagram(model);
    if (extension == ".html") {
      std::string page = diagram::renderHtml(d);
      benchmark::DoNotOptimize(page);
    }
    benchmark::DoNotOptimize(d.dot);
    inProcess += secondsSince(t1);
  }
  fs::remove(out);
  const auto n = static_cast<double>(state.iterations());
  state.counters["process_s"] = process / n;
  state.counters["cpu_s"] = cpu / n;
  state.counters["in_process_s"] = inProcess / n;
  state.counters["start_s"] = start / n;
  state.counters["x_in_process"] = process / inProcess;
  if (const double aim = commandAimSeconds(spec, extension); aim > 0) {
    state.counters["aim_s"] = aim;
    state.counters["x_aim"] = process / n / aim;  // <= 1: the aim is met
  }
}

void registerExamples() {
  std::vector<fs::path> specs;
  for (const auto& entry : fs::directory_iterator(fs::path(NNDNA_SOURCE_DIR) / "examples")) {
    if (entry.is_regular_file() && entry.path().extension() == ".cpp") specs.push_back(entry.path());
  }
  std::sort(specs.begin(), specs.end());
  for (const fs::path& spec : specs) {
    // The two specs with an aim are timed over three edits (their figure is the mean).
    benchmark::RegisterBenchmark(("BM_Pipeline/" + spec.stem().string()).c_str(), BM_Pipeline, spec)
        ->Iterations(editAimSeconds(spec) > 0 ? 3 : 1)
        ->Unit(benchmark::kSecond)
        ->UseRealTime();
  }
  for (const char* name : {"gpt2_small", "decoder_96"}) {
    const fs::path spec = fs::path(NNDNA_SOURCE_DIR) / "examples" / (std::string(name) + ".cpp");
    for (const std::string extension : {".dot", ".html"}) {
      benchmark::RegisterBenchmark(("BM_Command/" + std::string(name) + "/" + extension.substr(1)).c_str(),
                                   BM_Command, spec, extension)
          ->Iterations(10)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  for (const char* name : {"loop_200k_ops", "loop_1m_ops", "params_1m"}) {
    const fs::path spec = fs::path(NNDNA_SOURCE_DIR) / "bench/pipeline/large" / (std::string(name) + ".cpp");
    benchmark::RegisterBenchmark((std::string("BM_LargeSpec/") + name).c_str(), BM_LargeSpec, spec)
        ->Iterations(1)
        ->Unit(benchmark::kSecond)
        ->UseRealTime();
  }
}

}  // namespace

int main(int argc, char** argv) {
  registerExamples();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
