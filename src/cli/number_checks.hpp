// Checks of the command line's numbers, with messages that say what is wanted. CLI11's
// PositiveNumber names its range as 0 to the largest double (hundreds of digits), and a number
// past what a limit can hold overflowed later (a --time-limit of 1e10 s stopped every spec at once).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace nndna::cli {

// The longest time limit or timeout the commands take: a week.
inline constexpr double kMaxLimitSeconds = 7 * 24 * 3600.0;

// A number from `lowest` to `highest` (both included) of `unit`, e.g. "seconds", "MiB".
CLI::Validator numberFrom(double lowest, double highest, const std::string& unit);

}  // namespace nndna::cli
