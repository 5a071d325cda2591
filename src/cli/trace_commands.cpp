// `nndna examples` and `nndna trace`: list the built-in specs, trace one (or a spec file, or read
// an IR file) and summarise it.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "cli/commands.hpp"
#include "cli/diagram_output.hpp"
#include "cli/files.hpp"
#include "cli/model_source.hpp"
#include "cli/spec_run_options.hpp"
#include "diagram/metrics.hpp"
#include "nndna/diagram.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"

namespace nndna::cli {

namespace {

void printGraphSummary(std::ostream& out, std::string_view title, const ir::Graph& g) {
  std::map<std::string_view, int> byKind;
  int leaves = 0;
  for (const ir::Op& op : g.ops) {
    if (ir::isLeafKind(op.kind)) {
      ++leaves;
      continue;
    }
    ++byKind[ir::opKindName(op.kind)];
  }
  out << fmt::format("{}: {} ops ({} leaves, {} computing)\n", title, g.ops.size(), leaves,
                     g.ops.size() - static_cast<std::size_t>(leaves));
  for (const ir::NamedTensor& in : g.inputs) {
    const ir::TensorInfo& t = g.tensor(in.tensor);
    out << fmt::format("  input  {:<12} {} {}\n", in.name, ir::formatShape(t.shape),
                       ir::dtypeName(t.dtype));
  }
  for (ir::TensorId id : g.outputs) {
    const ir::TensorInfo& t = g.tensor(id);
    out << fmt::format("  output {:<12} {} {}\n", "", ir::formatShape(t.shape),
                       ir::dtypeName(t.dtype));
  }
  std::string kinds;
  for (const auto& [kind, count] : byKind) {
    kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", kind, count);
  }
  out << "  ops by kind: " << kinds << "\n";
}

}  // namespace

void addTraceCommands(CLI::App& app) {
  app.add_subcommand("examples", "List the model specs built into this nndna")->callback([] {
    for (const RegisteredSpec& spec : registeredSpecs()) {
      LoadedSpec loaded = loadSpec(spec);
      std::cout << fmt::format("{:<22} {}\n", spec.name, loaded.spec.label);
    }
  });

  struct TraceArgs {
    ModelSource model;
    std::string json;
  };
  auto args = std::make_shared<TraceArgs>();
  CLI::App* trace = app.add_subcommand(
      "trace", "Trace a model spec (built-in NAME, a .cpp spec file or an IR .json) and print its "
               "summary (parameters, ops, shapes, metrics)");
  trace->footer(fmt::format("{}\nExamples:\n  nndna trace gpt2_small\n  nndna trace model.cpp --json model.json",
                            kSpecCommandExitCodes));
  auto* input = trace->add_option("model", args->model.input,
                                  "A built-in spec's name (see `nndna examples`), a spec file (.cpp) or an IR (.json)");
  // As diagram, summary and the others take a built-in spec.
  trace->add_option("--example", args->model.example, "A built-in spec (see `nndna examples`)")->excludes(input);
  addSpecRunOptions(*trace, args->model.run);
  trace->add_option("--json", args->json,
                    "Also write the IR as JSON to this file (- for standard output; indented, or compact above "
                    "100,000 ops)");
  trace->callback([args] {
    if (args->model.input.empty() && args->model.example.empty()) {
      throw CLI::ValidationError("model", "give a spec name, a spec file or an IR .json");
    }
    refuseToOverwriteInput(args->json, args->model.input, "--json");
    checkWritable(args->json, "--json");  // before the spec is compiled and run
    ModelSource source = args->model;
    checkModelSource(source);
    // A bare name (no such file, no extension) is a built-in spec.
    const std::filesystem::path path(source.input);
    // As CLI11's check of the other commands' model file says it (105, before anything runs).
    if (!source.input.empty() && std::filesystem::is_directory(path)) {
      throw CLI::ValidationError("model", "File is actually a directory: " + source.input);
    }
    if (!source.input.empty() && !std::filesystem::exists(path)) {
      if (path.has_extension()) throw CLI::ValidationError("model", "File does not exist: " + source.input);  // as diagram's
      if (findSpec(source.input) == nullptr) {
        throw CLI::ValidationError("model", fmt::format("no built-in spec, spec file or IR named '{}' (`nndna "
                                                        "examples` lists the built-in specs)",
                                                        source.input));
      }
      std::swap(source.input, source.example);
    }
    const ir::TracedModel model = loadModel(source);
    // With --json -, standard output holds the IR alone and the summary goes to standard error.
    std::ostream& report = reportStreamFor(args->json);
    report << fmt::format("{} ({})\n", model.spec.label, source.example.empty() ? source.input : source.example);
    report << fmt::format("parameters: {}\n",
                          diagram::detail::formatGrouped(diagram::detail::countParams(model.train)));
    printGraphSummary(report, "training graph (forward of the loss)", model.train);
    if (model.hasInfer) printGraphSummary(report, "inference graph", model.infer);
    if (!args->json.empty()) {
      writeIrFile(args->json, model);
      report << "wrote " << shownPath(args->json) << "\n";
    }
    report << metricsLines(diagram::modelMetrics(model)) << "\n";
  });
}

}  // namespace nndna::cli
