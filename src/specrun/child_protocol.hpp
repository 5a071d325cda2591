// What a compiled spec program (spec_main.cpp) and the spec runner agree on: the files the child
// writes in its working directory and its exit codes.
#pragma once

namespace nndna::specrun::child {

inline constexpr const char* kIrFile = "ir.json";        // the traced model (ir::toJson)
inline constexpr const char* kErrorFile = "error.json";  // {"kind", "message", ...} on failure

inline constexpr int kExitOk = 0;
inline constexpr int kExitTrace = 10;   // nndna::TraceError: file, line, op, detail
inline constexpr int kExitError = 11;   // another exception, or no/several NNDNA_SPECs
inline constexpr int kExitMemory = 12;  // std::bad_alloc (RLIMIT_AS)
inline constexpr int kExitOutput = 13;  // the IR could not be written (RLIMIT_FSIZE)

}  // namespace nndna::specrun::child
