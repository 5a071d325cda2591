// What a compiled spec program (spec_main.cpp) and the spec runner agree on: the files the child
// writes in its working directory, its exit codes, and how much of a message it quotes.
#pragma once

#include <array>
#include <cstddef>
#include <string>

namespace nndna::specrun::child {

inline constexpr const char* kIrFile = "ir.cbor";        // the traced model (ir::writeCbor)
inline constexpr const char* kErrorFile = "error.json";  // {"kind", "message", ...} on failure
// The program's resolved call sites (trace/frame_memo.hpp), written after a successful trace when
// it resolved any its memo did not hold. The runner keeps it beside the binary, unread, and gives
// its path to the next run as the program's one argument.
inline constexpr const char* kFrameMemoFile = "frames.json";
inline constexpr std::size_t kMaxFrameMemoBytes = 4 << 20;

inline constexpr int kExitOk = 0;
inline constexpr int kExitTrace = 10;   // nndna::TraceError: file, line, op, detail
inline constexpr int kExitError = 11;   // another exception, or no/several NNDNA_SPECs
inline constexpr int kExitMemory = 12;  // std::bad_alloc (RLIMIT_AS)
inline constexpr int kExitOutput = 13;  // the IR could not be written (RLIMIT_FSIZE)

// The C library's malloc settings the program starts with (glibc reads GLIBC_TUNABLES before
// main). A trace builds its graph in growing vectors (of ~250-byte ops when this was measured; 56
// now), and on this machine kind (a Firecracker VM) each fresh 4 KiB page costs a slow fault: the
// 200k-op loop spec faulted in 75k pages, and most of its run (1.6-1.9 s) was spent in them.
// `hugetlb=1` makes malloc ask for transparent huge pages (madvise), 2 MiB per fault; `top_pad`
// grows the heap 64 MiB at a time.
// The program lives for one trace, so the larger pages cost nothing later (docs/specrun.md).
inline constexpr const char* kMallocTunables =
    "GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864";
// What glibc reads to learn the machine's huge-page mode and size before it asks for huge pages:
// without them (a minimal root has no /sys) `hugetlb=1` does nothing. The runner shows the
// program these two files, read-only; a machine without them runs with 4 KiB pages.
inline constexpr std::array<const char*, 2> kHugePageSettings{
    "/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"};

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
