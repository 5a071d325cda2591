// runSpecFile: compile (cached), run in the sandbox, read the IR back, or say what went wrong.
#include "specrun/spec_runner.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "specrun/child_protocol.hpp"
#include "specrun/sha256.hpp"
#include "specrun/temp_dir.hpp"

namespace nndna::specrun {

namespace fs = std::filesystem;

std::string_view kindName(SpecRunError::Kind kind) {
  switch (kind) {
    case SpecRunError::Kind::compile_error: return "compile_error";
    case SpecRunError::Kind::trace_error: return "trace_error";
    case SpecRunError::Kind::spec_error: return "spec_error";
    case SpecRunError::Kind::crash: return "crash";
    case SpecRunError::Kind::timeout: return "timeout";
    case SpecRunError::Kind::memory_limit: return "memory_limit";
    case SpecRunError::Kind::output_limit: return "output_limit";
    case SpecRunError::Kind::invalid_output: return "invalid_output";
    case SpecRunError::Kind::setup_error: return "setup_error";
    case SpecRunError::Kind::cancelled: return "cancelled";
  }
  return "unknown";
}

namespace {

using Kind = SpecRunError::Kind;

std::string readFile(const fs::path& file) {
  std::ostringstream text;
  text << std::ifstream(file, std::ios::binary).rdbuf();
  return text.str();
}

std::string mib(std::uint64_t bytes) { return fmt::format("{} MiB", bytes >> 20); }

// The last lines the program printed, to go with a crash or an exception.
std::string outputTail(const std::string& output) {
  if (output.empty()) return {};
  constexpr std::size_t kTail = 2000;
  std::string tail = output.size() > kTail ? "..." + output.substr(output.size() - kTail) : output;
  while (tail.ends_with('\n')) tail.pop_back();
  return "\nthe spec printed:\n" + tail;
}

// The child's error.json, turned into the error the user sees.
[[noreturn]] void throwChildError(const fs::path& runDir, const fs::path& absoluteSpec,
                                  const std::string& display, const SandboxResult& result,
                                  const RunOptions& options) {
  nlohmann::json error = nlohmann::json::object();
  const fs::path errorFile = runDir / child::kErrorFile;
  if (fs::exists(errorFile) && fs::file_size(errorFile) < (std::uintmax_t{1} << 20)) {
    error = nlohmann::json::parse(readFile(errorFile), nullptr, /*allow_exceptions=*/false);
    if (!error.is_object()) error = nlohmann::json::object();
  }
  const std::string message = error.value("message", std::string("(no message)"));
  switch (result.exitCode) {
    case child::kExitTrace: {
      std::string file = error.value("file", std::string());
      if (file == absoluteSpec.string() || file.empty()) file = display;
      // The same formatting as the core's TraceError, with the path the user typed.
      const TraceError shown(file, error.value("line", 0), error.value("op", std::string()),
                             error.value("detail", message));
      throw SpecRunError(Kind::trace_error, shown.what(), result.output);
    }
    case child::kExitMemory:
      throw SpecRunError(Kind::memory_limit,
                         fmt::format("{}: the spec ran out of memory (limit: {} of address space)", display,
                                     mib(options.runLimits.addressSpaceBytes)),
                         result.output);
    case child::kExitOutput:
      throw SpecRunError(Kind::output_limit,
                         fmt::format("{}: the traced model's IR is larger than the limit ({})", display,
                                     mib(options.runLimits.fileSizeBytes)),
                         result.output);
    case child::kExitError:
      throw SpecRunError(Kind::spec_error, fmt::format("{}: {}{}", display, message, outputTail(result.output)),
                         result.output);
    default:
      throw SpecRunError(Kind::spec_error,
                         fmt::format("{}: the spec exited with code {} before writing its model{}", display,
                                     result.exitCode, outputTail(result.output)),
                         result.output);
  }
}

[[noreturn]] void throwRunFailure(const std::string& display, const SandboxResult& result,
                                  const RunOptions& options) {
  const SandboxLimits& limits = options.runLimits;
  if (result.outputExceeded) {
    throw SpecRunError(Kind::output_limit,
                       fmt::format("{}: the spec printed more than {} and was stopped", display,
                                   mib(limits.outputBytes)),
                       result.output);
  }
  if (result.timedOut) {
    throw SpecRunError(Kind::timeout,
                       fmt::format("{}: the spec ran longer than {} s and was stopped (an endless loop?)",
                                   display, std::chrono::duration<double>(limits.wallTime).count()),
                       result.output);
  }
  if (result.cpuExceeded) {
    throw SpecRunError(Kind::timeout,
                       fmt::format("{}: the spec used more than {} s of CPU time and was stopped (an "
                                   "endless loop?)",
                                   display, limits.cpuSeconds),
                       result.output);
  }
  if (result.signal == SIGXFSZ) {
    throw SpecRunError(Kind::output_limit,
                       fmt::format("{}: the spec wrote a file larger than the limit ({})", display,
                                   mib(limits.fileSizeBytes)),
                       result.output);
  }
  throw SpecRunError(Kind::crash,
                     fmt::format("{}: the spec crashed: {}{}", display, describeSignal(result.signal),
                                 outputTail(result.output)),
                     result.output);
}

}  // namespace

ir::TracedModel runSpecFile(const fs::path& spec, const RunOptions& options, RunReport* report) {
  RunReport local;
  RunReport& rep = report != nullptr ? *report : local;
  const std::string display = options.displayPath.value_or(spec.string());
  const fs::path binary = compileSpecFile(spec, options, &rep);
  const fs::path absoluteSpec = fs::canonical(spec);

  TempDir runDir(fs::temp_directory_path(), "nndna-run-");
  if (options.keepTemp) runDir.keep();
  rep.runDir = runDir.path();
  const std::vector<std::string> argv{binary.string()};
  const std::vector<std::string> env{"PATH=/usr/bin:/bin", "HOME=" + runDir.path().string(),
                                     "TMPDIR=" + runDir.path().string(), "LANG=C", "LC_ALL=C"};
  if (options.onStage) options.onStage({.stage = "run"});
  const SandboxResult result = runSandboxed(argv, env, runDir.path(), options.runLimits, options.stop);
  if (options.onStage) options.onStage({.stage = "run", .finished = true, .seconds = result.wallSeconds});
  if (result.cancelled) throw SpecRunError(Kind::cancelled, display + ": the run was cancelled", result.output);
  rep.runSeconds = result.wallSeconds;
  rep.runCpuSeconds = result.cpuSeconds;
  rep.namespaces = result.namespaces;
  rep.readOnlyFs = result.readOnlyFs;
  rep.programOutput = result.output;

  if (!result.exited || result.outputExceeded || result.timedOut) throwRunFailure(display, result, options);
  if (result.exitCode != child::kExitOk) throwChildError(runDir.path(), absoluteSpec, display, result, options);

  const auto readStart = std::chrono::steady_clock::now();
  if (options.onStage) options.onStage({.stage = "read"});
  const fs::path irFile = runDir.path() / child::kIrFile;
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(irFile, ec);
  if (ec) throw SpecRunError(Kind::invalid_output, display + ": the spec program wrote no IR", result.output);
  ir::ReadLimits limits;
  limits.maxBytes = std::min<std::size_t>(limits.maxBytes, options.runLimits.fileSizeBytes);
  if (size > limits.maxBytes) {
    throw SpecRunError(Kind::output_limit, fmt::format("{}: the IR is larger than {}", display, mib(limits.maxBytes)));
  }
  try {
    ir::TracedModel model = ir::tracedModelFromJson(readFile(irFile), limits);
    rep.readSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - readStart).count();
    if (options.onStage) options.onStage({.stage = "read", .finished = true, .seconds = rep.readSeconds});
    return model;
  } catch (const ir::IrFormatError& e) {
    throw SpecRunError(Kind::invalid_output, fmt::format("{}: the IR the spec wrote is invalid: {}", display, e.what()));
  }
}

namespace {

// The name a source given as text is stored under: the last path component of `fileName` when it
// is a plain C++ file name, else "spec.cpp" (it becomes part of a path in the cache).
std::string storedFileName(std::string_view fileName) {
  const std::string base = fs::path(std::string(fileName)).filename().string();
  const bool plain = !base.empty() && base.size() <= 100 && base.ends_with(".cpp") && base.front() != '.' &&
                     base.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
                         std::string::npos;
  return plain ? base : "spec.cpp";
}

}  // namespace

ir::TracedModel runSpecSource(std::string_view source, std::string_view fileName, const RunOptions& options,
                              RunReport* report) {
  const std::string name = storedFileName(fileName);
  const fs::path dir = cacheDirectory(options) / "sources" / sha256Hex(std::string(source)).substr(0, 32);
  const fs::path file = dir / name;
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    fs::create_directories(dir, ec);
    // Written under a unique name, then renamed: a concurrent request for the same source reads
    // either nothing or the whole file.
    const fs::path partial = dir / fmt::format(".{}.{}.tmp", name, ::getpid());
    {
      std::ofstream out(partial, std::ios::binary | std::ios::trunc);
      out.write(source.data(), static_cast<std::streamsize>(source.size()));
      if (!out) {
        throw SpecRunError(Kind::setup_error, fmt::format("{}: cannot store the source in {}", fileName, dir.string()));
      }
    }
    fs::rename(partial, file, ec);
    if (ec) throw SpecRunError(Kind::setup_error, fmt::format("{}: cannot store the source: {}", fileName, ec.message()));
  }
  RunOptions named = options;
  if (!named.displayPath) named.displayPath = std::string(fileName);
  return runSpecFile(file, named, report);
}

}  // namespace nndna::specrun
