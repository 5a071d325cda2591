// Numbers as the designer writes them for people.
#pragma once

#include <cstdint>
#include <string>

namespace nndna::designer {

// 50257 -> "50,257" (independent of the locale).
inline std::string withThousands(std::int64_t n) {
  const std::uint64_t magnitude = n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  const std::string digits = std::to_string(magnitude);
  std::string out = n < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace nndna::designer
