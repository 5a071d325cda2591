// The compile step: precompiled header (once per cache and toolchain), cache lookup, g++ in the
// sandbox, diagnostics for the user.
#include <fmt/format.h>

#include <cstdlib>
#include <chrono>
#include <fstream>
#include <sstream>
#include <system_error>

#include "specrun/cache_pruning.hpp"
#include "specrun/diagnostics.hpp"
#include "specrun/sha256.hpp"
#include "specrun/spec_runner.hpp"
#include "specrun/temp_dir.hpp"
#include "specrun/toolchain.hpp"
#include "specrun/compile_cache.hpp"

namespace nndna::specrun {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxSpecBytes = std::uintmax_t{4} << 20;
constexpr const char* kPchHeader = "nndna_pch.hpp";

std::string readText(const fs::path& file) {
  std::ostringstream text;
  text << std::ifstream(file, std::ios::binary).rdbuf();
  return text.str();
}

std::string envOr(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

std::vector<std::string> compilerEnvironment(const fs::path& workDir) {
  return {"PATH=" + envOr("PATH", "/usr/local/bin:/usr/bin:/bin"), "TMPDIR=" + workDir.string(),
          "HOME=" + workDir.string(), "LANG=C", "LC_ALL=C"};
}

// Moves a finished file or directory into the cache; a concurrent writer may have won the race,
// which is fine (both built the same thing).
void publish(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec && !fs::exists(to)) {
    throw SpecRunError(SpecRunError::Kind::setup_error,
                       fmt::format("cannot write {}: {}", to.string(), ec.message()));
  }
}

// A file's identity for the dependency list: size and modification time.
std::string dependencyStamp(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return "missing";
  const auto time = fs::last_write_time(file, ec).time_since_epoch().count();
  return fmt::format("{} {}", size, time);
}

// The user's own headers the spec included, from g++'s -MMD output (a make rule, with "\"
// line continuations and "\ " for spaces): all but the spec, nndna's headers and the PCH.
std::vector<fs::path> userDependencies(const std::string& makeRule, const fs::path& spec,
                                       const fs::path& includeDir, const fs::path& cache) {
  std::vector<fs::path> files;
  const std::size_t colon = makeRule.find(": ");
  if (colon == std::string::npos) return files;
  std::string current;
  auto flush = [&] {
    if (current.empty()) return;
    std::error_code ec;
    const fs::path file = fs::weakly_canonical(current, ec);
    current.clear();
    if (ec || file == spec) return;
    const std::string text = file.string();
    if (text.starts_with(includeDir.string() + "/") || text.starts_with(cache.string() + "/")) return;
    files.push_back(file);
  };
  for (std::size_t i = colon + 2; i < makeRule.size(); ++i) {
    const char c = makeRule[i];
    if (c == '\\' && i + 1 < makeRule.size() && makeRule[i + 1] == '\n') {
      ++i;  // line continuation
      flush();
    } else if (c == '\\' && i + 1 < makeRule.size() && makeRule[i + 1] == ' ') {
      current += ' ';
      ++i;
    } else if (c == ' ' || c == '\n' || c == '\t') {
      flush();
    } else {
      current += c;
    }
  }
  flush();
  return files;
}

// A cached binary is good while every header of the user's it included is unchanged.
bool dependenciesUnchanged(const fs::path& binary) {
  std::ifstream in(binary.string() + ".deps");
  if (!in) return true;  // none recorded
  std::string path;
  std::string stamp;
  while (std::getline(in, path) && std::getline(in, stamp)) {
    if (dependencyStamp(path) != stamp) return false;
  }
  return true;
}

}  // namespace

fs::path cacheDirectory(const RunOptions& options) {
  if (options.cacheDir) return *options.cacheDir;
  if (const char* dir = std::getenv("NNDNA_CACHE_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    return fs::path(xdg) / "nndna";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".cache" / "nndna";
  }
  return fs::temp_directory_path() / "nndna-cache";
}

std::optional<fs::path> precompiledHeader(const Toolchain& tc, const fs::path& cache,
                                          const SandboxLimits& limits, RunReport* report) {
  std::string flags;
  for (const std::string& f : specCompileFlags()) flags += f + " ";
  const fs::path dir = cache / "pch" / sha256Hex(tc.identity + "\n" + flags).substr(0, 24);
  const fs::path header = dir / kPchHeader;
  if (fs::exists(fs::path(header.string() + ".gch"))) {
    touchCacheEntry(dir);
    return header;
  }

  TempDir work(cache / "tmp", "pch-");
  {
    std::ofstream out(work.path() / kPchHeader);
    out << "// nndna's precompiled header (built once per cache and toolchain)\n"
           "#include <nndna/nndna.hpp>\n";
  }
  std::vector<std::string> argv{tc.compiler.string()};
  for (const std::string& f : specCompileFlags()) argv.push_back(f);
  argv.insert(argv.end(), {"-I", tc.includeDir.string(), "-x", "c++-header", kPchHeader, "-o",
                           std::string(kPchHeader) + ".gch"});
  const SandboxResult result = runSandboxed(argv, compilerEnvironment(work.path()), work.path(), limits);
  if (report != nullptr) {
    report->pchBuilt = true;
    report->pchSeconds = result.wallSeconds;
  }
  if (!result.exited || result.exitCode != 0) return std::nullopt;  // compile without it
  publish(work.path(), dir);
  return header;
}

fs::path compileSpecFile(const fs::path& spec, const RunOptions& options, RunReport* report) {
  const std::string display = options.displayPath.value_or(spec.string());
  std::error_code ec;
  const fs::path absolute = fs::canonical(spec, ec);
  if (ec || !fs::is_regular_file(absolute)) {
    throw SpecRunError(SpecRunError::Kind::setup_error,
                       fmt::format("{}: cannot read the spec file: {}", display,
                                   ec ? ec.message() : "not a regular file"));
  }
  if (fs::file_size(absolute) > kMaxSpecBytes) {
    throw SpecRunError(SpecRunError::Kind::setup_error,
                       fmt::format("{}: the spec file is larger than {} MiB", display, kMaxSpecBytes >> 20));
  }
  std::ostringstream text;
  text << std::ifstream(absolute, std::ios::binary).rdbuf();

  const Toolchain tc = toolchain();
  const fs::path cache = cacheDirectory(options);
  std::string flags;
  for (const std::string& f : specCompileFlags()) flags += f + " ";
  // The absolute path is part of the key: the binary's debug information names it, and the
  // traced call sites (and their source text) are read from it.
  const std::string key = sha256Hex(fmt::format("{}\n{}\n{}\n{}", tc.identity, flags,
                                                absolute.string(), text.str()));
  const fs::path binary = cache / "bin" / key.substr(0, 32);
  if (report != nullptr) {
    report->binary = binary;
    report->installedToolchain = tc.installed;
  }
  const auto started = std::chrono::steady_clock::now();
  auto stageDone = [&](bool cacheHit) {
    if (!options.onStage) return;
    options.onStage({.stage = "compile", .finished = true,
                     .seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                     .cacheHit = cacheHit});
  };
  if (options.onStage) options.onStage({.stage = "compile"});
  if (options.useCache && fs::exists(binary) && dependenciesUnchanged(binary)) {
    if (report != nullptr) report->cacheHit = true;
    touchCacheEntry(binary);
    stageDone(true);
    return binary;
  }

  const std::optional<fs::path> pch = precompiledHeader(tc, cache, options.compileLimits, report);
  TempDir work(cache / "tmp", "compile-");
  std::vector<std::string> argv{tc.compiler.string()};
  for (const std::string& f : specCompileFlags()) argv.push_back(f);
  argv.insert(argv.end(), {"-I", tc.includeDir.string()});
  if (pch) argv.insert(argv.end(), {"-include", pch->string()});
  argv.insert(argv.end(), {absolute.string(), tc.specMain.string(), tc.library.string(),
                           "-Wl,-rpath," + tc.library.parent_path().string(), "-o", "spec",
                           "-MMD", "-MF", "spec.d"});
  // --no-fork: by default mold finishes in a forked child that nobody waits for, so its CPU time
  // would be missing from the compile's (RunReport::compileCpuSeconds).
  if (tc.mold) argv.insert(argv.end(), {"-fuse-ld=mold", "-Wl,--no-fork"});
  const SandboxResult result = runSandboxed(argv, compilerEnvironment(work.path()), work.path(),
                                            options.compileLimits, options.stop);
  if (report != nullptr) {
    report->compileSeconds = result.wallSeconds;
    report->compileCpuSeconds = result.cpuSeconds;
  }
  stageDone(false);
  if (result.cancelled) {
    throw SpecRunError(SpecRunError::Kind::cancelled, fmt::format("{}: the compile was cancelled", display));
  }
  if (result.timedOut || result.cpuExceeded) {
    throw SpecRunError(SpecRunError::Kind::timeout,
                       fmt::format("{}: compiling took longer than the limit ({} s)", display,
                                   result.timedOut ? options.compileLimits.wallTime.count() / 1000
                                                   : static_cast<long long>(options.compileLimits.cpuSeconds)),
                       result.output);
  }
  if (!result.exited) {
    throw SpecRunError(SpecRunError::Kind::compile_error,
                       fmt::format("{}: the compiler was killed by {} (memory limit {} MiB?)\n{}", display,
                                   describeSignal(result.signal), options.compileLimits.addressSpaceBytes >> 20,
                                   trimCompilerOutput(result.output, {absolute.string(), display})),
                       result.output);
  }
  if (result.exitCode != 0) {
    std::string message = trimCompilerOutput(result.output, {absolute.string(), display});
    while (message.ends_with('\n')) message.pop_back();
    throw SpecRunError(SpecRunError::Kind::compile_error, message, result.output);
  }
  // The user's own headers are not in the key: record them, checked on every cache hit.
  {
    std::ofstream deps(work.path() / "spec.deps");
    for (const fs::path& dep : userDependencies(readText(work.path() / "spec.d"), absolute, tc.includeDir, cache)) {
      deps << dep.string() << "\n" << dependencyStamp(dep) << "\n";
    }
  }
  publish(work.path() / "spec.deps", fs::path(binary.string() + ".deps"));
  publish(work.path() / "spec", binary);
  pruneCache(cache, binary);  // only after a compile: a cache hit stays a hash and a stat
  return binary;
}

}  // namespace nndna::specrun
