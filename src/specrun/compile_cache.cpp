// The compile step: precompiled header (once per cache and toolchain), cache lookup, g++ in the
// sandbox on a snapshot of the hashed text, diagnostics for the user.
#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>  // renameat2
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <regex>
#include <system_error>

#include "specrun/cache_pruning.hpp"
#include "specrun/child_files.hpp"
#include "specrun/diagnostics.hpp"
#include "specrun/pch_builder.hpp"
#include "specrun/sha256.hpp"
#include "specrun/spec_runner.hpp"
#include "specrun/standard_headers.hpp"
#include "specrun/temp_dir.hpp"
#include "specrun/toolchain.hpp"
#include "specrun/unique_fd.hpp"
#include "specrun/compile_cache.hpp"

namespace nndna::specrun {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxSpecBytes = std::uintmax_t{4} << 20;
constexpr const char* kPchHeader = "nndna_pch.hpp";
// In a PCH's directory instead of its .gch: the compiler refused the header (its output).
constexpr const char* kPchFailed = "build-failed";
// The compiler's outputs, in its working directory (a tmpfs of its own).
constexpr const char* kBinaryName = "spec";
constexpr const char* kDepsName = "spec.d";
constexpr std::uint64_t kMaxDepsBytes = 1 << 20;

std::string envOr(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

std::vector<std::string> compilerEnvironment(const fs::path& workDir) {
  return {"PATH=" + envOr("PATH", "/usr/local/bin:/usr/bin:/bin"), "TMPDIR=" + workDir.string(),
          "HOME=" + workDir.string(), "LANG=C", "LC_ALL=C"};
}

// Whether publish may replace what is already in the cache.
enum class Publish { keepExisting, replaceExisting };

// Moves a finished file or directory into the cache. With keepExisting, a concurrent writer that
// won the race keeps its entry (both built the same thing): replacing it would pull the binary
// from under a spec program already running from it (/proc/self/maps then says "(deleted)" and
// its call sites lose their lines). replaceExisting is for an entry known to be stale.
void publish(const fs::path& from, const fs::path& to, Publish mode = Publish::keepExisting) {
  fs::create_directories(to.parent_path());
  const unsigned flags = mode == Publish::keepExisting ? RENAME_NOREPLACE : 0;
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), flags) == 0) return;
  const int error = errno;
  std::error_code ec;
  if (fs::exists(to, ec)) {
    fs::remove_all(from, ec);  // the entry in the cache stays; ours is not needed
    return;
  }
  throw SpecRunError(SpecRunError::Kind::setup_error,
                     fmt::format("cannot write {}: {}", to.string(), std::strerror(error)));
}

void writeFile(const fs::path& file, std::string_view text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) {
    throw SpecRunError(SpecRunError::Kind::setup_error, fmt::format("cannot write {}", file.string()));
  }
}

std::vector<VisiblePath> libraryFiles(const fs::path& library) {
  std::vector<VisiblePath> files;
  const std::string stem = "libnndna.so";
  std::error_code ec;
  for (fs::directory_iterator it(library.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().starts_with(stem)) files.push_back({it->path(), it->path()});
  }
  return files;
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

// The headers recorded for a cached binary, or nullopt when one of them changed since.
std::optional<std::vector<fs::path>> unchangedDependencies(const fs::path& binary) {
  std::vector<fs::path> headers;
  std::ifstream in(binary.string() + ".deps");
  std::string path;
  std::string stamp;
  while (std::getline(in, path) && std::getline(in, stamp)) {
    if (dependencyStamp(path) != stamp) return std::nullopt;
    headers.emplace_back(path);
  }
  return headers;
}

std::string flagsText() {
  std::string flags;
  for (const std::string& f : specCompileFlags()) flags += f + " ";
  return flags;
}

// g++ says only "No such file or directory" for a header the sandbox hides: one outside the spec's
// folder (an absolute path, or one through ".."), which may well exist on the host. The note says
// why, for any such path, without looking at the host (a server must not tell its visitors which
// of its files exist).
std::string outsideIncludeNote(const std::string& diagnostics) {
  static const std::regex kMissing(R"(fatal error: ((/|\.\./)[^:\n]*): No such file or directory)");
  std::smatch found;
  if (!std::regex_search(diagnostics, found, kMissing)) return {};
  return fmt::format(
      "\nnote: the compile sees the system's headers, nndna's and the spec's own folder only; {} is outside "
      "them (a spec includes only its own folder's files)",
      found[1].str());
}

[[noreturn]] void throwCompileFailure(const SandboxResult& result, const SandboxLimits& limits,
                                      const std::string& display, const DiagnosticPaths& paths) {
  using Kind = SpecRunError::Kind;
  if (result.cancelled) throw SpecRunError(Kind::cancelled, fmt::format("{}: the compile was cancelled", display));
  if (result.timedOut || result.cpuExceeded) {
    throw SpecRunError(Kind::timeout,
                       fmt::format("{}: compiling took longer than the limit ({} s)", display,
                                   result.timedOut ? limits.wallTime.count() / 1000
                                                   : static_cast<long long>(limits.cpuSeconds)),
                       result.output);
  }
  if (result.memoryExceeded) {
    throw SpecRunError(Kind::memory_limit,
                       fmt::format("{}: the compiler used more than {} MiB of memory and was stopped", display,
                                   limits.memoryBytes >> 20),
                       result.output);
  }
  if (result.outputExceeded) {
    throw SpecRunError(Kind::output_limit,
                       fmt::format("{}: the compiler printed more than {} MiB and was stopped", display,
                                   limits.outputBytes >> 20),
                       result.output);
  }
  if (!result.exited) {
    throw SpecRunError(Kind::compile_error,
                       fmt::format("{}: the compiler was killed by {} (memory limit {} MiB?)\n{}", display,
                                   describeSignal(result.signal), limits.addressSpaceBytes >> 20,
                                   trimCompilerOutput(result.output, paths)),
                       result.output);
  }
  std::string message = trimCompilerOutput(result.output, paths);
  while (message.ends_with('\n')) message.pop_back();
  message += outsideIncludeNote(message);
  throw SpecRunError(Kind::compile_error, message, result.output);
}

}  // namespace

namespace {

fs::path configuredCacheDirectory(const RunOptions& options) {
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

}  // namespace

// Absolute: the compiler runs in a directory of its own, and the sandbox binds paths as given.
fs::path cacheDirectory(const RunOptions& options) { return fs::absolute(configuredCacheDirectory(options)); }

namespace {

// Where the PCH of a set of standard headers lives: <cache>/pch/<key>/, holding the header text
// and, once built, its .gch, or a marker that its build failed.
struct PchEntry {
  std::string text;
  fs::path dir;
  fs::path header;
  fs::path gch() const { return header.string() + ".gch"; }
  fs::path failed() const { return dir / kPchFailed; }
};

// Whether the PCH build failed because the toolchain lacks one of `standardHeaders`: g++ exits
// with 1 after "fatal error: <name>: No such file or directory" (LANG=C), nothing else.
bool headerMissing(const SandboxResult& result, std::span<const std::string_view> standardHeaders) {
  if (!result.exited || result.exitCode != 1 || result.cancelled || result.timedOut || result.cpuExceeded ||
      result.memoryExceeded || result.outputExceeded || result.processLimitHit) {
    return false;
  }
  return std::any_of(standardHeaders.begin(), standardHeaders.end(), [&](std::string_view name) {
    return result.output.find(fmt::format("fatal error: {}: No such file or directory", name)) != std::string::npos;
  });
}

PchEntry pchEntry(const Toolchain& tc, const fs::path& cache, std::span<const std::string_view> standardHeaders) {
  std::string text = "// nndna's precompiled header (built once per cache, toolchain and set of standard headers)\n"
                     "#include <nndna/nndna.hpp>\n";
  for (const std::string_view name : standardHeaders) text += fmt::format("#include <{}>\n", name);
  const fs::path dir = cache / "pch" / sha256Hex(tc.identity + "\n" + flagsText() + "\n" + text).substr(0, 24);
  return {std::move(text), dir, dir / kPchHeader};
}

}  // namespace

std::optional<fs::path> builtPrecompiledHeader(const Toolchain& tc, const fs::path& cache,
                                               std::span<const std::string_view> standardHeaders) {
  const PchEntry entry = pchEntry(tc, cache, standardHeaders);
  if (!fs::exists(entry.gch())) return std::nullopt;
  touchCacheEntry(entry.dir);
  return entry.header;
}

std::optional<fs::path> precompiledHeader(const Toolchain& tc, const fs::path& cache,
                                          std::span<const std::string_view> standardHeaders,
                                          const SandboxLimits& limits, RunReport* report, std::stop_token stop) {
  const PchEntry entry = pchEntry(tc, cache, standardHeaders);
  if (fs::exists(entry.gch())) {
    touchCacheEntry(entry.dir);
    return entry.header;
  }
  if (fs::exists(entry.failed())) {
    touchCacheEntry(entry.dir);
    return std::nullopt;
  }

  // <work>/nndna_pch.hpp is read by the compiler (read-only); the .gch is written in <work>/out,
  // its tmpfs, copied out, and <work> becomes the cache entry.
  TempDir work(cache / "tmp", "pch-");
  writeFile(work.path() / kPchHeader, entry.text);
  const fs::path out = work.path() / "out";
  fs::create_directory(out);
  const std::string gch = std::string(kPchHeader) + ".gch";
  std::vector<std::string> argv{tc.compiler.string()};
  for (const std::string& f : specCompileFlags()) argv.push_back(f);
  argv.insert(argv.end(), {"-I", tc.includeDir.string(), "-x", "c++-header", (work.path() / kPchHeader).string(),
                           "-o", gch});
  SandboxLimits pchLimits = limits;
  pchLimits.visible.push_back({tc.includeDir, {}});
  pchLimits.visible.push_back({work.path(), {}});
  const SandboxResult result = runSandboxed(argv, compilerEnvironment(out), out, pchLimits, stop);
  if (report != nullptr) {
    report->pchBuilt = true;
    report->pchSeconds += result.wallSeconds;  // two when a PCH with standard headers failed
    report->isolation = result.isolation;
  }
  if (headerMissing(result, standardHeaders)) {
    // Remembered: later compiles do not retry the ~1 s build. Anything else that stops a build
    // (a limit, a cancel, a compiler killed by the host) is not: the next compile tries again.
    fs::remove(out);
    writeFile(work.path() / kPchFailed, result.output);
    publish(work.path(), entry.dir);
    return std::nullopt;
  }
  if (!result.exited || result.exitCode != 0) return std::nullopt;  // compile without it
  if (copyChildFile(result.workDir.get(), gch, work.path() / gch, limits.fileSizeBytes) != ChildFileStatus::ok) {
    return std::nullopt;
  }
  fs::remove(out);
  publish(work.path(), entry.dir);
  // A concurrent build of the same set may have published first (its .gch, or its marker).
  if (!fs::exists(entry.gch())) return std::nullopt;
  return entry.header;
}

SpecSource readSpecSource(const fs::path& spec, const std::string& display) {
  using Kind = SpecRunError::Kind;
  std::error_code ec;
  const fs::path absolute = fs::canonical(spec, ec);
  auto fail = [&](const std::string& why) {
    return SpecRunError(Kind::setup_error, fmt::format("{}: cannot read the spec file: {}", display, why));
  };
  if (ec) throw fail(ec.message());
  const UniqueFd fd(::open(absolute.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0) throw fail(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw fail("not a regular file");
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxSpecBytes) {
    throw SpecRunError(Kind::setup_error,
                       fmt::format("{}: the spec file is larger than {} MiB", display, kMaxSpecBytes >> 20));
  }
  SpecSource source{absolute, std::string(static_cast<std::size_t>(st.st_size), '\0'), display};
  std::size_t got = 0;
  while (got < source.text.size()) {
    const ssize_t n = ::read(fd.get(), source.text.data() + got, source.text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw fail(std::strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  source.text.resize(got);
  return source;
}

CompiledSpec compileSpec(const SpecSource& spec, const RunOptions& options, RunReport* report) {
  // The compile names the spec's folder in -ffile-prefix-map=OLD=NEW, which g++ splits at its
  // last '=': a NEW with '=' in it would leave the compile's snapshot path in the binary, and the
  // spec's errors and code lines would point at a file deleted after the compile.
  if (const std::string folder = spec.path.parent_path().string(); folder.find('=') != std::string::npos) {
    throw SpecRunError(SpecRunError::Kind::setup_error,
                       fmt::format("{}: the spec's folder {} has '=' in its path, which g++ cannot map "
                                   "(-ffile-prefix-map); move the spec to a folder without '='",
                                   spec.display, folder));
  }
  const Toolchain tc = toolchain();
  const fs::path cache = cacheDirectory(options);
  // The absolute path is part of the key: the binary's debug information names it, and the
  // traced call sites (and their source text) are read from it.
  const std::string key =
      sha256Hex(fmt::format("{}\n{}\n{}\n{}", tc.identity, flagsText(), spec.path.string(), spec.text));
  CompiledSpec compiled;
  compiled.binary = cache / "bin" / key.substr(0, 32);
  compiled.source = fs::path(compiled.binary.string() + ".cpp");
  compiled.frameMemo = fs::path(compiled.binary.string() + ".frames");
  compiled.libraries = libraryFiles(tc.library);
  if (report != nullptr) {
    report->binary = compiled.binary;
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
  // A binary there now is stale (a header changed) or unwanted (no cache): this compile replaces
  // it. None there: a concurrent compile of the same text may publish first, and its binary
  // stays (a spec may already run from it).
  const Publish mode = fs::exists(compiled.binary) ? Publish::replaceExisting : Publish::keepExisting;
  if (options.useCache && fs::exists(compiled.binary) && fs::exists(compiled.source)) {
    if (std::optional<std::vector<fs::path>> headers = unchangedDependencies(compiled.binary)) {
      if (report != nullptr) report->cacheHit = true;
      compiled.userHeaders = std::move(*headers);
      touchCacheEntry(compiled.binary);
      stageDone(true);
      return compiled;
    }
  }

  // The standard headers the spec includes go into its PCH too (a PCH per set of them); if that
  // one cannot be built, the PCH of nndna.hpp alone. With a builder, a set's PCH not built yet
  // is built there, and this compile uses the PCH of nndna.hpp alone (parsing the headers itself).
  const std::vector<std::string_view> standardHeaders = precompilableHeaders(spec.text);
  std::optional<fs::path> pch;
  if (options.pchBuilder != nullptr && !standardHeaders.empty()) {
    pch = builtPrecompiledHeader(tc, cache, standardHeaders);
    if (!pch) options.pchBuilder->request(tc, cache, standardHeaders, options.compileLimits);
  } else {
    pch = precompiledHeader(tc, cache, standardHeaders, options.compileLimits, report, options.stop);
  }
  if (!pch && !standardHeaders.empty() && !options.stop.stop_requested()) {
    pch = precompiledHeader(tc, cache, {}, options.compileLimits, report, options.stop);
  }
  if (report != nullptr && pch) report->pch = *pch;
  if (options.stop.stop_requested()) {
    throw SpecRunError(SpecRunError::Kind::cancelled, fmt::format("{}: the compile was cancelled", spec.display));
  }
  // <work>/src/<name>: the snapshot of the hashed text, which the compiler reads (read-only) and
  // -ffile-prefix-map names by the spec's own directory, so the binary's debug information,
  // __FILE__ and the run's source text all say spec.path. Its own headers are found through
  // -iquote. The compiler writes in <work>/out, its tmpfs.
  TempDir work(cache / "tmp", "compile-");
  const fs::path specDir = spec.path.parent_path();
  const fs::path snapshotDir = work.path() / "src";
  fs::create_directory(snapshotDir);
  const fs::path snapshot = snapshotDir / spec.path.filename();
  writeFile(snapshot, spec.text);
  const fs::path out = work.path() / "out";
  fs::create_directory(out);
  std::vector<std::string> argv{tc.compiler.string()};
  for (const std::string& f : specCompileFlags()) argv.push_back(f);
  argv.insert(argv.end(), {"-I", tc.includeDir.string(), "-iquote", specDir.string(),
                           "-ffile-prefix-map=" + snapshotDir.string() + "=" + specDir.string()});
  if (pch) argv.insert(argv.end(), {"-include", pch->string()});
  // -x c++: the spec is C++ whatever its name ends in (g++ would take a .hpp for a header to
  // precompile, a .txt for a linker script).
  argv.insert(argv.end(), {"-x", "c++", snapshot.string(), "-x", "none", tc.specMain.string(), tc.library.string(),
                           "-Wl,-rpath," + tc.library.parent_path().string(), "-o", kBinaryName, "-MMD", "-MF",
                           kDepsName});
  // --no-fork: by default mold finishes in a forked child that nobody waits for, so its CPU time
  // would be missing from the compile's (RunReport::compileCpuSeconds).
  if (tc.mold) argv.insert(argv.end(), {"-fuse-ld=mold", "-Wl,--no-fork"});
  SandboxLimits limits = options.compileLimits;
  for (const fs::path& path : {tc.includeDir, tc.specMain, specDir, work.path()}) limits.visible.push_back({path, {}});
  if (pch) limits.visible.push_back({pch->parent_path(), {}});
  limits.visible.insert(limits.visible.end(), compiled.libraries.begin(), compiled.libraries.end());
  const SandboxResult result = runSandboxed(argv, compilerEnvironment(out), out, limits, options.stop);
  if (report != nullptr) {
    report->compileSeconds = result.wallSeconds;
    report->compileCpuSeconds = result.cpuSeconds;
    report->isolation = result.isolation;
  }
  stageDone(false);
  const DiagnosticPaths paths{snapshot.string(), spec.display};
  if (result.cancelled || !result.exited || result.exitCode != 0 || result.memoryExceeded) {
    throwCompileFailure(result, options.compileLimits, spec.display, paths);
  }
  const fs::path binary = work.path() / kBinaryName;
  const ChildFile deps = readChildFile(result.workDir.get(), kDepsName, kMaxDepsBytes);
  if (copyChildFile(result.workDir.get(), kBinaryName, binary, limits.fileSizeBytes, 0755) != ChildFileStatus::ok ||
      deps.status != ChildFileStatus::ok) {
    throw SpecRunError(SpecRunError::Kind::setup_error,
                       fmt::format("{}: the compiler did not leave a program behind", spec.display), result.output);
  }
  // The user's own headers are not in the key: record them, checked on every cache hit.
  {
    std::ofstream record(work.path() / "spec.deps");
    for (const fs::path& dep : userDependencies(deps.text, snapshot, tc.includeDir, cache)) {
      record << dep.string() << "\n" << dependencyStamp(dep) << "\n";
      compiled.userHeaders.push_back(dep);
    }
  }
  // The binary last: its presence is what makes a cache hit. Its companions are always replaced
  // (a binary's may be left from an interrupted compile); nothing runs from them.
  publish(snapshot, compiled.source, Publish::replaceExisting);
  publish(work.path() / "spec.deps", fs::path(compiled.binary.string() + ".deps"), Publish::replaceExisting);
  publish(binary, compiled.binary, mode);
  pruneCache(cache, compiled.binary);  // only after a compile: a cache hit stays a hash and a stat
  return compiled;
}

fs::path compileSpecFile(const fs::path& spec, const RunOptions& options, RunReport* report) {
  return compileSpec(readSpecSource(spec, options.displayPath.value_or(spec.string())), options, report).binary;
}

}  // namespace nndna::specrun
