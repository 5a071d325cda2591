// The `nndna` command's subcommands. Each file in src/cli adds one family of them to the app;
// main.cpp only builds the app and dispatches.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace nndna::cli {

// `nndna trace`, `nndna examples`: trace a built-in example and print its summary.
void addTraceCommands(CLI::App& app);

// `nndna summary`: a model's table of modules and its memory estimate (summary_command.cpp).
void addSummaryCommand(CLI::App& app);

// `nndna ir`: compile a spec file, run it in the sandbox, write its IR (spec_commands.cpp).
void addSpecCommands(CLI::App& app);

// `nndna xray run|view`, `nndna value demo`: execution traces and the Value stepper
// (xray_commands.cpp). `programTail`: what followed `--` in `nndna xray run`, which belongs to
// the program verbatim (see takeProgramTail).
void addXrayCommands(CLI::App& app, std::vector<std::string> programTail);

// For `nndna xray run ... -- PROGRAM ARGS...`: removes the first `--` after `xray run` and
// everything after it from argv, and returns what it removed (without the `--`). CLI11 would
// still read options in that part, so it never sees it. Other commands' argv is left alone.
std::vector<std::string> takeProgramTail(int& argc, char** argv);

// `nndna diagram`: draw a model's architecture as HTML, SVG, DOT or JSON (diagram_commands.cpp).
void addDiagramCommands(CLI::App& app);

// `nndna design`: plain English to a spec and its diagram, with an LLM or offline
// (design_commands.cpp).
void addDesignCommands(CLI::App& app);

// `nndna serve`: the web app and its HTTP API (serve_command.cpp, src/server).
void addServeCommand(CLI::App& app);

}  // namespace nndna::cli
