// runSpecFile: compile (cached), run in the sandbox, read the IR back, or say what went wrong.
#include "specrun/spec_runner.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>

#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "specrun/cache_pruning.hpp"
#include "specrun/child_files.hpp"
#include "specrun/child_protocol.hpp"
#include "specrun/compile_cache.hpp"
#include "specrun/crash_location.hpp"
#include "specrun/sha256.hpp"
#include "specrun/temp_dir.hpp"

namespace nndna::specrun {

namespace fs = std::filesystem;

std::string printedTail(const std::string& output) {
  if (output.empty()) return {};
  constexpr std::size_t kTail = 2000;
  std::string tail = output.size() > kTail ? "..." + output.substr(output.size() - kTail) : output;
  while (tail.ends_with('\n')) tail.pop_back();
  return "\nthe spec printed:\n" + tail;
}

std::string_view kindName(SpecRunError::Kind kind) { return errorKindName(kind); }

namespace {

using Kind = SpecRunError::Kind;

constexpr std::uint64_t kMaxErrorFileBytes = 1 << 20;
// Run directories: $TMPDIR/nndna-run-<pid>-XXXXXX (swept when <pid> is gone), and those kept
// for --keep-temp, $TMPDIR/nndna-kept-XXXXXX, which nothing sweeps: the user asked for them.
constexpr std::string_view kRunDirPrefix = "nndna-run-";
constexpr std::string_view kKeptRunDirPrefix = "nndna-kept-";

std::string mib(std::uint64_t bytes) { return fmt::format("{} MiB", bytes >> 20); }

// A quoted text of the child's, bounded: the spec main caps what it writes at kMaxQuotedBytes
// (with its own "more bytes" note, which this margin lets through); a hostile error.json is cut.
std::string capped(std::string text) { return child::capQuoted(std::move(text), child::kMaxQuotedBytes + 64); }

std::string processLimitNote(const SandboxResult& result, const SandboxLimits& limits) {
  return result.processLimitHit
             ? fmt::format(" (it reached the limit of {} processes and threads)", limits.maxProcesses)
             : "";
}

// A file the spec program left that is not a plain file (a link, a FIFO...) or is too large is
// never read: its name could point anywhere the parent can read.
[[noreturn]] void throwUnreadable(const std::string& display, const char* name, const ChildFile& file,
                                  const SandboxResult& result) {
  throw SpecRunError(Kind::invalid_output,
                     fmt::format("{}: the spec program's {} is {}: not read", display, name, file.error),
                     result.output);
}

// The child's error.json, turned into the error the user sees.
[[noreturn]] void throwChildError(const SpecSource& spec, const SandboxResult& result, const RunOptions& options) {
  const std::string& display = spec.display;
  nlohmann::json error = nlohmann::json::object();
  const ChildFile errorFile = readChildFile(result.workDir.get(), child::kErrorFile, kMaxErrorFileBytes);
  if (errorFile.status == ChildFileStatus::ok) {
    error = nlohmann::json::parse(errorFile.text, nullptr, /*allow_exceptions=*/false);
    if (!error.is_object()) error = nlohmann::json::object();
  } else if (errorFile.status != ChildFileStatus::missing) {
    throwUnreadable(display, child::kErrorFile, errorFile, result);
  }
  auto field = [&](const char* name, const std::string& fallback) {
    const auto it = error.find(name);
    return capped(it != error.end() && it->is_string() ? it->get<std::string>() : fallback);
  };
  const std::string message = field("message", "(no message)");
  switch (result.exitCode) {
    case child::kExitTrace: {
      std::string file = field("file", "");
      if (file.empty()) file = spec.path.string();
      // The spec file as the user typed it; another file (a header it includes) as recorded.
      const std::string shown = file == spec.path.string() ? display : file;
      const auto line = error.find("line");
      const std::string op = field("op", "");
      const std::string detail = field("detail", message);
      throw SpecRunError(Kind::trace_error, file,
                         line != error.end() && line->is_number_integer() ? line->get<int>() : 0,
                         op.empty() ? detail : op + ": " + detail, shown, result.output);
    }
    case child::kExitMemory:
      throw SpecRunError(Kind::memory_limit,
                         fmt::format("{}: the spec ran out of memory (limit: {} of address space)", display,
                                     mib(options.runLimits.addressSpaceBytes)),
                         result.output);
    case child::kExitOutput:
      throw SpecRunError(Kind::output_limit,
                         fmt::format("{}: the traced model's IR could not be written: larger than the limit ({}) "
                                     "or its directory is full",
                                     display, mib(options.runLimits.fileSizeBytes)),
                         result.output);
    case child::kExitError:
      throw SpecRunError(Kind::spec_error,
                         fmt::format("{}: {}{}{}", display, message, processLimitNote(result, options.runLimits),
                                     printedTail(result.output)),
                         result.output);
    default:
      throw SpecRunError(Kind::spec_error,
                         fmt::format("{}: the spec exited with code {} before writing its model{}{}", display,
                                     result.exitCode, processLimitNote(result, options.runLimits),
                                     printedTail(result.output)),
                         result.output);
  }
}

// The record a crashed program's signal handler left in error.json (crash_record.hpp; untrusted:
// any field may be missing or wrong); null without one (a crash before main's set-up, a kill).
nlohmann::json crashRecord(const SandboxResult& result) {
  const ChildFile file = readChildFile(result.workDir.get(), child::kErrorFile, kMaxErrorFileBytes);
  if (file.status != ChildFileStatus::ok) return nullptr;
  return nlohmann::json::parse(file.text, nullptr, /*allow_exceptions=*/false);
}

// The line of the user's code a crash record points to; nullopt when it points to none.
std::optional<CrashLocation> crashLocation(const SpecSource& spec, const CompiledSpec& compiled,
                                           const nlohmann::json& record) {
  if (!record.is_object()) return std::nullopt;
  const auto isUserFile = [&](std::string_view path) {
    return path == spec.path.string() ||
           std::any_of(compiled.userHeaders.begin(), compiled.userHeaders.end(),
                       [&](const fs::path& header) { return path == header.string(); });
  };
  return locateCrash(compiled.binary, record, isUserFile);
}

// Whether the record says the program's stack ran out (a runaway recursion).
bool stackOverflowed(const nlohmann::json& record) {
  if (!record.is_object()) return false;
  const auto it = record.find("stack_overflow");
  return it != record.end() && it->is_boolean() && it->get<bool>();
}

[[noreturn]] void throwRunFailure(const SpecSource& spec, const CompiledSpec& compiled, const SandboxResult& result,
                                  const RunOptions& options) {
  const std::string& display = spec.display;
  const SandboxLimits& limits = options.runLimits;
  if (result.memoryExceeded) {
    throw SpecRunError(Kind::memory_limit,
                       fmt::format("{}: the spec and the processes it started used more than {} of memory "
                                   "together and were stopped",
                                   display, mib(limits.memoryBytes)),
                       result.output);
  }
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
  const nlohmann::json record = crashRecord(result);
  const std::string crashed =
      fmt::format("the spec crashed: {}{}{}{}", describeSignal(result.signal),
                  stackOverflowed(record) ? ": its stack overflowed (a recursion that does not end?)" : "",
                  processLimitNote(result, limits), printedTail(result.output));
  if (const std::optional<CrashLocation> at = crashLocation(spec, compiled, record)) {
    // The spec file as the user typed it; a header of theirs as compiled.
    const std::string shown = at->file == spec.path.string() ? display : at->file;
    throw SpecRunError(Kind::crash, at->file, at->line, crashed, shown, result.output);
  }
  throw SpecRunError(Kind::crash, fmt::format("{}: {}", display, crashed), result.output);
}

// Keeps the memo of call sites the program wrote (child_protocol.hpp) beside its binary, for its
// next run. nndna never reads it: it is the program's own, and the program checks it was written
// by the same binary. Best effort: a memo not kept only makes the next run resolve its call sites.
void keepFrameMemo(int workDir, const CompiledSpec& compiled) {
  struct stat st {};
  if (::fstatat(workDir, child::kFrameMemoFile, &st, AT_SYMLINK_NOFOLLOW) != 0) return;  // none written
  try {
    TempDir staging(compiled.binary.parent_path().parent_path() / "tmp", "frames-");
    const fs::path copy = staging.path() / child::kFrameMemoFile;
    if (copyChildFile(workDir, child::kFrameMemoFile, copy, child::kMaxFrameMemoBytes) != ChildFileStatus::ok) return;
    fs::rename(copy, compiled.frameMemo);  // whole: a concurrent run reads the old memo or this one
  } catch (const std::exception&) {
    // The cache's tmp folder or the memo's place is not writable: the runs go on without it.
  }
}

// Run directories of nndna processes that were killed (SIGKILL leaves them behind).
void sweepStaleRunDirectories() {
  static std::once_flag once;
  std::call_once(once, [] { removeStaleTempDirs(fs::temp_directory_path(), kRunDirPrefix); });
}

ir::TracedModel runSpec(const SpecSource& spec, const RunOptions& options, RunReport& rep) {
  const CompiledSpec compiled = compileSpec(spec, options, &rep);
  const std::string& display = spec.display;
  sweepStaleRunDirectories();
  // Named, not made: inside the sandbox the program's working directory is a tmpfs at this path,
  // and the host's directory is needed only to keep its files, for a working directory without
  // a tmpfs, or to run without namespaces (the sandbox then makes it). An ext4 mkdir and rmdir
  // took 0.5-1 ms of each run.
  TempDir runDir(fs::temp_directory_path(),
                 options.keepTemp ? std::string(kKeptRunDirPrefix) : ownTempDirPrefix(kRunDirPrefix),
                 TempDir::Made::whenNeeded);
  if (options.keepTemp || options.runLimits.workDirBytes == 0) runDir.make();
  if (options.keepTemp) runDir.keep();
  rep.runDir = runDir.path();
  // What the program sees: its binary, libnndna, its source text (the bytes it was compiled
  // from, where its debug information says the spec is) and the user's headers it included.
  SandboxLimits limits = options.runLimits;
  limits.visible.push_back({compiled.source, spec.path});
  limits.visible.insert(limits.visible.end(), compiled.libraries.begin(), compiled.libraries.end());
  for (const fs::path& header : compiled.userHeaders) limits.visible.push_back({header, {}});
  for (const char* setting : child::kHugePageSettings) limits.visible.push_back({setting, {}});
  std::vector<std::string> argv{compiled.binary.string()};
  if (fs::exists(compiled.frameMemo)) {
    limits.visible.push_back({compiled.frameMemo, {}});
    argv.push_back(compiled.frameMemo.string());
  }
  const std::vector<std::string> env{"PATH=/usr/bin:/bin", "HOME=" + runDir.path().string(),
                                     "TMPDIR=" + runDir.path().string(), "LANG=C", "LC_ALL=C",
                                     child::kMallocTunables};
  if (options.onStage) options.onStage({.stage = "run"});
  const SandboxResult result = runSandboxed(argv, env, runDir.path(), limits, options.stop);
  if (options.onStage) options.onStage({.stage = "run", .finished = true, .seconds = result.wallSeconds});
  rep.runSeconds = result.wallSeconds;
  rep.runCpuSeconds = result.cpuSeconds;
  // A run stopped before its program started reports nothing of its own isolation; a compile
  // done for it keeps its place, so that its downgrade (if any) is still said.
  if (result.isolation.programStarted || !rep.isolation) rep.isolation = result.isolation;
  rep.programOutput = result.output;
  if (options.keepTemp && limits.workDirBytes > 0) {
    copyChildFiles(result.workDir.get(), runDir.path(), limits.workDirBytes);
  }
  if (result.cancelled) throw SpecRunError(Kind::cancelled, display + ": the run was cancelled", result.output);

  if (!result.exited || result.outputExceeded || result.timedOut || result.memoryExceeded) {
    throwRunFailure(spec, compiled, result, options);
  }
  if (result.exitCode != child::kExitOk) throwChildError(spec, result, options);

  const auto readStart = std::chrono::steady_clock::now();
  if (options.onStage) options.onStage({.stage = "read"});
  ir::ReadLimits readLimits;
  readLimits.maxBytes = std::min<std::size_t>(readLimits.maxBytes, limits.fileSizeBytes);
  const ChildFile irFile = readChildFile(result.workDir.get(), child::kIrFile, readLimits.maxBytes);
  switch (irFile.status) {
    case ChildFileStatus::ok: break;
    case ChildFileStatus::missing:
      // It exited 0 (checked above) without nndna's main having traced it: a main() of the
      // spec's own, which replaces nndna's, or an exit from a static initialiser.
      throw SpecRunError(Kind::invalid_output,
                         display + ": the spec program wrote no IR: it ended with status 0 before nndna traced it "
                                   "(a spec defines no main() of its own, and does not exit)",
                         result.output);
    case ChildFileStatus::tooLarge:
      throw SpecRunError(Kind::output_limit,
                         fmt::format("{}: the IR is larger than {}", display, mib(readLimits.maxBytes)));
    case ChildFileStatus::notRegular:
    case ChildFileStatus::unreadable: throwUnreadable(display, child::kIrFile, irFile, result);
  }
  try {
    ir::TracedModel model = ir::tracedModelFromCbor(irFile.text, readLimits);
    rep.readSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - readStart).count();
    if (options.onStage) options.onStage({.stage = "read", .finished = true, .seconds = rep.readSeconds});
    keepFrameMemo(result.workDir.get(), compiled);
    return model;
  } catch (const ir::IrFormatError& e) {
    throw SpecRunError(Kind::invalid_output,
                       fmt::format("{}: the IR the spec wrote is invalid: {}", display, capped(e.what())));
  }
}

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

ir::TracedModel runSpecFile(const fs::path& spec, const RunOptions& options, RunReport* report) {
  RunReport local;
  return runSpec(readSpecSource(spec, options.displayPath.value_or(spec.string())), options,
                 report != nullptr ? *report : local);
}

ir::TracedModel runSpecSource(std::string_view source, std::string_view fileName, const RunOptions& options,
                              RunReport* report) {
  const std::string name = storedFileName(fileName);
  const fs::path dir = cacheDirectory(options) / "sources" / sha256Hex(std::string(source)).substr(0, 32);
  const fs::path file = dir / name;
  // The stored copy names the spec in its binary's debug information (and is read where no
  // sandbox root can be built); the compile and the run use `source` itself.
  std::error_code ec;
  if (fs::exists(file, ec)) {
    touchCacheEntry(dir);  // pruning keeps the most recently used sources
  } else {
    fs::create_directories(dir, ec);
    // Written under a name no other thread or process uses, then renamed: a concurrent request
    // for the same source reads either nothing or the whole file, and every writer's rename
    // succeeds.
    static std::atomic<unsigned> written{0};
    const fs::path partial = dir / fmt::format(".{}.{}-{}.tmp", name, ::getpid(), written++);
    {
      std::ofstream out(partial, std::ios::binary | std::ios::trunc);
      out.write(source.data(), static_cast<std::streamsize>(source.size()));
      if (!out) {
        throw SpecRunError(Kind::setup_error, fmt::format("{}: cannot store the source in {}", fileName, dir.string()));
      }
    }
    fs::rename(partial, file, ec);
    if (ec) {
      throw SpecRunError(Kind::setup_error, fmt::format("{}: cannot store the source: {}", fileName, ec.message()));
    }
  }
  const fs::path stored = fs::canonical(file, ec);
  if (ec) throw SpecRunError(Kind::setup_error, fmt::format("{}: cannot store the source: {}", fileName, ec.message()));
  RunReport local;
  const SpecSource spec{stored, std::string(source), options.displayPath.value_or(std::string(fileName))};
  return runSpec(spec, options, report != nullptr ? *report : local);
}

}  // namespace nndna::specrun
