// xray's costs, printed as figures: a span with tracing off, with a Session on (no arguments and
// two arguments), streaming to a file, Value forward + backward on a million-node graph; the
// scale of a 1M-span trace (Session::finish time and bytes per span, the viewer page: its size and
// how long Chromium takes to open it); and what including xray.hpp costs a file. Aims: disabled
// span <= 2 ns, enabled span without arguments <= 100 ns, finish <= 1 s and <= 200 bytes per span
// at 1M spans, the viewer open in a few seconds, the header < 0.3 s above an empty file.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nndna/xray.hpp>
#include <nndna/xray_traced.hpp>
#include <nndna/xray_trace.hpp>
#include <nndna/xray_value.hpp>
#include <string>

#include "support/command_output.hpp"

namespace xr = nndna::xray;
using nndna::bench::commandOutput;
using nndna::bench::jsonField;

namespace {

void BM_SpanDisabled(benchmark::State& state) {
  int x = 7;
  for (auto _ : state) {
    XRAY_SPAN("disabled", {{"x", x}, {"y", x}});
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_SpanDisabled);

// A session keeps every span until it finishes, so it is restarted (outside the timing) every
// 1M iterations, and the iteration count is fixed: finishing a session is not part of a span.
// The figures include the first touch of the memory holding the spans (most of a span's cost
// where page faults are slow, e.g. in a VM); docs/xray.md has measured figures.
constexpr std::int64_t kSessionIterations = 3'000'000;
template <class Body>
void runInSessions(benchmark::State& state, Body body) {
  auto session = std::make_unique<xr::Session>();
  std::int64_t inSession = 0;
  for (auto _ : state) {
    body();
    if (++inSession == 1'000'000) {
      state.PauseTiming();
      session->finish();
      session = std::make_unique<xr::Session>();
      inSession = 0;
      state.ResumeTiming();
    }
  }
  session.reset();  // after the timed loop: not measured
}

void BM_SpanEnabledNoArgs(benchmark::State& state) {
  runInSessions(state, [] { XRAY_SPAN("enabled"); });
}
BENCHMARK(BM_SpanEnabledNoArgs)->Iterations(kSessionIterations);

void BM_SpanEnabledTwoArgs(benchmark::State& state) {
  int userId = 42;
  std::string query = "weather in Paris";
  runInSessions(state, [&] { XRAY_SPAN("enabled_args", {{"user_id", userId}, {"query", query}}); });
}
BENCHMARK(BM_SpanEnabledTwoArgs)->Iterations(kSessionIterations);

void BM_SpanNested3(benchmark::State& state) {
  runInSessions(state, [] {
    XRAY_SPAN("a");
    XRAY_SPAN("b");
    XRAY_SPAN("c");
  });
}
BENCHMARK(BM_SpanNested3)->Iterations(kSessionIterations);

void BM_TracedCall(benchmark::State& state) {
  auto add = xr::traced("add", [](int a, int b) { return a + b; });
  int v = 0;
  runInSessions(state, [&] { v = add(v, 1); });
  benchmark::DoNotOptimize(v);
}
BENCHMARK(BM_TracedCall)->Iterations(kSessionIterations);

// Streaming writes two lines per span with write(2): the cost of crash safety.
void BM_SpanStreaming(benchmark::State& state) {
  auto path = std::filesystem::temp_directory_path() / ("xray_bench_" + std::to_string(::getpid()) + ".jsonl");
  xr::startStreaming(path.string());
  for (auto _ : state) {
    XRAY_SPAN("streamed");
  }
  xr::stopStreaming();
  std::filesystem::remove(path);
}
BENCHMARK(BM_SpanStreaming);

void BM_ValueForwardBackward1M(benchmark::State& state) {
  for (auto _ : state) {
    xr::Value x(0.3, "x");
    xr::Value y = x;
    // 250,000 steps x 4 nodes: mul and add with scalar constants.
    for (int i = 0; i < 250'000; ++i) y = y * 0.999999 + 0.000001;
    y.backward();
    benchmark::DoNotOptimize(x.grad());
  }
  state.counters["nodes"] = 1'000'001;
}
BENCHMARK(BM_ValueForwardBackward1M)->Unit(benchmark::kMillisecond);

void BM_ValueBackwardOnly1M(benchmark::State& state) {
  xr::Value x(0.3, "x");
  xr::Value y = x;
  for (int i = 0; i < 250'000; ++i) y = y * 0.999999 + 0.000001;
  for (auto _ : state) {
    y.backward();
    benchmark::DoNotOptimize(x.grad());
  }
}
BENCHMARK(BM_ValueBackwardOnly1M)->Unit(benchmark::kMillisecond);

// --- Scale: a million spans ------------------------------------------------------------------

// Resident memory now and at its peak since the last reset (/proc/self/status, bytes).
std::size_t statusBytes(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::stoull(line.substr(std::string(field).size())) * 1024;
  return 0;
}
void resetPeak() { std::ofstream("/proc/self/clear_refs") << "5"; }

// Records 1M spans (100,000 x (outer + 9 inner), short names, no inputs), then finishes the
// session: seconds, and bytes per span at the peak of finish() and held by the trace after it,
// both above what the process held before recording.
void BM_Finish1MSpans(benchmark::State& state) {
  constexpr std::size_t kSpans = 1'000'000;
  for (auto _ : state) {
    state.PauseTiming();
    std::size_t before = statusBytes("VmRSS:");
    auto session = std::make_unique<xr::Session>();
    for (int i = 0; i < 100'000; ++i) {
      XRAY_SPAN("outer");
      for (int k = 0; k < 9; ++k) {
        XRAY_SPAN("inner");
      }
    }
    resetPeak();
    state.ResumeTiming();
    xr::Trace trace = session->finish();
    state.PauseTiming();
    std::size_t peak = statusBytes("VmHWM:");
    std::size_t held = statusBytes("VmRSS:");
    if (trace.nodes.size() != kSpans) state.SkipWithError("lost spans");
    state.counters["peak_bytes_per_span"] = static_cast<double>(peak - before) / kSpans;
    state.counters["held_bytes_per_span"] = static_cast<double>(held - before) / kSpans;
    session.reset();
    { xr::Trace gone = std::move(trace); }
    state.ResumeTiming();
  }
}
BENCHMARK(BM_Finish1MSpans)->Unit(benchmark::kMillisecond)->Iterations(2);

// The viewer page of 1M spans: seconds to make it, its size, and (when node and the web app's
// playwright-core were found at configure time) how long Chromium takes to open it, with the
// page's own marks: HTML read up to the viewer's script, data parsed and decoded, views ready.
void BM_Html1MSpans(benchmark::State& state) {
  xr::Trace trace;
  {
    xr::Session session;
    for (int i = 0; i < 100'000; ++i) {
      XRAY_SPAN("outer", {{"i", i}});
      for (int k = 0; k < 9; ++k) {
        XRAY_SPAN("inner");
      }
    }
    trace = session.finish();
  }
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string html = xr::toHtml(trace);
    bytes = html.size();
    benchmark::DoNotOptimize(html.data());
  }
  state.counters["page_MB"] = static_cast<double>(bytes) / 1e6;
  if (const char* keep = std::getenv("XRAY_BENCH_PAGE")) std::ofstream(keep) << xr::toHtml(trace);
#ifdef XRAY_BENCH_NODE
  auto page = std::filesystem::temp_directory_path() / ("xray_1m_" + std::to_string(::getpid()) + ".html");
  std::ofstream(page) << xr::toHtml(trace);
  std::string line = commandOutput(std::string("NNDNA_NODE_MODULES='") + XRAY_BENCH_NODE_MODULES + "' '" +
                                   XRAY_BENCH_NODE + "' '" + XRAY_BENCH_SOURCE + "/bench/xray/open_viewer.mjs' '" +
                                   page.string() + "'");
  std::filesystem::remove(page);
  if (line.empty()) {
    state.SkipWithError("open_viewer.mjs failed (see its stderr)");
    return;
  }
  state.counters["open_s"] = jsonField(line, "ready_ms") / 1e3;
  state.counters["html_read_s"] = jsonField(line, "script_ms") / 1e3;
  state.counters["data_decoded_s"] = jsonField(line, "data_ms") / 1e3;
  state.counters["views_ready_s"] = jsonField(line, "views_ms") / 1e3;
#endif
}
BENCHMARK(BM_Html1MSpans)->Unit(benchmark::kMillisecond)->Iterations(1);

// --- What including xray.hpp costs a file -----------------------------------------------------

// CPU seconds (user + system) of the compiler on a file of `text`.
double compileSeconds(const std::string& text) {
  auto dir = std::filesystem::temp_directory_path();
  auto source = dir / ("xray_include_" + std::to_string(::getpid()) + ".cpp");
  std::ofstream(source) << text;
  std::string cmd = std::string(XRAY_BENCH_CXX) + " -std=c++20 -O0 -c -I" XRAY_BENCH_INCLUDE " -o /dev/null " + source.string();
  struct rusage before {}, after {};
  getrusage(RUSAGE_CHILDREN, &before);
  int status = std::system(cmd.c_str());
  getrusage(RUSAGE_CHILDREN, &after);
  std::filesystem::remove(source);
  if (status != 0) return -1;
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_stime);
}

void BM_IncludeCost(benchmark::State& state) {
  const std::string empty = "int main() { return 0; }\n";
  const std::string withString = "#include <string>\nint main() { std::string s; return 0; }\n";
  const std::string withXray =
      "#include <nndna/xray.hpp>\nint f(int x) { XRAY_SPAN(\"f\", {{\"x\", x}}); return x * 2; }\n"
      "int main() { return f(1) - 2; }\n";
  double e = 0, s = 0, x = 0;
  int runs = 0;
  for (auto _ : state) {
    e += compileSeconds(empty);
    s += compileSeconds(withString);
    x += compileSeconds(withXray);
    ++runs;
  }
  state.counters["empty_s"] = e / runs;
  state.counters["string_above_empty_s"] = (s - e) / runs;
  state.counters["xray_above_empty_s"] = (x - e) / runs;
}
BENCHMARK(BM_IncludeCost)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
