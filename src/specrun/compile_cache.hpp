// Internal to the spec runner: the compile step. The spec's text is read once; the bytes that
// are hashed into the cache key are the bytes the compiler gets (a snapshot written by nndna,
// never the user's path re-read by g++) and the bytes the spec program later reads as its
// source text (kept next to the binary). See docs/specrun.md, "Cache".
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "specrun/sandbox.hpp"

namespace nndna::specrun {

struct RunOptions;
struct RunReport;
struct Toolchain;

// A spec as it is compiled: its absolute path (the name its debug information gives it, and
// where the spec program finds its source text), its text, and its name in messages.
struct SpecSource {
  std::filesystem::path path;
  std::string text;
  std::string display;
};

// Reads the spec file once (a regular file of at most 4 MiB). Throws SpecRunError{setup_error}.
SpecSource readSpecSource(const std::filesystem::path& spec, const std::string& display);

struct CompiledSpec {
  std::filesystem::path binary;
  std::filesystem::path source;  // the exact text it was compiled from (<binary>.cpp)
  // What its runs resolved of their call sites (<binary>.frames, written by a run, maybe absent):
  // given to the next run, never read by nndna (spec_runner.cpp).
  std::filesystem::path frameMemo;
  std::vector<std::filesystem::path> userHeaders;  // the user's own headers it included
  // The libnndna files it loads (the real file under each of its names: libnndna.so, the
  // soname, the versioned file), to make visible to it.
  std::vector<VisiblePath> libraries;
};

// Compiles `spec` (or finds it in the cache). Throws SpecRunError.
CompiledSpec compileSpec(const SpecSource& spec, const RunOptions& options, RunReport* report);

// The header to pass with -include (its .gch lies next to it): nndna.hpp and `standardHeaders`
// (names from precompilableHeaders, in its order), built once per cache, toolchain and set;
// nullopt if it could not be built, in which case specs compile without it (slower, same
// result). A build that failed because the toolchain lacks one of the headers is remembered in
// the cache (not tried again); any other failure is not (a limit, a stop request: nothing is
// kept, the next compile builds it).
std::optional<std::filesystem::path> precompiledHeader(const Toolchain& toolchain,
                                                       const std::filesystem::path& cache,
                                                       std::span<const std::string_view> standardHeaders,
                                                       const SandboxLimits& limits, RunReport* report,
                                                       std::stop_token stop = {});

// The same header if it is built already; nullopt if not (or if its build failed). Never builds.
std::optional<std::filesystem::path> builtPrecompiledHeader(const Toolchain& toolchain,
                                                            const std::filesystem::path& cache,
                                                            std::span<const std::string_view> standardHeaders);

}  // namespace nndna::specrun
