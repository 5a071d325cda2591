// Writing and reading the IR's JSON form and its CBOR form (what a spec program hands nndna):
// bytes per op, CPU time and the reader's peak memory as a multiple of the document, for real
// models (GPT-2 small, the 96-layer decoder, its training step) and a synthetic chain of
// 1,000,000 ops (the scale issue #13 aims at).
//
// The reader's memory is measured in a forked child (tests/support/forked_peak_memory.hpp), so
// each figure is the reader's alone.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "nndna/training.hpp"
#include "support/forked_peak_memory.hpp"

namespace {

using namespace nndna;

double cpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Peak memory the reader adds while reading `text`, in bytes (-1 when not measured).
long readerPeakBytes(const std::string& document, bool cbor) {
  return testing::forkedPeakBytes([&] {
    try {
      (void)(cbor ? ir::tracedModelFromCbor(document) : ir::tracedModelFromJson(document));
    } catch (const std::exception&) {
    }
  });
}

// A chain of `n` elementwise ops on one [256, 1024] input, alternating neg and add-a-number,
// all from one call site, and their mean (the loss).
ir::TracedModel chain(std::size_t n) {
  ir::TracedModel model;
  model.spec.label = "chain";
  ir::Graph& g = model.train;
  g.sites.files.push_back({"/bench/chain.cpp", ""});
  g.sites.frames.push_back({0, 12, 5, 4096, "lossFn"});
  g.sites.chains.push_back({0});
  g.tensors.reserve(n + 1);
  g.ops.reserve(n + 1);
  g.tensors.push_back({{256, 1024}, DType::f32, 0});
  ir::Op leaf;
  leaf.kind = ir::OpKind::tensor_input;
  leaf.out = 0;
  leaf.attrs.edit().name = "x";
  g.ops.push_back(leaf);
  g.inputs.push_back({"x", 0});
  for (std::size_t i = 1; i <= n; ++i) {
    ir::Op op;
    op.kind = i % 2 ? ir::OpKind::neg : ir::OpKind::add;
    op.inputs = {static_cast<ir::TensorId>(i - 1)};
    op.out = static_cast<ir::TensorId>(i);
    op.site = 0;
    if (op.kind == ir::OpKind::add) {
      op.attrs.edit().scalar = 0.5;
      op.attrs.edit().scalarOperand = true;
    }
    g.tensors.push_back({{256, 1024}, DType::f32, static_cast<ir::OpId>(i)});
    g.ops.push_back(std::move(op));
  }
  ir::Op mean;
  mean.kind = ir::OpKind::mean;
  mean.inputs = {static_cast<ir::TensorId>(n)};
  mean.out = static_cast<ir::TensorId>(n + 1);
  mean.site = 0;
  mean.attrs.edit().allAxes = true;
  g.tensors.push_back({{}, DType::f32, static_cast<ir::OpId>(n + 1)});
  g.ops.push_back(std::move(mean));
  g.outputs.push_back(static_cast<ir::TensorId>(n + 1));
  return model;
}

// The least CPU time of `fn` over repeats that add up to about 100 ms (one run for the large
// documents): the small documents' single runs are too short to trust.
template <class Fn>
double bestCpuMs(Fn&& fn) {
  double best = 0, total = 0;
  for (int i = 0; i < 50 && (i == 0 || total < 100); ++i) {
    const double start = cpuMs();
    fn();
    const double ms = cpuMs() - start;
    best = i == 0 ? ms : std::min(best, ms);
    total += ms;
  }
  return best;
}

std::string cborOf(const ir::TracedModel& model) {
  std::string bytes;
  ir::writeCbor(model, [&](std::string_view piece) { bytes += piece; });
  return bytes;
}

// One row per form: JSON's text (files, `nndna ir`) and CBOR (what a spec program hands nndna),
// the CBOR row with its times as a fraction of JSON's.
void report(const char* name, const ir::TracedModel& model) {
  const std::size_t ops = model.train.ops.size() + (model.hasInfer ? model.infer.ops.size() : 0);
  std::string text, bytes;
  const double jsonWrite = bestCpuMs([&] { text = ir::toJson(model); });
  const double cborWrite = bestCpuMs([&] { bytes = cborOf(model); });
  const double jsonRead = bestCpuMs([&] { (void)ir::tracedModelFromJson(text); });
  const double cborRead = bestCpuMs([&] { (void)ir::tracedModelFromCbor(bytes); });
  const long jsonPeak = readerPeakBytes(text, false);
  const long cborPeak = readerPeakBytes(bytes, true);
  auto row = [&](const char* form, std::size_t size, double writeMs, double readMs, long peak, std::string ratios) {
    std::printf("%-18s %-5s %9zu %11zu %8.1f %9.2f %8.2f %10.0f %9.1f  %s\n", name, form, ops, size,
                static_cast<double>(size) / static_cast<double>(ops), writeMs, readMs,
                1e6 * readMs / static_cast<double>(ops), static_cast<double>(peak) / static_cast<double>(size),
                ratios.c_str());
  };
  row("json", text.size(), jsonWrite, jsonRead, jsonPeak, "");
  char ratios[96];
  std::snprintf(ratios, sizeof ratios, "bytes %.2f, write %.2f, read %.2f",
                static_cast<double>(bytes.size()) / static_cast<double>(text.size()), cborWrite / jsonWrite,
                cborRead / jsonRead);
  row("cbor", bytes.size(), cborWrite, cborRead, cborPeak, ratios);
}

ir::TracedModel traced(const char* name) { return traceModel(loadSpec(*findSpec(name))); }

}  // namespace

int main() {
  std::printf("%-18s %-5s %9s %11s %8s %9s %8s %10s %9s  %s\n", "document", "form", "ops", "bytes", "bytes/op",
              "write ms", "read ms", "read ns/op", "peak/size", "cbor / json");
  report("gpt2_small", traced("gpt2_small"));
  report("decoder_96", traced("decoder_96"));
  ir::TracedModel step = traced("decoder_96");
  step.train = training::buildTrainingStep(step.train, step.spec.optimizer);
  step.hasInfer = false;
  step.infer = {};
  report("decoder_96 step", step);
  report("chain 100,000", chain(100'000));
  report("chain 1,000,000", chain(1'000'000));
}
