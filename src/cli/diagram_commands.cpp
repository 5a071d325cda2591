// `nndna diagram`: draw a model's architecture as HTML, SVG, DOT or JSON.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/diagram_output.hpp"
#include "cli/files.hpp"
#include "cli/model_source.hpp"
#include "cli/spec_run_options.hpp"
#include "diagram/checked_model.hpp"
#include "nndna/diagram.hpp"

namespace nndna::cli {
namespace {

struct DiagramArgs {
  ModelSource model;
  std::string output;
  std::string format;
  std::string side;
};

}  // namespace

void addDiagramCommands(CLI::App& app) {
  auto args = std::make_shared<DiagramArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diagram", "Draw a model's architecture (HTML page, SVG, DOT or JSON, by -o's extension or --format)");
  cmd->footer(fmt::format(
      "The model: a spec file (.cpp: compiled and run in a sandbox, as `nndna ir --help` says), an IR\n"
      "(.json), or a built-in spec (--example NAME; `nndna examples` lists them).\n"
      "{}\n"
      "Examples:\n  nndna diagram examples/diffusion_denoiser.cpp -o denoiser.html\n"
      "  nndna diagram --example gpt2_small -o gpt2.svg\n"
      "  nndna diagram model.ir.json -o model.html   (an IR `nndna ir` wrote)",
      kSpecCommandExitCodes));
  addModelSourceOptions(*cmd, args->model);
  cmd->add_option("-o,--output", args->output, "Output file: .html, .svg, .dot or .json; - for standard output")
      ->required();
  cmd->add_option("--format", args->format, "The output's format, over -o's extension (needed with -o -): html, svg, dot or json");
  cmd->add_option("--side", args->side, "Draw one side alone: train or infer")
      ->check(CLI::IsMember({"train", "infer"}));
  cmd->callback([args] {
    const DiagramOutput out = diagramOutput(args->output, args->format);  // before a spec is compiled and run
    refuseToOverwriteInput(args->output, args->model.input, "-o");
    checkWritable(args->output, "-o");  // before the spec is compiled and run
    checkModelSource(args->model);  // a usage error does not wait for the warm-up
    std::jthread warmUp;
    if (out.laidOut()) warmUp = startRendererWarmUp();
    const ir::TracedModel model = loadModel(args->model);
    diagram::Options options;
    options.summary = out.format == DiagramFormat::html;  // only the page shows it
    if (args->side == "train") options.only = diagram::Side::train;
    if (args->side == "infer") options.only = diagram::Side::infer;
    // A usage error as summary's (status 105), not the library's invalid_argument (1).
    if (args->side == "infer" && !model.hasInfer) {
      throw CLI::ValidationError("--side", "the spec has no predict function: there is no inference side to draw");
    }
    const std::string report = writeDiagram(diagram::buildDiagramOfCheckedModel(model, options), out);
    out.reportStream() << report << "\n";
  });
}

}  // namespace nndna::cli
