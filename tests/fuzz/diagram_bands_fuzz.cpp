// Fuzz target: the cutter of a large diagram's DOT into bands (src/diagram/bands.cpp), which
// re-reads the DOT assemble() wrote — user text (names, labels) included, escaped. Input: one
// byte for the band budget (1-64 boxes, so that the examples' diagrams are cut), then the DOT.
//
// The cutter's contract is DOT as assemble() writes it; other text may be refused with
// std::logic_error. Anything else — a crash, a sanitizer report, another exception — is a finding.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "diagram/bands.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t budget = 1 + data[0] % 64;
  const std::string_view dot(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    (void)nndna::diagram::detail::cutIntoBands(dot, budget);
  } catch (const std::logic_error&) {
  }
  return 0;
}
