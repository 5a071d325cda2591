// What a compiled spec program (spec_main.cpp) and the spec runner agree on: the files the child
// writes in its working directory, its exit codes, and how much of a message it quotes.
#pragma once

#include <cstddef>
#include <string>

namespace nndna::specrun::child {

inline constexpr const char* kIrFile = "ir.json";        // the traced model (ir::toJson)
inline constexpr const char* kErrorFile = "error.json";  // {"kind", "message", ...} on failure

inline constexpr int kExitOk = 0;
inline constexpr int kExitTrace = 10;   // nndna::TraceError: file, line, op, detail
inline constexpr int kExitError = 11;   // another exception, or no/several NNDNA_SPECs
inline constexpr int kExitMemory = 12;  // std::bad_alloc (RLIMIT_AS)
inline constexpr int kExitOutput = 13;  // the IR could not be written (RLIMIT_FSIZE)

// Messages quote at most this much of what a spec produced (an exception's text, a shape): a
// rank-100,000 input made a 300 KB message, all of it shown in a terminal or sent to a browser.
inline constexpr std::size_t kMaxQuotedBytes = 4000;

// `text` cut to `limit` bytes (at a UTF-8 character boundary), saying how much was left out.
inline std::string capQuoted(std::string text, std::size_t limit = kMaxQuotedBytes) {
  if (text.size() <= limit) return text;
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  const std::size_t dropped = text.size() - cut;
  text.resize(cut);
  return text + "... (" + std::to_string(dropped) + " more bytes not shown)";
}

}  // namespace nndna::specrun::child
