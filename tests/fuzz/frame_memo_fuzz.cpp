// Fuzz target: the reader of the call-site memo a spec program keeps between its runs
// (src/trace/frame_memo.cpp). The memo comes from an earlier run of untrusted code; the reader must
// take anything without crashing, refuse what is not a whole memo of the given program, and what it
// accepts must be a fixed point: written again it reads back the same, and writes the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "trace/frame_memo.hpp"

namespace {

constexpr std::string_view kProgram = "5eed";

bool sameFrame(const nndna::tracing::ResolvedFrame& a, const nndna::tracing::ResolvedFrame& b) {
  return a.user == b.user && a.file == b.file && a.line == b.line && a.column == b.column &&
         a.relativeAddress == b.relativeAddress && a.function == b.function;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace nndna::tracing;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::optional<FrameMemo> memo = readFrameMemo(text, kProgram);
  if (!memo) return 0;
  for (const auto& [address, frame] : *memo) {
    if (frame.relativeAddress != address || frame.line < 0 || frame.column < 0) std::abort();
  }
  const std::string written = writeFrameMemo(*memo, kProgram);
  const std::optional<FrameMemo> again = readFrameMemo(written, kProgram);
  if (!again || again->size() != memo->size()) std::abort();
  for (const auto& [address, frame] : *memo) {
    const auto it = again->find(address);
    if (it == again->end() || !sameFrame(it->second, frame)) std::abort();
  }
  if (writeFrameMemo(*again, kProgram) != written) std::abort();
  if (readFrameMemo(written, "another program")) std::abort();
  return 0;
}
