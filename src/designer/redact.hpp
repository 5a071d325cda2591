// Keeping the API key out of everything the designer shows or records.
#pragma once

#include <string>
#include <string_view>

namespace nndna::designer {

inline constexpr std::string_view kRedactedKey = "[REDACTED]";

// Replaces every occurrence of one secret (the API key) with "[REDACTED]". The designer passes
// every text that leaves it — events, errors, trace spans, the model's answers — through scrub(),
// so that not even an endpoint that echoes the key back can make it appear.
class Redactor {
 public:
  Redactor() = default;
  explicit Redactor(std::string secret) : secret_(std::move(secret)) {}

  std::string scrub(std::string_view text) const;

 private:
  std::string secret_;
};

}  // namespace nndna::designer
