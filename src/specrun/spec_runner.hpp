// Running a spec file: compile it against libnndna (cached), run it in a sandboxed child, read
// back the traced model. See docs/specrun.md.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <stdexcept>
#include <string>
#include <string_view>

#include "nndna/error.hpp"
#include "nndna/ir.hpp"
#include "specrun/sandbox.hpp"

namespace nndna::specrun {

class PchBuilder;

// The compiler reads untrusted code too: it gets limits of its own.
inline SandboxLimits defaultCompileLimits() {
  SandboxLimits limits;
  limits.wallTime = std::chrono::seconds(120);
  limits.cpuSeconds = 120;
  limits.addressSpaceBytes = std::uint64_t{4} << 30;
  limits.memoryBytes = std::uint64_t{4} << 30;
  limits.maxProcesses = 512;  // g++, cc1plus, as, mold and mold's threads (one per core)
  limits.fileSizeBytes = std::uint64_t{512} << 20;
  limits.workDirBytes = std::uint64_t{1} << 30;  // the object file and the program
  return limits;
}

inline SandboxLimits defaultRunLimits() {
  SandboxLimits limits;
  limits.wallTime = std::chrono::seconds(60);
  limits.cpuSeconds = 30;
  limits.addressSpaceBytes = std::uint64_t{4} << 30;
  limits.memoryBytes = std::uint64_t{4} << 30;
  limits.maxProcesses = 64;
  limits.fileSizeBytes = std::uint64_t{1} << 30;  // bounds the IR the spec writes
  limits.workDirBytes = std::uint64_t{1} << 30;
  return limits;
}

// A stage of a run starting or finishing, for progress displays (the app streams these).
struct StageEvent {
  std::string_view stage;  // "compile", "run" or "read"
  bool finished = false;   // false: it starts; true: it ended (successfully or not)
  double seconds = 0;      // wall time of the stage, when finished
  bool cacheHit = false;   // "compile" finished from the cache
};

struct RunOptions {
  SandboxLimits compileLimits = defaultCompileLimits();
  SandboxLimits runLimits = defaultRunLimits();
  // Where compiled specs and the precompiled header are kept; default $XDG_CACHE_HOME/nndna or
  // ~/.cache/nndna ($NNDNA_CACHE_DIR overrides both).
  std::optional<std::filesystem::path> cacheDir;
  bool useCache = true;  // false: compile even when a cached binary exists (and replace it)
  bool keepTemp = false;  // keep the run directory (its path is in RunReport::runDir)
  // The spec's path in messages; default: the path as given to runSpecFile.
  std::optional<std::string> displayPath;
  // A stop request kills the compiler or the spec program (and all they started) and makes the
  // call throw SpecRunError{cancelled}.
  std::stop_token stop;
  // Called on the calling thread as each stage starts and ends.
  std::function<void(const StageEvent&)> onStage;
  // Where the precompiled header of the spec's standard headers is built when it is not yet:
  // null, before the compile (a command: later edits find it); a builder (nndna serve), on its
  // thread, while this compile uses the one of nndna.hpp alone, about 1 s sooner.
  std::shared_ptr<PchBuilder> pchBuilder;
};

// What happened, for benchmarks, tests and `--verbose`.
struct RunReport {
  bool cacheHit = false;     // the compiled binary came from the cache
  // This call tried to build a precompiled header (also when the one with the spec's standard
  // headers failed and the one of nndna.hpp alone was then found or built), and the wall time.
  bool pchBuilt = false;
  double pchSeconds = 0;
  std::filesystem::path pch;  // the precompiled header the compile used (empty: none, or a cache hit)
  double compileSeconds = 0;  // wall time of the compile (0 on a cache hit)
  double compileCpuSeconds = 0;  // user + system CPU time of the compiler and linker
  double runSeconds = 0;      // wall time of the sandboxed run
  double runCpuSeconds = 0;   // user + system CPU time of the spec program
  double readSeconds = 0;     // parsing and validating the IR
  std::filesystem::path binary;
  bool installedToolchain = false;  // headers and spec main from an installed prefix, not the build tree
  // removed unless keepTemp (then it holds the files the spec left in its own directory)
  std::filesystem::path runDir;
  // The isolation of the last sandboxed step (the compile, or the run when there was one; a run
  // stopped before its program started leaves the compile's here, when there was one); empty
  // when nothing ran.
  std::optional<Isolation> isolation;
  std::string programOutput;     // the spec's stdout+stderr (bounded)
};

// What went wrong running a spec file: its kind() is one of the spec-run kinds of nndna::Error
// (compile_error, trace_error, spec_error, crash, timeout, memory_limit, output_limit,
// invalid_output, setup_error, cancelled); a trace error carries the spec's file and line.
class SpecRunError : public Error {
 public:
  // `message` already names the spec file (no separate location).
  SpecRunError(Kind kind, const std::string& message, std::string programOutput = {})
      : Error(kind, {}, 0, message), programOutput_(std::move(programOutput)) {}
  // An error at a line of the spec file, shown as `shownFile`:line.
  SpecRunError(Kind kind, std::string file, int line, std::string message, std::string_view shownFile,
               std::string programOutput)
      : Error(kind, std::move(file), line, std::move(message), shownFile),
        programOutput_(std::move(programOutput)) {}
  // What the compiler or the spec printed (bounded), for --verbose.
  const std::string& programOutput() const { return programOutput_; }

 private:
  std::string programOutput_;
};

std::string_view kindName(SpecRunError::Kind kind);

// The last lines the spec program printed (at most 2,000 bytes), as the message of a crash or an
// exception ends with them: "\nthe spec printed:\n" and the text; empty when it printed nothing.
std::string printedTail(const std::string& output);

// Compiles the spec file against libnndna (cached), runs it in a sandboxed child, and returns the
// traced model (both graphs) read back from the child's IR JSON. Throws SpecRunError.
ir::TracedModel runSpecFile(const std::filesystem::path& spec, const RunOptions& options = {},
                            RunReport* report = nullptr);

// runSpecFile for a spec given as text (the app's editor): `fileName` ("model.cpp") is how
// messages name it. Identical sources under the same file name share one compile: the text is
// stored under its hash in the cache directory (<cache>/sources/<hash>/<fileName>) and compiled
// from there, so the binary's debug information names a path that stays valid.
ir::TracedModel runSpecSource(std::string_view source, std::string_view fileName,
                              const RunOptions& options = {}, RunReport* report = nullptr);

// The compile step alone: returns the cached or freshly built binary. Throws SpecRunError.
std::filesystem::path compileSpecFile(const std::filesystem::path& spec, const RunOptions& options = {},
                                      RunReport* report = nullptr);

// The cache directory runSpecFile uses with these options.
std::filesystem::path cacheDirectory(const RunOptions& options = {});

}  // namespace nndna::specrun
