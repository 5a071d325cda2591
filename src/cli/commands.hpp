// The `nndna` command's subcommands. Each file in src/cli adds one family of them to the app;
// main.cpp only builds the app and dispatches.
#pragma once

#include <functional>
#include <string>
#include <string_view>
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

// `nndna design` and `nndna serve` are run by a second program, nndna-net (net_main.cpp): the
// only one linking the network libraries (libcurl, cpp-httplib, OpenSSL and what they load), whose
// loading cost every other command about 20 ms of CPU at start-up. `nndna` lists the two
// commands and hands their whole command line over to nndna-net (net_commands.cpp).
inline constexpr const char* kDesignSummary =
    "Describe a model in plain English: nndna writes the spec (with an LLM, or offline) and draws it";
inline constexpr const char* kServeSummary = "Start the NN DNA app: edit a model in the browser and see its diagram";

// In `nndna`: whether argv[1] names one of nndna-net's commands.
bool isNetCommand(std::string_view name);
// Replaces this process with nndna-net, given the same argv (argv[0] included): its output, exit
// status and signals are then the command's own. Returns only when it cannot (not found, exec
// failed): the error printed as "nndna: ...", and the exit status 1.
int handOverToNet(char** argv);
// In `nndna`: `design` and `serve` in the list of commands and its --help.
void addNetCommandsHandOver(CLI::App& app, char** argv);

// In nndna-net: `nndna design`: plain English to a spec and its diagram, with an LLM or offline
// (design_commands.cpp).
void addDesignCommands(CLI::App& app);

// In nndna-net: `nndna serve`: the web app and its HTTP API (serve_command.cpp, src/server).
void addServeCommand(CLI::App& app);

// Prints an error of a command as "nndna: MESSAGE" on stderr, escape sequences as text (messages
// may quote a file's contents: an IR, a trace).
void printError(std::string_view message);

// Both programs' main(): builds the app (its description and --version), lets `addCommands` add
// the commands (it may shorten argc, see takeProgramTail, and throw), parses argv, runs the
// command and returns the exit code; an error is printed as "nndna: ...".
int runCommandLine(int argc, char** argv, const std::function<void(CLI::App& app, int& argc)>& addCommands);

}  // namespace nndna::cli
