// Builds the full training graph (forward + backward + optimizer, after DCE) of the examples
// gpt2_small and decoder_96, prints op and kernel counts and times, and compares them with the
// seed's tensorgrad (GPT-2 small: 3,581 ops, ~2,990 kernels, ~180 ms; 96-layer decoder: 23,413
// ops, ~1.3 s). Then runs the same stages as Google Benchmark cases.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
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

// Median of `runs` timings of `fn`.
template <class Fn>
double medianMs(int runs, Fn fn) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    fn();
    times.push_back(msSince(start));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void printSummary() {
  std::printf("%-12s %8s %8s %8s %10s %10s %10s %8s %8s\n", "model", "fwd ops", "ops", "kernels",
              "trace ms", "step ms", "total ms", "ref ms", "speedup");
  for (const Reference& ref : kReferences) {
    const nndna::LoadedSpec& spec = loaded(ref.spec);
    const nndna::ir::Graph forward = nndna::trace(spec);
    const nndna::ir::Graph step = nndna::training::buildTrainingStep(forward, spec.spec.optimizer);
    const std::size_t kernels = nndna::training::kernelOps(step).size();
    const int runs = ref.ops > 10000 ? 5 : 11;
    const double traceMs = medianMs(runs, [&] { benchmark::DoNotOptimize(nndna::trace(spec)); });
    const double stepMs = medianMs(runs, [&] {
      benchmark::DoNotOptimize(nndna::training::buildTrainingStep(forward, spec.spec.optimizer));
    });
    const double totalMs = medianMs(runs, [&] {
      nndna::ir::Graph g = nndna::training::buildTrainingStep(nndna::trace(spec), spec.spec.optimizer);
      benchmark::DoNotOptimize(nndna::training::kernelOps(g));
    });
    std::printf("%-12s %8zu %8zu %8zu %10.2f %10.2f %10.2f %8.0f %7.1fx\n", ref.spec,
                forward.ops.size(), step.ops.size(), kernels, traceMs, stepMs, totalMs, ref.ms,
                ref.ms / totalMs);
  }
  std::printf("(ops/kernels: the training step after DCE; step ms: backward + optimizer + DCE from\n"
              " a traced forward; total ms: trace + step + kernel list; speedup: ref ms / total ms)\n\n");
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
