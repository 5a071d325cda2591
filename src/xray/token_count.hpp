// Token counts read from a span's metadata, and sums of them that cannot overflow.
//
// A trace read from a file may hold anything under "total_tokens" (it is fuzzed:
// tests/fuzz/xray_trace_json_fuzz.cpp). A count is a whole number in 0..2^63-1: an integer, or a
// float with no fraction (12.0, as other tools write); anything else counts as 0 — converting
// 1e95 to an integer is undefined behaviour.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

namespace nndna::xray {

inline std::int64_t tokenCount(const nlohmann::json& value) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  if (value.is_number_unsigned()) {
    const auto n = value.get<std::uint64_t>();
    return n <= static_cast<std::uint64_t>(kMax) ? static_cast<std::int64_t>(n) : 0;
  }
  if (value.is_number_integer()) return std::max<std::int64_t>(value.get<std::int64_t>(), 0);
  if (value.is_number_float()) {
    const double d = value.get<double>();
    // 2^63 is exactly representable; every double below it converts.
    if (d >= 0 && d < 9223372036854775808.0 && std::trunc(d) == d) return static_cast<std::int64_t>(d);
  }
  return 0;
}

// a + b for counts (both >= 0), at most 2^63-1.
inline std::int64_t addTokens(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::int64_t>::max() : sum;
}

}  // namespace nndna::xray
