// Writing and reading the IR's JSON form: bytes per op, CPU time per op and the reader's peak
// memory as a multiple of the document, for real models (GPT-2 small, the 96-layer decoder, its
// training step) and a synthetic chain of 1,000,000 ops (the scale issue #13 aims at).
//
// The reader's memory is measured in a forked child (tests/support/forked_peak_memory.hpp), so
// each figure is the reader's alone.
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
long readerPeakBytes(const std::string& text) {
  return testing::forkedPeakBytes([&] {
    try {
      ir::tracedModelFromJson(text);
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

void report(const char* name, const ir::TracedModel& model) {
  const std::size_t ops = model.train.ops.size() + (model.hasInfer ? model.infer.ops.size() : 0);
  double start = cpuMs();
  const std::string text = ir::toJson(model);
  const double writeMs = cpuMs() - start;
  start = cpuMs();
  const ir::TracedModel back = ir::tracedModelFromJson(text);
  const double readMs = cpuMs() - start;
  const long peak = readerPeakBytes(text);
  std::printf("%-22s %10zu %12zu %9.1f %9.1f %9.0f %9.0f %9.1f\n", name, ops, text.size(),
              static_cast<double>(text.size()) / static_cast<double>(ops), writeMs,
              1e6 * writeMs / static_cast<double>(ops), 1e6 * readMs / static_cast<double>(ops),
              static_cast<double>(peak) / static_cast<double>(text.size()));
  std::printf("%-22s %10s %12s %9s %9.1f\n", "", "", "", "", readMs);
  (void)back;
}

ir::TracedModel traced(const char* name) { return traceModel(loadSpec(*findSpec(name))); }

}  // namespace

int main() {
  std::printf("%-22s %10s %12s %9s %9s %9s %9s %9s\n", "document", "ops", "bytes", "bytes/op",
              "write ms", "write ns/op", "read ns/op", "peak/size");
  std::printf("%-22s %10s %12s %9s %9s\n", "", "", "", "", "read ms");
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
