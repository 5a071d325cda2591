// Call-site capture: which user frames issued an op.
//
// Capture walks frame pointers (libnndna and specs are built with -fno-omit-frame-pointer), which
// costs tens of nanoseconds; the return addresses are resolved to file/line/column/function with
// elfutils' libdw once per address and cached, so a trace pays the DWARF cost once per call site.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "nndna/export.hpp"

namespace nndna::tracing {

// Return addresses of the frames above the caller, innermost first, stopping before the frame at
// `boundary` (the frame address of the trace entry: frames above it are the host program's).
// Returns how many were written.
std::size_t walkReturnAddresses(std::span<std::uintptr_t> out, std::uintptr_t boundary);

// One resolved return address.
struct ResolvedFrame {
  bool user = false;  // false: nndna, the standard library, or code without line information
  std::string file;
  int line = 0;
  int column = 0;
  std::uint64_t relativeAddress = 0;  // the address relative to its module's load base
  std::string function;               // short name; user frames only (empty for the others)
};

// Resolves a return address (cached per address; thread-safe).
const ResolvedFrame& resolveReturnAddress(std::uintptr_t address);

// For spec programs (src/specrun/spec_main.cpp), which run one binary again and again: from now
// on, addresses in the program's own code are looked up in a memo (trace/frame_memo.hpp) before
// being resolved, and added to it when they were not. It starts as `memoText`, what an earlier
// run saved (empty: none). False when that text does not read back whole or was written by
// another binary (the memo then starts empty), or when the program has no build ID to tell its
// memo by (no memo is kept). Call it before tracing.
NNDNA_API bool startFrameMemo(std::string_view memoText);

// The memo to save for the next run; nullopt when this run added nothing to the one it started
// from (or no memo was started).
NNDNA_API std::optional<std::string> grownFrameMemo();

// "denoise(Denoiser&, nndna::Tensor)" -> "denoise"; "Block::fwd(nndna::Tensor) const" ->
// "Block::fwd"; lambdas keep their enclosing function: "lossFn::{lambda#1}".
// Exported (NNDNA_API) for tests/core/callsite_test.cpp, which links the shared libnndna.
NNDNA_API std::string shortFunctionName(std::string_view demangled);

}  // namespace nndna::tracing
