// The options of every command that compiles and runs a spec file (`nndna ir`, `diagram`, `trace`,
// `summary`; `design` takes the limits), and how such a command runs it: errors printed for the
// user, exit code by kind.
#pragma once

#include <cstdint>
#include <string>

#include <string_view>

#include "nndna/ir.hpp"
#include "specrun/spec_runner.hpp"

namespace CLI {
class App;
}

namespace nndna::cli {

struct SpecRunArgs {
  double timeLimit = 0;           // seconds; 0: the default
  std::uint64_t memoryLimit = 0;  // MiB; 0: the default
  std::string cacheDir;
  bool noCache = false;
  bool keepTemp = false;
  bool verbose = false;
};

// --time-limit, --memory-limit, --cache-dir, --no-cache, --keep-temp, --verbose.
void addSpecRunOptions(CLI::App& cmd, SpecRunArgs& args);
// The first four alone (for commands that compile specs they write themselves: `nndna design`).
void addSpecLimitOptions(CLI::App& cmd, SpecRunArgs& args);

// The exit codes of a command that may run a spec, as its help's footer says them (one line of
// text, wrapped, ending in a newline).
inline constexpr std::string_view kSpecCommandExitCodes =
    "Exit codes: 0 ok, 2 compile error, 3 trace or spec error, 4 crash / time-out / memory or output\n"
    "limit, 105-109 a mistake on the command line (CLI11's codes), 1 anything else.\n";

// --time-limit's help, with the defaults it replaces (also `nndna serve`'s).
std::string timeLimitHelp();

// The runner's options for these arguments.
specrun::RunOptions toRunOptions(const SpecRunArgs& args);

// The exit code for an error of a kind: 2 compile error, 3 trace or spec error, 4 crash /
// time-out / limit, 1 otherwise. By specrun's kind name ("compile_error") too.
int exitCodeFor(specrun::SpecRunError::Kind kind);
int exitCodeForKindName(std::string_view kindName);

// Compiles and runs the spec. On failure prints the error (compiler diagnostics, trace error,
// crash...) to stderr and throws CLI::RuntimeError with the exit code for its kind: 2 compile
// error, 3 trace or spec error, 4 crash / time-out / limit, 1 otherwise.
ir::TracedModel runSpecForCli(const std::string& spec, const SpecRunArgs& args);

}  // namespace nndna::cli
