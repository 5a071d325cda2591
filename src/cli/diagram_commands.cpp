// `nndna diagram`: draw a model's architecture as HTML, SVG, DOT or JSON.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/diagram_output.hpp"
#include "cli/files.hpp"
#include "cli/spec_run_options.hpp"
#include "nndna/diagram.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"

namespace nndna::cli {
namespace {

struct DiagramArgs {
  std::string input;    // a spec .cpp or an IR .json
  std::string example;  // a built-in spec
  std::string output;
  std::string side;
  SpecRunArgs run;
};

ir::TracedModel loadModel(const DiagramArgs& args) {
  if (!args.example.empty()) {
    const RegisteredSpec* registered = findSpec(args.example);
    if (registered == nullptr) {
      throw CLI::ValidationError("--example", "no built-in spec named '" + args.example +
                                                  "' (see `nndna examples`)");
    }
    return traceModel(loadSpec(*registered));
  }
  const std::filesystem::path path(args.input);
  if (path.extension() == ".json") return ir::tracedModelFromFile(path);
  return runSpecForCli(args.input, args.run);
}

}  // namespace

void addDiagramCommands(CLI::App& app) {
  auto args = std::make_shared<DiagramArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diagram", "Draw a model's architecture (HTML page, SVG, DOT or JSON, by -o's extension)");
  auto* input = cmd->add_option("model", args->input, "A model spec (.cpp) or a traced IR (.json)");
  auto* example = cmd->add_option("--example", args->example, "A built-in spec (see `nndna examples`)");
  input->excludes(example);
  cmd->add_option("-o,--output", args->output, "Output file: .html, .svg, .dot or .json")->required();
  cmd->add_option("--side", args->side, "Draw one side alone: train or infer")
      ->check(CLI::IsMember({"train", "infer"}));
  addSpecRunOptions(*cmd, args->run);
  cmd->callback([args] {
    if (args->input.empty() && args->example.empty()) {
      throw CLI::ValidationError("model", "give a spec file, an IR .json, or --example NAME");
    }
    const std::filesystem::path out(args->output);
    checkDiagramOutput(out);
    const ir::TracedModel model = loadModel(*args);
    diagram::Options options;
    if (args->side == "train") options.only = diagram::Side::train;
    if (args->side == "infer") options.only = diagram::Side::infer;
    std::cout << writeDiagram(diagram::buildDiagram(model, options), out) << "\n";
  });
}

}  // namespace nndna::cli
