// `nndna summary`: a model's table of modules (parameters, FLOPs, activations, output shapes)
// and whether it fits in memory, as text or JSON.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/files.hpp"
#include "cli/model_source.hpp"
#include "cli/number_checks.hpp"
#include "nndna/summary.hpp"

namespace nndna::cli {

void addSummaryCommand(CLI::App& app) {
  struct SummaryArgs {
    ModelSource model;
    std::string json;
    int depth = 3;
    std::string side = "train";
    std::string dtype = "f32";
    bool mixedPrecision = false;
    std::int64_t context = 0;
  };
  auto args = std::make_shared<SummaryArgs>();
  CLI::App* cmd = app.add_subcommand(
      "summary", "Print a model's modules (output shape, parameters, FLOPs, activations) and the "
                 "memory it needs to train and to run");
  addModelSourceOptions(*cmd, args->model);
  cmd->add_option("--json", args->json, "Write the summary as JSON to this file ('-': standard output, "
                                        "instead of the table)");
  cmd->add_option("--depth", args->depth, "Show modules down to this depth (the model is 0)")
      ->capture_default_str()
      ->check(numberFrom(0, 1000, "levels"));
  cmd->add_option("--side", args->side, "The table of the training graph or the inference graph")
      ->capture_default_str()
      ->check(CLI::IsMember({"train", "infer"}));
  cmd->add_option("--dtype", args->dtype, "Bytes per value in the memory estimate: f32, bf16 or f16")
      ->capture_default_str()
      ->check(CLI::IsMember({"f32", "bf16", "f16"}));
  cmd->add_flag("--mixed-precision", args->mixedPrecision,
                "Train in --dtype (bf16 or f16) with f32 master weights and optimizer state");
  cmd->add_option("--context", args->context,
                  "Tokens of context for the KV cache of a decoder (default: the traced context)")
      ->check(numberFrom(1, 1e12, "tokens"));
  cmd->footer(
      "Each op belongs to the module of the parameters it reads, or else to the module of the\n"
      "function call it runs in (docs/summary.md). Memory: parameters, gradients, optimizer state and\n"
      "activations for a training step; weights, activations and a decoder's KV cache for inference.\n\n"
      "Examples:\n  nndna summary --example gpt2_small --depth 2\n"
      "  nndna summary model.cpp --dtype bf16 --mixed-precision --context 4096");
  cmd->callback([args] {
    refuseToOverwriteInput(args->json, args->model.input, "--json");
    checkWritable(args->json, "--json");  // before the spec is compiled and run
    if (args->mixedPrecision && args->dtype == "f32") {  // before the spec is run
      throw CLI::ValidationError("--mixed-precision", "needs a 16-bit dtype: --dtype bf16 or --dtype f16");
    }
    const ir::TracedModel model = loadModel(args->model);
    diagram::MemoryOptions memory;
    memory.dtype = args->dtype == "bf16"  ? diagram::MemoryDtype::bf16
                   : args->dtype == "f16" ? diagram::MemoryDtype::f16
                                          : diagram::MemoryDtype::f32;
    memory.mixedPrecision = args->mixedPrecision;
    if (args->context > 0) memory.context = args->context;
    const diagram::Summary summary = diagram::summarize(model, memory);
    if (args->json == "-") {  // the JSON alone on standard output
      writeTextFile("-", diagram::toJson(summary) + "\n");
      return;
    }
    const diagram::Side side = args->side == "infer" ? diagram::Side::infer : diagram::Side::train;
    if (side == diagram::Side::infer && !summary.infer) {
      throw CLI::ValidationError("--side", "the spec has no predict function: there is no inference graph");
    }
    std::cout << diagram::formatSummary(summary, side, args->depth);
    if (!args->json.empty()) {
      writeTextFile(args->json, diagram::toJson(summary) + "\n");
      std::cout << "wrote " << args->json << "\n";
    }
  });
}

}  // namespace nndna::cli
