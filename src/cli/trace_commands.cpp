// `nndna examples` and `nndna trace`: list the built-in specs, trace one and summarise it.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <memory>

#include "cli/commands.hpp"
#include "cli/files.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"

namespace nndna::cli {

namespace {

std::string withThousands(std::int64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  const int len = static_cast<int>(digits.size());
  for (int i = 0; i < len; ++i) {
    out += digits[static_cast<std::size_t>(i)];
    const int rest = len - 1 - i;
    if (rest > 0 && rest % 3 == 0 && digits[static_cast<std::size_t>(i)] != '-') out += ',';
  }
  return out;
}

std::int64_t parameterCount(const ir::Graph& g) {
  std::int64_t total = 0;
  for (const ir::Param& p : g.params) total += ir::numel(g.tensor(p.tensor).shape);
  return total;
}

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
    std::string spec;
    std::string json;
  };
  auto args = std::make_shared<TraceArgs>();
  CLI::App* trace = app.add_subcommand(
      "trace", "Trace a built-in model spec and print its summary (parameters, ops, shapes)");
  trace->add_option("spec", args->spec, "Spec name (see `nndna examples`)")->required();
  trace->add_option("--json", args->json, "Also write the IR as JSON to this file");
  trace->callback([args] {
    const RegisteredSpec* registered = findSpec(args->spec);
    if (registered == nullptr) {
      throw CLI::ValidationError("spec", "no built-in spec named '" + args->spec +
                                             "' (see `nndna examples`)");
    }
    const LoadedSpec loaded = loadSpec(*registered);
    const ir::TracedModel model = traceModel(loaded);
    std::cout << fmt::format("{} ({})\n", model.spec.label, registered->name);
    std::cout << fmt::format("parameters: {}\n", withThousands(parameterCount(model.train)));
    printGraphSummary(std::cout, "training graph (forward of the loss)", model.train);
    if (model.hasInfer) printGraphSummary(std::cout, "inference graph", model.infer);
    if (!args->json.empty()) {
      writeTextFile(args->json, ir::toJson(model, 1));
      std::cout << "wrote " << args->json << "\n";
    }
  });
}

}  // namespace nndna::cli
