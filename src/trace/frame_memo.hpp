// A spec program's resolved return addresses, kept between its runs.
//
// Every run of a compiled spec program resolves the same return addresses in its own code to the
// same file, line and function: a pure function of the binary. Resolving them takes elfutils'
// libdw (loading it and four more libraries, reading the program's DWARF): about 2 of the 9.5-10
// ms GPT-2's spec program ran for when this was measured (docs/specrun.md). So a run saves what it
// resolved in the program's own code (spec_main.cpp writes it to its working directory; the runner
// keeps it beside the binary in the compile cache, without reading it) and the next run of the
// same binary starts from it, loading libdw only for an address it does not hold.
//
// The text is written and read only by spec programs (untrusted code, in the sandbox): a memo
// that does not read back whole is ignored, never trusted in part. Exported (NNDNA_API) for
// tests/core/frame_memo_test.cpp and tests/fuzz/frame_memo_fuzz.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "nndna/export.hpp"
#include "trace/callsite.hpp"

namespace nndna::tracing {

// Keyed by the address relative to the program's load base (ResolvedFrame::relativeAddress).
using FrameMemo = std::unordered_map<std::uint64_t, ResolvedFrame>;

// JSON: {"nndna_frame_memo": 1, "program": build ID, "frames": [[address, user, file, line,
// column, function], ...]}, ordered by address (the same memo, the same bytes). `program` is the
// program's GNU build ID (OwnModule::programBuildId): a memo is only ever read by the binary that
// wrote it, whatever file the runner gives it.
NNDNA_API std::string writeFrameMemo(const FrameMemo& frames, std::string_view program);

// nullopt when `text` is not a whole memo of this version written by `program` (any entry of the
// wrong type or out of range, a repeated address).
NNDNA_API std::optional<FrameMemo> readFrameMemo(std::string_view text, std::string_view program);

}  // namespace nndna::tracing
