#include "designer/answer.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <vector>

namespace nndna::designer {
namespace {

using nlohmann::json;

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// The "source" string of a JSON object text; `problem` says why not when there is none.
std::optional<std::string> sourceOfJson(std::string_view text, std::string& problem) {
  json parsed;
  try {
    parsed = json::parse(text);
  } catch (const json::exception& e) {  // a parse error, or a number past double's range
    problem = std::string("the answer is not valid JSON (") + e.what() + ")";
    return std::nullopt;
  }
  if (!parsed.is_object() || !parsed.contains("source") || !parsed["source"].is_string()) {
    problem = "the JSON answer has no string field \"source\"";
    return std::nullopt;
  }
  std::string source = parsed["source"].get<std::string>();
  if (trimmed(source).empty()) {
    problem = "the JSON answer's \"source\" is empty";
    return std::nullopt;
  }
  return source;
}

struct Fence {
  std::string language;  // lower-case info string ("json", "cpp", "")
  std::string_view body;
};

// Every ``` fenced block of a markdown text.
std::vector<Fence> fencesOf(std::string_view text) {
  std::vector<Fence> out;
  std::size_t at = 0;
  while ((at = text.find("```", at)) != std::string_view::npos) {
    const std::size_t infoEnd = text.find('\n', at);
    if (infoEnd == std::string_view::npos) break;
    std::string language(trimmed(text.substr(at + 3, infoEnd - at - 3)));
    for (char& c : language) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::size_t close = text.find("```", infoEnd + 1);
    if (close == std::string_view::npos) break;
    out.push_back({std::move(language), text.substr(infoEnd + 1, close - infoEnd - 1)});
    at = close + 3;
  }
  return out;
}

bool isCodeLanguage(std::string_view language) {
  return language.empty() || language == "cpp" || language == "c++" || language == "cc" || language == "cxx" ||
         language == "c";
}

}  // namespace

AnswerReading readAnswer(std::string_view text) {
  AnswerReading reading;
  const std::string_view whole = trimmed(text);
  if (whole.empty()) {
    reading.problem = "the answer is empty";
    return reading;
  }
  std::string problem;
  if (whole.front() == '{') {
    if (auto source = sourceOfJson(whole, problem)) return {std::move(source), "json", {}};
  }
  for (const Fence& fence : fencesOf(whole)) {
    const std::string_view body = trimmed(fence.body);
    std::string fenceProblem;
    if ((fence.language == "json" || (!body.empty() && body.front() == '{'))) {
      if (auto source = sourceOfJson(body, fenceProblem)) return {std::move(source), "fenced json", {}};
      if (problem.empty()) problem = fenceProblem;
    } else if (isCodeLanguage(fence.language) && body.find("NNDNA_SPEC") != std::string_view::npos) {
      return {std::string(body) + "\n", "fenced code", {}};
    }
  }
  const auto open = whole.find('{');
  const auto close = whole.rfind('}');
  if (open != std::string_view::npos && close != std::string_view::npos && open > 0 && close > open) {
    std::string inTextProblem;
    if (auto source = sourceOfJson(whole.substr(open, close - open + 1), inTextProblem)) {
      return {std::move(source), "json in text", {}};
    }
  }
  reading.problem = !problem.empty() ? problem
                                     : "the answer holds neither a JSON object {\"source\": ...} nor a fenced C++ "
                                       "block with NNDNA_SPEC";
  return reading;
}

}  // namespace nndna::designer
