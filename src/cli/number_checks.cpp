#include "cli/number_checks.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <system_error>

namespace nndna::cli {

CLI::Validator numberFrom(double lowest, double highest, const std::string& unit) {
  const std::string wanted = fmt::format("a number of {} from {} to {}", unit, lowest, highest);
  return CLI::Validator(
      [wanted, lowest, highest](std::string& text) -> std::string {
        double value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        // Not a number, trailing text, NaN or out of range (infinities included) alike.
        if (error != std::errc() || stop != end || !(value >= lowest && value <= highest)) {
          return fmt::format("expected {}, got '{}'", wanted, text);
        }
        return {};
      },
      fmt::format("{}..{}", lowest, highest));
}

}  // namespace nndna::cli
