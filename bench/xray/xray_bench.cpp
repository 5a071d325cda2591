// xray's costs, printed as figures: a span with tracing off, with a Session on (no arguments and
// two arguments), streaming to a file, and Value forward + backward on a million-node graph.
// Aims: disabled span <= 2 ns, enabled span without arguments <= 100 ns.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <nndna/xray.hpp>
#include <string>

namespace xr = nndna::xray;

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

}  // namespace

BENCHMARK_MAIN();
