// `nndna ir model.cpp -o model.json`: compile a spec file, run it in the sandbox, write its IR.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/files.hpp"
#include "cli/spec_run_options.hpp"
#include "nndna/ir_json.hpp"
#include "specrun/spec_runner.hpp"

namespace nndna::cli {

void addSpecLimitOptions(CLI::App& cmd, SpecRunArgs& args) {
  cmd.add_option("--time-limit", args.timeLimit,
                 "Stop the spec after this many seconds (wall clock; CPU time is limited to the same)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--memory-limit", args.memoryLimit, "The spec's memory limit in MiB (address space)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--cache-dir", args.cacheDir,
                 "Where compiled specs are cached (default: $XDG_CACHE_HOME/nndna or ~/.cache/nndna)");
  cmd.add_flag("--no-cache", args.noCache, "Compile even if this spec was compiled before");
}

void addSpecRunOptions(CLI::App& cmd, SpecRunArgs& args) {
  addSpecLimitOptions(cmd, args);
  cmd.add_flag("--keep-temp", args.keepTemp, "Keep the spec's run directory (its path is printed)");
  cmd.add_flag("-v,--verbose", args.verbose, "Print compile and run times and the sandbox in use");
}

specrun::RunOptions toRunOptions(const SpecRunArgs& args) {
  specrun::RunOptions options;
  if (args.timeLimit > 0) {
    options.runLimits.wallTime = std::chrono::milliseconds(static_cast<std::int64_t>(args.timeLimit * 1000));
    options.runLimits.cpuSeconds = static_cast<std::uint64_t>(std::max(1.0, args.timeLimit));
  }
  if (args.memoryLimit > 0) options.runLimits.addressSpaceBytes = args.memoryLimit << 20;
  if (!args.cacheDir.empty()) options.cacheDir = args.cacheDir;
  options.useCache = !args.noCache;
  options.keepTemp = args.keepTemp;
  return options;
}

int exitCodeFor(specrun::SpecRunError::Kind kind) {
  using Kind = specrun::SpecRunError::Kind;
  switch (kind) {
    case Kind::compile_error: return 2;
    case Kind::trace_error:
    case Kind::spec_error: return 3;
    case Kind::crash:
    case Kind::timeout:
    case Kind::memory_limit:
    case Kind::output_limit:
    case Kind::invalid_output: return 4;
    case Kind::setup_error:
    case Kind::cancelled: return 1;
  }
  return 1;
}

int exitCodeForKindName(std::string_view kindName) {
  using Kind = specrun::SpecRunError::Kind;
  for (Kind kind : {Kind::compile_error, Kind::trace_error, Kind::spec_error, Kind::crash, Kind::timeout,
                    Kind::memory_limit, Kind::output_limit, Kind::invalid_output, Kind::setup_error,
                    Kind::cancelled}) {
    if (specrun::kindName(kind) == kindName) return exitCodeFor(kind);
  }
  return 1;
}

namespace {

void printReport(const specrun::RunReport& report) {
  std::cerr << fmt::format(
      "compile: {} ({:.2f} s{}), run: {:.2f} s, read IR: {:.3f} s\nsandbox: {}\ntoolchain: {}\nbinary: {}\n",
      report.cacheHit ? "cached" : "compiled", report.compileSeconds,
      report.pchBuilt ? fmt::format(", precompiled header {:.2f} s", report.pchSeconds) : "", report.runSeconds,
      report.readSeconds,
      report.namespaces ? (report.readOnlyFs ? "PID, mount and network namespaces; read-only filesystem"
                                             : "PID, mount and network namespaces; filesystem NOT read-only")
                        : "resource limits only (no namespaces on this machine)",
      report.installedToolchain ? "installed" : "build tree", report.binary.string());
  if (!report.programOutput.empty()) std::cerr << "the spec printed:\n" << report.programOutput;
}

}  // namespace

ir::TracedModel runSpecForCli(const std::string& spec, const SpecRunArgs& args) {
  specrun::RunReport report;
  try {
    ir::TracedModel model = specrun::runSpecFile(spec, toRunOptions(args), &report);
    if (args.verbose) printReport(report);
    if (args.keepTemp) std::cerr << "run directory kept: " << report.runDir.string() << "\n";
    return model;
  } catch (const specrun::SpecRunError& e) {
    if (args.verbose) printReport(report);
    if (args.keepTemp && !report.runDir.empty()) std::cerr << "run directory kept: " << report.runDir.string() << "\n";
    std::cerr << e.what() << "\n";
    throw CLI::RuntimeError(exitCodeFor(e.kind()));
  }
}

void addSpecCommands(CLI::App& app) {
  struct IrArgs {
    std::string spec;
    std::string output;
    SpecRunArgs run;
  };
  auto args = std::make_shared<IrArgs>();
  CLI::App* cmd = app.add_subcommand(
      "ir", "Compile a model spec file, trace it in a sandbox and write its IR (both graphs) as JSON");
  cmd->footer(
      "The spec is compiled with g++ against libnndna (cached in ~/.cache/nndna: a second run of the\n"
      "same file skips the compiler) and run in a child process without network, with a read-only\n"
      "view of the filesystem where the machine allows, and with time and memory limits.\n"
      "Exit codes: 0 ok, 2 compile error, 3 trace or spec error, 4 crash / time-out / memory or output\n"
      "limit, 1 anything else.\n\n"
      "Example:\n  nndna ir examples/diffusion_denoiser.cpp -o denoiser.json");
  cmd->add_option("spec", args->spec, "The model spec file (C++ with NNDNA_SPEC)")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", args->output, "Write the IR JSON here (default: standard output)");
  addSpecRunOptions(*cmd, args->run);
  cmd->callback([args] {
    const ir::TracedModel model = runSpecForCli(args->spec, args->run);
    const std::string json = ir::toJson(model, 1);
    if (args->output.empty() || args->output == "-") {
      std::cout << json << "\n";
      return;
    }
    writeTextFile(args->output, json + "\n");
    std::cerr << fmt::format("wrote {} ({} training ops{})\n", args->output, model.train.ops.size(),
                             model.hasInfer ? fmt::format(", {} inference ops", model.infer.ops.size()) : "");
  });
}

}  // namespace nndna::cli
