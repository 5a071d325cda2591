#include "designer/prompt.hpp"

#include <fmt/format.h>

#include <span>
#include <stdexcept>
#include <vector>

#include "embedded_file.hpp"

namespace nndna::designer {
namespace embedded {
std::span<const EmbeddedFile> promptFiles();  // generated from docs/design_prompt.md
}

std::string_view systemPrompt() {
  const auto files = embedded::promptFiles();
  if (files.size() != 1) throw std::logic_error("the designer's prompt is not built in");
  return files[0].bytes;
}

std::string designRequest(std::string_view description, const std::optional<std::string>& currentSource) {
  if (!currentSource) {
    return fmt::format("Write an nndna model spec for this request:\n\n{}\n", description);
  }
  return fmt::format(
      "Here is my current nndna spec (it may not compile):\n\n```cpp\n{}\n```\n\n"
      "Change it as follows, keeping everything else as it is:\n\n{}\n",
      *currentSource, description);
}

std::string excerptAround(std::string_view source, int line, int context) {
  if (line <= 0) return {};
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= source.size()) {
    const auto end = source.find('\n', start);
    lines.push_back(source.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (line > static_cast<int>(lines.size())) return {};
  std::string out;
  const int first = std::max(1, line - context);
  const int last = std::min(static_cast<int>(lines.size()), line + context);
  for (int n = first; n <= last; ++n) {
    out += fmt::format("{} {:>4} | {}\n", n == line ? '>' : ' ', n, lines[static_cast<std::size_t>(n - 1)]);
  }
  return out;
}

std::string repairRequest(const CheckOutcome& failure, std::string_view source) {
  std::string where;
  if (const std::string excerpt = excerptAround(source, failure.line); !excerpt.empty()) {
    where = fmt::format("\n\nThe error is on line {}:\n\n{}", failure.line, excerpt);
  }
  return fmt::format(
      "Your spec failed ({}):\n\n{}{}\n\nFix it and answer with the whole corrected spec as "
      "{{\"source\": ...}}.",
      failure.errorKind, failure.error, where);
}

std::string reanswerRequest(std::string_view problem) {
  return fmt::format(
      "I could not use your answer: {}. Answer with JSON only, of the form {{\"source\": \"<the whole C++ "
      "spec file>\"}}.",
      problem);
}

}  // namespace nndna::designer
