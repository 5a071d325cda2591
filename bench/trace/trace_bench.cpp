// Tracing speed: GPT-2 small and the 96-layer decoder (examples/), a synthetic deep model at
// growing sizes (cost per op must stay flat: linear growth), and call-site capture per op.
//
// Reference (the seed's TypeScript pipeline on this machine kind): the 96-layer decoder's
// inference graph in ~0.28 s; ~29 s at 169,000 ops, growing superlinearly. The counter
// `x_vs_seed` is the seed's time divided by ours (aim: >= 15).
#include <benchmark/benchmark.h>

#include <chrono>
#include <map>
#include <memory>

#include "nndna/trace.hpp"

namespace {

using namespace nndna;

const LoadedSpec& spec(std::string_view name) {
  static std::map<std::string, LoadedSpec, std::less<>> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    const RegisteredSpec* registered = findSpec(name);
    if (registered == nullptr) throw std::runtime_error("spec not linked: " + std::string(name));
    it = cache.emplace(std::string(name), loadSpec(*registered)).first;
  }
  return it->second;
}

// Times `traceOnce` per iteration (manual timing, so the counters are plain numbers) and reports
// ms per trace, ns per op and, when the seed's time is known, the speed-up over the seed.
template <class TraceOnce>
void measure(benchmark::State& state, TraceOnce traceOnce, double seedSeconds = 0) {
  std::size_t ops = 0;
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    ir::Graph g = traceOnce();
    const auto stop = std::chrono::steady_clock::now();
    ops = g.ops.size();
    benchmark::DoNotOptimize(g);
    const double s = std::chrono::duration<double>(stop - start).count();
    seconds += s;
    state.SetIterationTime(s);
  }
  const double perTrace = seconds / static_cast<double>(state.iterations());
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["ms"] = perTrace * 1e3;
  state.counters["ns_per_op"] = perTrace * 1e9 / static_cast<double>(ops);
  if (seedSeconds > 0) state.counters["x_vs_seed"] = seedSeconds / perTrace;
}

void BM_TraceGpt2Small_Training(benchmark::State& state) {
  const LoadedSpec& s = spec("gpt2_small");
  measure(state, [&] { return trace(s); });
}
BENCHMARK(BM_TraceGpt2Small_Training)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_TraceGpt2Small_Inference(benchmark::State& state) {
  const LoadedSpec& s = spec("gpt2_small");
  measure(state, [&] { return traceForward(s); });
}
BENCHMARK(BM_TraceGpt2Small_Inference)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_TraceDecoder96_Inference(benchmark::State& state) {
  const LoadedSpec& s = spec("decoder_96");
  measure(state, [&] { return traceForward(s); }, 0.28);
}
BENCHMARK(BM_TraceDecoder96_Inference)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_TraceDecoder96_Training(benchmark::State& state) {
  const LoadedSpec& s = spec("decoder_96");
  measure(state, [&] { return trace(s); });
}
BENCHMARK(BM_TraceDecoder96_Training)->UseManualTime()->Unit(benchmark::kMillisecond);

// A deep residual MLP stack: 8 forward ops per block (layer_norm, matmul, add, gelu, matmul,
// add, add residual, plus the loop's mul), so `blocks` sets the op count.
struct Deep : Module {
  explicit Deep(std::int64_t blocks) {
    for (std::int64_t i = 0; i < blocks; ++i) {
      norms.push_back(child<LayerNorm>("norm" + std::to_string(i), 64));
      ups.push_back(child<Linear>("up" + std::to_string(i), 64, 128));
      downs.push_back(child<Linear>("down" + std::to_string(i), 128, 64));
    }
  }
  std::vector<LayerNorm> norms;
  std::vector<Linear> ups;
  std::vector<Linear> downs;
};

Tensor deepForward(const Deep& m, Tensor x) {
  for (std::size_t i = 0; i < m.ups.size(); ++i) {
    Tensor h = m.downs[i](gelu(m.ups[i](m.norms[i](x))));
    x = add(x, mul(h, 0.5));
  }
  return x;
}

void BM_TraceSyntheticDeep(benchmark::State& state) {
  const std::int64_t blocks = state.range(0);
  const RegisteredSpec registered{"deep.cpp", "deep", [blocks](std::unique_ptr<Module>& model) {
                                    model = std::make_unique<Deep>(blocks);
                                    detail::ErasedSpec s;
                                    s.predict = [](Module& m, const Inputs& in) {
                                      return deepForward(static_cast<Deep&>(m), in["x"]);
                                    };
                                    s.predictInputs = {{"x", {32, 64}}};
                                    return s;
                                  }};
  const LoadedSpec s = loadSpec(registered);
  // The seed: ~29 s at ~169,000 ops.
  measure(state, [&] { return traceForward(s); }, blocks >= 14'000 ? 29.0 : 0.0);
}
// ~12k, ~49k, ~197k ops (8 computing ops + 6 parameters per block). Read ns_per_op between the
// two larger sizes: below glibc's mmap threshold the small graph reuses warm heap pages from the
// previous iteration, while the larger ones page in fresh memory each time (as any single trace
// does), so the step from the first size to the second is memory, not the algorithm.
BENCHMARK(BM_TraceSyntheticDeep)->Arg(850)->Arg(3500)->Arg(14100)->UseManualTime()->Unit(benchmark::kMillisecond);

// Capture cost alone: 10,000 ops from one call site (cached) per iteration.
void BM_CaptureSitePerOp(benchmark::State& state) {
  measure(state, [] {
    return traceFunction({{"x", {4}}}, [](const Inputs& in) {
      Tensor x = in["x"];
      for (int i = 0; i < 10'000; ++i) x = relu(x);
      return x;
    });
  });
}
BENCHMARK(BM_CaptureSitePerOp)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
