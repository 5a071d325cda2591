// `nndna diagram`: draw a model's architecture as HTML, SVG, DOT or JSON.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string_view>

#include "cli/commands.hpp"
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

// "1 box", "3 boxes".
std::string counted(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

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
  if (path.extension() == ".json") return ir::tracedModelFromJson(readTextFile(path));
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
    const std::string ext = out.extension().string();
    if (ext != ".html" && ext != ".svg" && ext != ".dot" && ext != ".json") {
      throw CLI::ValidationError("-o", "the output must end in .html, .svg, .dot or .json");
    }
    const ir::TracedModel model = loadModel(*args);
    diagram::Options options;
    if (args->side == "train") options.only = diagram::Side::train;
    if (args->side == "infer") options.only = diagram::Side::infer;
    const diagram::Diagram d = diagram::buildDiagram(model, options);
    std::string text;
    if (ext == ".dot") {
      text = d.dot;
    } else if (ext == ".json") {
      text = diagram::toJson(d);
    } else if (ext == ".svg") {
      text = diagram::renderSvg(d);
    } else {
      text = diagram::renderHtml(d);
    }
    writeTextFile(out, text);
    std::cout << fmt::format("wrote {} ({}, {}, {}{})\n", out.string(),
                             counted(d.layerCount(), "box", "boxes"),
                             counted(d.clusters.size(), "cluster", "clusters"),
                             counted(d.edges.size(), "edge", "edges"),
                             d.merged ? ", training and inference merged" : "");
    // The page header's figures, with the same display strings (and units).
    for (diagram::Side side : {diagram::Side::train, diagram::Side::infer}) {
      if (!d.metrics[side]) continue;
      std::string line;
      for (const diagram::Metric& m : *d.metrics[side]) line += (line.empty() ? "" : " · ") + m.display;
      std::cout << fmt::format("{}: {}\n", side == diagram::Side::train ? "training" : "inference", line);
    }
  });
}

}  // namespace nndna::cli
