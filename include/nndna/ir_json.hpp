// The versioned JSON form of the IR (documented in docs/ir.md). The reader treats its input as
// untrusted: it validates every id, shape and size and rejects a malformed document with a
// message naming the offending field, never a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "nndna/ir.hpp"

namespace nndna::ir {

inline constexpr std::string_view kIrFormat = "nndna-ir";
inline constexpr int kIrVersion = 1;

struct ReadLimits {
  std::size_t maxBytes = std::size_t{1} << 30;  // 1 GiB of JSON
  std::size_t maxTensors = 20'000'000;
  std::size_t maxRank = 16;
  std::size_t maxStringBytes = std::size_t{16} << 20;  // one string (a source file's text)
};

class IrFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// indent < 0: compact.
std::string toJson(const TracedModel& model, int indent = -1);
TracedModel tracedModelFromJson(std::string_view text, const ReadLimits& limits = {});

}  // namespace nndna::ir
