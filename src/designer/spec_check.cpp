#include "designer/spec_check.hpp"

#include <cctype>
#include <chrono>
#include <string>

namespace nndna::designer {

int errorLine(std::string_view message, std::string_view displayName) {
  const std::string needle = std::string(displayName) + ":";
  for (auto at = message.find(needle); at != std::string_view::npos; at = message.find(needle, at + 1)) {
    std::size_t digits = at + needle.size();
    int line = 0;
    while (digits < message.size() && std::isdigit(static_cast<unsigned char>(message[digits])) && line < 10'000'000) {
      line = line * 10 + (message[digits] - '0');
      ++digits;
    }
    if (line > 0) return line;
  }
  return 0;
}

CheckedSpec checkSpec(std::string_view source, std::string_view displayName, const specrun::RunOptions& options,
                      std::stop_token stop) {
  CheckedSpec checked;
  const auto start = std::chrono::steady_clock::now();
  specrun::RunOptions run = options;
  run.stop = stop;
  specrun::RunReport report;
  try {
    checked.model = specrun::runSpecSource(source, displayName, run, &report);
    checked.outcome.ok = true;
  } catch (const specrun::SpecRunError& e) {
    checked.cancelled = e.kind() == specrun::SpecRunError::Kind::cancelled;
    checked.outcome.errorKind = std::string(specrun::kindName(e.kind()));
    checked.outcome.error = e.what();
    checked.outcome.line = errorLine(e.what(), displayName);
  }
  checked.outcome.cacheHit = report.cacheHit;
  checked.outcome.compileSeconds = report.compileSeconds;
  checked.outcome.runSeconds = report.runSeconds + report.readSeconds;
  checked.outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return checked;
}

}  // namespace nndna::designer
