// `nndna ir model.cpp -o model.json`: compile a spec file, run it in the sandbox, write its IR.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/diagram_output.hpp"
#include "cli/files.hpp"
#include "cli/spec_run_options.hpp"
#include "nndna/diagram.hpp"
#include "nndna/ir_json.hpp"
#include "specrun/spec_runner.hpp"

namespace nndna::cli {

void addSpecCommands(CLI::App& app) {
  struct IrArgs {
    std::string spec;
    std::string output;
    SpecRunArgs run;
  };
  auto args = std::make_shared<IrArgs>();
  CLI::App* cmd = app.add_subcommand(
      "ir", "Compile a model spec file, trace it in a sandbox and write its IR (both graphs) as JSON");
  cmd->footer(fmt::format(
      "The spec is compiled with g++ against libnndna (cached in ~/.cache/nndna: a second run of the\n"
      "same file skips the compiler); the compiler and the spec program run in a sandbox (their own\n"
      "namespaces, a minimal root without the host's files, a system-call filter, limits for their\n"
      "whole process tree; -v says which layers were in force, and a run without all of them warns).\n"
      "{}\n"
      "Example:\n  nndna ir examples/diffusion_denoiser.cpp -o denoiser.json",
      kSpecCommandExitCodes));
  cmd->add_option("spec", args->spec, "The model spec file (C++ with NNDNA_SPEC)")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", args->output,
                  "Write the IR JSON here (default: standard output); indented, or compact above 100,000 ops");
  addSpecRunOptions(*cmd, args->run);
  cmd->callback([args] {
    refuseToOverwriteInput(args->output, args->spec, "-o");
    checkWritable(args->output, "-o");  // before the spec is compiled and run
    const ir::TracedModel model = runSpecForCli(args->spec, args->run);
    if (args->output.empty() || args->output == "-") {
      writeIr(std::cout, model);
      std::cerr << metricsLines(diagram::modelMetrics(model)) << "\n";  // stdout holds the IR alone
      return;
    }
    writeIrFile(args->output, model);
    // The IR is on its way to a file, so the report goes to stdout, as `nndna diagram`'s does.
    std::cout << fmt::format("wrote {} ({} training ops{})\n", args->output, model.train.ops.size(),
                             model.hasInfer ? fmt::format(", {} inference ops", model.infer.ops.size()) : "")
              << metricsLines(diagram::modelMetrics(model)) << "\n";
  });
}

}  // namespace nndna::cli
