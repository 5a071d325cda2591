// `nndna design "..." -o out.html --save spec.cpp`: plain English to a model spec and its diagram.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/diagram_output.hpp"
#include "cli/files.hpp"
#include "cli/llm_options.hpp"
#include "cli/spec_run_options.hpp"
#include "designer/designer.hpp"
#include "specrun/compile_cache.hpp"

namespace nndna::cli {
namespace {

struct DesignArgs {
  std::string prompt;
  std::string output;  // diagram
  std::string format;  // the diagram's, over -o's extension (needed with -o -)
  std::string save;    // spec
  std::string from;    // an existing spec to change
  bool offline = false;
  LlmArgs llm;
  std::string trace;
  SpecRunArgs run;
};

// The design session's trace: the viewer (.html) or the trace JSON (.json).
void writeTrace(const xray::Trace& trace, const std::filesystem::path& path) {
  if (path.extension() == ".json") {
    writeTextFile(path, xray::toJsonText(trace) + "\n");
  } else {
    writeTextFile(path, xray::toHtml(trace));
  }
}

void runDesign(const DesignArgs& args) {
  std::optional<DiagramOutput> output;
  if (!args.output.empty()) output = diagramOutput(args.output, args.format);
  if (output == std::nullopt && !args.format.empty()) throw CLI::ValidationError("--format", "needs -o (where to write the drawing)");
  std::ostream& report = output ? output->reportStream() : std::cout;
  if (!args.trace.empty()) {
    const std::string ext = std::filesystem::path(args.trace).extension().string();
    if (ext != ".html" && ext != ".json") throw CLI::ValidationError("--trace", "the trace must end in .html or .json");
  }
  if (args.prompt.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw CLI::ValidationError("description", "the description is empty: say what the neural network should do");
  }
  // Before the design: a model's answers cost money, and a path that cannot be written would
  // lose them after it.
  checkWritable(args.output, "-o");
  checkWritable(args.save, "--save");
  checkWritable(args.trace, "--trace");
  designer::DesignRequest request;
  request.prompt = args.prompt;
  if (!args.from.empty()) request.source = specrun::readSpecSource(args.from, args.from).text;  // a regular file, bounded
  if (!args.save.empty()) {
    request.sourceName = std::filesystem::path(args.save).filename().string();
  } else if (!args.from.empty()) {
    request.sourceName = std::filesystem::path(args.from).filename().string();
  }
  request.offline = args.offline;
  if (!args.offline) {
    designer::EndpointChoice choice = resolveEndpoint(args.llm);
    request.endpoint = std::move(choice.endpoint);
    request.whyOffline = std::move(choice.whyOffline);
  }
  request.maxRepairs = args.llm.maxRepairs;
  request.http = httpSettings(args.llm);
  request.run = toRunOptions(args.run);
  // No renderer warm-up here, unlike `nndna diagram`: the LLM's time dwarfs it.

  std::optional<xray::Session> session;
  if (!args.trace.empty()) session.emplace();
  const designer::DesignResult result =
      designer::design(request, [](const designer::DesignEvent& event) { std::cerr << event.message << "\n"; });
  if (session) {
    writeTrace(session->finish(), args.trace);
    report << "wrote " << args.trace << " (the design session's trace)\n";
  }

  if (!result.ok) {
    // The last spec, to fix by hand: in the --save file, else on standard output (standard error
    // when -o - reserved standard output for the drawing).
    if (!result.source.empty()) {
      const std::string where = result.errorLine > 0 ? fmt::format(" (the error is on line {})", result.errorLine) : "";
      if (!args.save.empty()) {
        writeTextFile(args.save, result.source);
        report << fmt::format("saved the last spec to {}{}\n", args.save, where);
      } else {
        report << result.source;
        std::cerr << fmt::format("the last spec is printed above{}; --save FILE keeps it in a file\n", where);
      }
    }
    const designer::Attempt* last = result.attempts.empty() ? nullptr : &result.attempts.back();
    const int code = last && last->check ? exitCodeForKindName(last->check->errorKind) : 1;
    throw CLI::RuntimeError(code);
  }
  if (!args.save.empty()) {
    writeTextFile(args.save, result.source);
    report << "wrote " << args.save << " (the spec)\n";
  }
  if (output) report << writeDiagram(*result.diagram, *output) << "\n";
  if (args.save.empty() && !output) std::cout << result.source;
}

}  // namespace

void addDesignCommands(CLI::App& app) {
  auto args = std::make_shared<DesignArgs>();
  CLI::App* cmd = app.add_subcommand("design", kDesignSummary);
  cmd->footer(
      "With a model endpoint (NNDNA_LLM_BASE_URL or --base-url, NNDNA_LLM_MODEL or --model; the key in\n"
      "NNDNA_LLM_API_KEY, else OPENAI_API_KEY / ANTHROPIC_API_KEY) the model writes the spec; compile and\n"
      "trace errors go back to it up to --max-repairs times. Without one, or with --offline, the offline\n"
      "designer builds the spec from its templates; it also takes over when the endpoint fails. See\n"
      "docs/design.md.\n"
      "Exit codes: 0 ok, 2 the last spec does not compile, 3 trace or spec error, 4 crash / limit,\n"
      "105-109 a mistake on the command line, 1 else.\n\n"
      "Examples:\n"
      "  nndna design \"a small transformer that adds two-digit numbers\" -o adder.html --save adder.cpp\n"
      "  nndna design --from adder.cpp \"use RMSNorm and 16 layers\" -o v2.html --save v2.cpp\n"
      "  nndna design --offline \"GPT-2 medium\" -o gpt2.html");
  cmd->add_option("description", args->prompt, "What the model should be (or, with --from, what to change)")
      ->required();
  cmd->add_option("-o,--output", args->output, "Draw the model here: .html, .svg, .dot or .json; - for standard output");
  cmd->add_option("--format", args->format, "The drawing's format, over -o's extension (needed with -o -): html, svg, dot or json");
  cmd->add_option("--save", args->save, "Write the spec here (on failure: the last spec tried, to fix by hand)");
  cmd->add_option("--from", args->from, "Change this existing spec (it may not compile)")->check(CLI::ExistingFile);
  cmd->add_flag("--offline", args->offline, "Use the offline designer even when an endpoint is configured");
  addLlmOptions(*cmd, args->llm);
  cmd->add_option("--trace", args->trace, "Write the design session's xray trace: .html (the viewer) or .json");
  addSpecLimitOptions(*cmd, args->run);
  cmd->callback([args] { runDesign(*args); });
}

}  // namespace nndna::cli
