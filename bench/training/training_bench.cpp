// Builds the full training graph (forward + backward + optimizer, after DCE) of the examples
// gpt2_small and decoder_96, prints op and kernel counts and times, and compares them with the
// seed's tensorgrad (GPT-2 small: 3,581 ops, ~2,990 kernels, ~180 ms; 96-layer decoder: 23,413
// ops, ~1.3 s). Then runs the same stages as Google Benchmark cases.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

#include "nndna/trace.hpp"
#include "nndna/training.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Reference {
  const char* spec;
  double ops;
  double ms;
};
constexpr Reference kReferences[] = {{"gpt2_small", 3581, 180.0}, {"decoder_96", 23413, 1300.0}};

const nndna::LoadedSpec& loaded(const char* name) {
  static std::vector<std::pair<std::string, nndna::LoadedSpec>> cache;
  for (auto& [n, spec] : cache) {
    if (n == name) return spec;
  }
  const nndna::RegisteredSpec* spec = nndna::findSpec(name);
  if (spec == nullptr) {
    std::fprintf(stderr, "training_bench: no spec named %s (is examples/%s.cpp built?)\n", name,
                 name);
    std::exit(1);
  }
  cache.emplace_back(name, nndna::loadSpec(*spec));
  return cache.back().second;
}

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// CPU time of this thread: on a shared, loaded machine wall time mostly measures the others.
double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Timing {
  double wallMs;
  double cpuMs;
};

// Medians of `runs` wall and CPU timings of `fn`.
template <class Fn>
Timing medianMs(int runs, Fn fn) {
  std::vector<double> wall;
  std::vector<double> cpu;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    const double cpuStart = threadCpuMs();
    fn();
    cpu.push_back(threadCpuMs() - cpuStart);
    wall.push_back(msSince(start));
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

void printSummary() {
  std::printf("%-12s %8s %8s %8s %14s %14s %14s %8s %8s\n", "model", "fwd ops", "ops", "kernels",
              "trace ms", "step ms", "total ms", "ref ms", "speedup");
  for (const Reference& ref : kReferences) {
    const nndna::LoadedSpec& spec = loaded(ref.spec);
    const nndna::ir::Graph forward = nndna::trace(spec);
    const nndna::ir::Graph step = nndna::training::buildTrainingStep(forward, spec.spec.optimizer);
    const std::size_t kernels = nndna::training::kernelOps(step).size();
    const int runs = ref.ops > 10000 ? 7 : 21;
    const Timing traceMs = medianMs(runs, [&] { benchmark::DoNotOptimize(nndna::trace(spec)); });
    const Timing stepMs = medianMs(runs, [&] {
      benchmark::DoNotOptimize(nndna::training::buildTrainingStep(forward, spec.spec.optimizer));
    });
    const Timing totalMs = medianMs(runs, [&] {
      nndna::ir::Graph g = nndna::training::buildTrainingStep(nndna::trace(spec), spec.spec.optimizer);
      benchmark::DoNotOptimize(nndna::training::kernelOps(g));
    });
    std::printf("%-12s %8zu %8zu %8zu %6.2f (%5.2f) %6.2f (%5.2f) %6.2f (%5.2f) %8.0f %7.1fx\n",
                ref.spec, forward.ops.size(), step.ops.size(), kernels, traceMs.cpuMs,
                traceMs.wallMs, stepMs.cpuMs, stepMs.wallMs, totalMs.cpuMs, totalMs.wallMs, ref.ms,
                ref.ms / totalMs.cpuMs);
  }
  std::printf("(ops/kernels: the training step after DCE. Times: median CPU ms (wall ms in\n"
              " parentheses). step: backward + optimizer + DCE from a traced forward; total: trace +\n"
              " step + kernel list; speedup: tensorgrad's ms / total CPU ms)\n\n");
}

void BM_Trace(benchmark::State& state, const char* name) {
  const nndna::LoadedSpec& spec = loaded(name);
  std::size_t ops = 0;
  for (auto _ : state) {
    nndna::ir::Graph g = nndna::trace(spec);
    ops = g.ops.size();
    benchmark::DoNotOptimize(g);
  }
  state.counters["ops"] = static_cast<double>(ops);
}

void BM_TrainingStep(benchmark::State& state, const char* name) {
  const nndna::LoadedSpec& spec = loaded(name);
  const nndna::ir::Graph forward = nndna::trace(spec);
  std::size_t ops = 0;
  std::size_t kernels = 0;
  for (auto _ : state) {
    nndna::ir::Graph g = nndna::training::buildTrainingStep(forward, spec.spec.optimizer);
    kernels = nndna::training::kernelOps(g).size();
    ops = g.ops.size();
    benchmark::DoNotOptimize(g);
  }
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["kernels"] = static_cast<double>(kernels);
}

void BM_TraceAndTrainingStep(benchmark::State& state, const char* name) {
  const nndna::LoadedSpec& spec = loaded(name);
  for (auto _ : state) {
    nndna::ir::Graph g = nndna::training::buildTrainingStep(nndna::trace(spec), spec.spec.optimizer);
    benchmark::DoNotOptimize(nndna::training::kernelOps(g));
  }
}

BENCHMARK_CAPTURE(BM_Trace, gpt2_small, "gpt2_small")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainingStep, gpt2_small, "gpt2_small")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TraceAndTrainingStep, gpt2_small, "gpt2_small")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Trace, decoder_96, "decoder_96")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainingStep, decoder_96, "decoder_96")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TraceAndTrainingStep, decoder_96, "decoder_96")->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  printSummary();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
