// trace() and traceForward(): run a spec's forward on symbolic tensors.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <new>
#include <stdexcept>

#include "nndna/trace.hpp"
#include "nndna/training.hpp"
#include "trace/dim_log.hpp"
#include "trace/tensor_access.hpp"
#include "trace/tracer.hpp"

namespace nndna {

namespace {

// Errors in the spec body are reported at its NNDNA_SPEC line.
void checkDecls(const LoadedSpec& spec, const std::vector<InputDecl>& decls, const char* field) {
  auto fail = [&](std::string detail) {
    throw TraceError(spec.sourceFile, spec.line, field, std::move(detail));
  };
  for (std::size_t i = 0; i < decls.size(); ++i) {
    const InputDecl& d = decls[i];
    if (d.name.empty()) fail(fmt::format("input #{} has no name", i));
    for (std::size_t j = 0; j < i; ++j) {
      if (decls[j].name == d.name) fail(fmt::format("input '{}' is declared twice", d.name));
    }
    if (!d.names.empty() && d.names.size() != d.shape.size()) {
      fail(fmt::format("input '{}' has {} axis names for shape {}", d.name, d.names.size(),
                       ir::formatShape(d.shape)));
    }
    if (d.shape.size() > ir::kMaxRank) {
      fail(fmt::format("input '{}' has rank {}: at most {} axes", d.name, d.shape.size(), ir::kMaxRank));
    }
    for (std::int64_t size : d.shape) {
      if (size <= 0) {
        fail(fmt::format("input '{}' has shape {}: sizes must be positive", d.name,
                         ir::formatShape(d.shape)));
      }
    }
    if (!ir::checkedNumel(d.shape)) {
      fail(fmt::format("input '{}' has shape {}: its element count overflows 64 bits", d.name,
                       ir::formatShape(d.shape)));
    }
  }
}

void checkOptimizer(const LoadedSpec& spec) {
  const std::string problem = training::optimizerProblem(spec.spec.optimizer);
  if (!problem.empty()) throw TraceError(spec.sourceFile, spec.line, "optimizer", problem);
}

Inputs declareInputs(tracing::Tracer& tracer, const std::vector<InputDecl>& decls) {
  std::vector<std::pair<Text, Tensor>> tensors;
  for (const InputDecl& d : decls) {
    const ir::TensorId id = tracer.addLeaf(ir::OpKind::tensor_input, std::string(d.name), d.shape, d.dtype,
                                           ir::DimNames(d.names.begin(), d.names.end()));
    tracer.graph().inputs.push_back({std::string(d.name), id});
    tensors.emplace_back(d.name, tracer.handleOf(id));
  }
  return Inputs(std::move(tensors));
}

// Where the last op traced so far was called from ("model.cpp:12"), or empty before any.
std::string lastTracedLine(const ir::Graph& graph) {
  for (auto op = graph.ops.rbegin(); op != graph.ops.rend(); ++op) {
    if (op->site == ir::kNone) continue;
    const tracing::SiteLocation at = tracing::innermostLocation(graph, op->site);
    if (at.file.empty()) continue;
    return fmt::format("{}:{}", std::filesystem::path(at.file).filename().string(), at.line);
  }
  return "";
}

// The frame of this function bounds call-site capture: frames above it are the host program's.
[[gnu::noinline]] Tensor runForward(tracing::Tracer& tracer, const ErasedForward& fn, Module& model,
                                     const Inputs& inputs) {
  tracer.setBoundary(reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)));
  Tensor out;
  try {
    out = fn(model, inputs);
  } catch (const Error&) {
    throw;  // nndna's own errors name their line and kind already
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    // The spec's own exception says nothing of where it was thrown: the line of the last op
    // traced before it is the nearest clue the trace has.
    const std::string last = lastTracedLine(tracer.graph());
    if (last.empty()) throw;
    throw std::runtime_error(fmt::format("{} (the last op traced before it is at {})", e.what(), last));
  }
  // Keeps this frame (and so the boundary) alive across the call: no tail call.
  asm volatile("" ::: "memory");
  return out;
}

// `dims` with those that name an input's axes first, in the inputs' order; the rest keep theirs.
std::vector<DimDecl> inputDimsFirst(std::vector<DimDecl> dims, const std::vector<InputDecl>& inputs) {
  std::vector<std::string> order;
  for (const InputDecl& d : inputs) {
    for (const Text& name : d.names) {
      if (std::find(order.begin(), order.end(), name) == order.end()) order.emplace_back(name);
    }
  }
  auto rank = [&](const DimDecl& d) {
    return static_cast<std::size_t>(std::find(order.begin(), order.end(), d.name) - order.begin());
  };
  std::stable_sort(dims.begin(), dims.end(), [&](const DimDecl& a, const DimDecl& b) { return rank(a) < rank(b); });
  return dims;
}

ir::TensorId checkedOutput(tracing::Tracer& tracer, const LoadedSpec& spec, Tensor out,
                           const char* fnName) {
  if (!out.defined()) {
    throw TraceError(spec.sourceFile, spec.line, fnName, "returned an undefined tensor");
  }
  return tracer.tensorOf(out, fnName, ir::kNone);
}

}  // namespace

TraceError::TraceError(std::string file, int line, std::string op, std::string detail)
    : Error(Kind::trace_error, file, line, (op.empty() ? "" : op + ": ") + detail,
            tracing::displayPath(file)),
      op_(std::move(op)),
      detail_(std::move(detail)) {}

ir::Graph trace(const LoadedSpec& spec) {
  if (!spec.spec.loss) {
    // nndna draws the training step (the loss, its gradients, the optimizer) beside inference, so
    // a model without one cannot be traced; say how to draw an inference-only model anyway.
    throw TraceError(spec.sourceFile, spec.line, "trace",
                     "the spec has no loss function (.loss): nndna traces the training step from it; for a model "
                     "only run for inference, a loss over its prediction draws it, such as "
                     "`.loss = [](Net& m, const Inputs& in) { return mean(predictFn(m, in)); }`");
  }
  checkDecls(spec, spec.spec.inputs, "inputs");
  checkOptimizer(spec);
  ir::Graph graph;
  tracing::DimLog met;  // one name, one size, within the trace
  tracing::Tracer tracer(graph, spec.params, spec.paramSerial, /*training=*/true);
  const Inputs inputs = declareInputs(tracer, spec.spec.inputs);
  const Tensor loss = runForward(tracer, spec.spec.loss, *spec.model, inputs);
  const ir::TensorId id = checkedOutput(tracer, spec, loss, "loss");
  const ir::TensorInfo& t = graph.tensor(id);
  if (!t.shape.empty() || t.dtype != DType::f32) {
    const tracing::SiteLocation at = tracing::innermostLocation(graph, graph.op(t.source).site);
    throw TraceError(at.file.empty() ? spec.sourceFile : at.file, at.line, "loss",
                     at.withCallers(fmt::format("the loss must be a rank-0 f32 tensor, got {} {} (reduce it with "
                                                "mean or sum)",
                                                ir::formatShape(t.shape), ir::dtypeName(t.dtype))));
  }
  graph.outputs.push_back(id);
  tracer.attachSourceText();
  return graph;
}

ir::Graph traceForward(const LoadedSpec& spec) {
  if (!spec.spec.predict) {
    throw TraceError(spec.sourceFile, spec.line, "traceForward", "the spec has no predict function");
  }
  checkDecls(spec, spec.spec.predictInputs, "predictInputs");
  ir::Graph graph;
  tracing::DimLog met;
  tracing::Tracer tracer(graph, spec.params, spec.paramSerial, /*training=*/false);
  const Inputs inputs = declareInputs(tracer, spec.spec.predictInputs);
  const Tensor out = runForward(tracer, spec.spec.predict, *spec.model, inputs);
  graph.outputs.push_back(checkedOutput(tracer, spec, out, "predict"));
  tracer.attachSourceText();
  return graph;
}

ir::Graph traceFunction(const std::vector<InputDecl>& inputs,
                        const std::function<Tensor(const Inputs&)>& fn, bool training) {
  LoadedSpec none;
  checkDecls(none, inputs, "inputs");
  ir::Graph graph;
  tracing::DimLog met;
  tracing::Tracer tracer(graph, {}, 0, training);
  const Inputs declared = declareInputs(tracer, inputs);
  Module noModel;
  const ErasedForward forward = [&fn](Module&, const Inputs& in) { return fn(in); };
  const Tensor out = runForward(tracer, forward, noModel, declared);
  graph.outputs.push_back(checkedOutput(tracer, none, out, "traceFunction"));
  tracer.attachSourceText();
  return graph;
}

ir::TracedModel traceModel(const LoadedSpec& spec) {
  ir::TracedModel model;
  const detail::ErasedSpec& s = spec.spec;
  model.spec = {s.label, s.description, spec.sourceFile, s.inputs, s.predictInputs, s.optimizer,
                s.dims};
  tracing::DimLog met;
  model.train = trace(spec);
  if (s.predict) {
    model.infer = traceForward(spec);
    model.hasInfer = true;
  }
  // The legend: the dims the spec lists, then those the model and its forwards named, the
  // inputs' first (B, T read before the layers' widths).
  tracing::mergeDims(model.spec.dims, inputDimsFirst(spec.dims, s.inputs), spec.sourceFile, spec.line,
                     "the model's layers");
  tracing::mergeDims(model.spec.dims, met.dims(), spec.sourceFile, spec.line, "the forward functions");
  return model;
}

bool isTraining() {
  const tracing::Tracer* tracer = tracing::Tracer::active();
  return tracer != nullptr && tracer->training();
}

}  // namespace nndna
