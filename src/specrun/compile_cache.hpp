// Internal to the spec runner: the precompiled header of nndna/nndna.hpp, built once per cache
// directory and toolchain (compiler, libnndna, headers, flags).
#pragma once

#include <filesystem>
#include <optional>

#include "specrun/sandbox.hpp"

namespace nndna::specrun {

struct RunReport;
struct Toolchain;

// The header to pass with -include (its .gch lies next to it); nullopt if it could not be built,
// in which case specs compile without it (slower, same result).
std::optional<std::filesystem::path> precompiledHeader(const Toolchain& toolchain,
                                                       const std::filesystem::path& cache,
                                                       const SandboxLimits& limits, RunReport* report);

}  // namespace nndna::specrun
