// The model price table behind estimated_cost_usd, and LLM usage read from responses. Users
// extend the table with setModelPrice().
#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "xray/recorder.hpp"
#include "xray/token_count.hpp"

namespace nndna::xray {
namespace {

struct PriceTable {
  std::mutex mutex;
  // US$ per million tokens (input, output): the vendors' published list prices for standard
  // (non-batch, non-cached) use, as of 2025-06. Override or extend them with setModelPrice.
  std::map<std::string, ModelPrice, std::less<>> prices{
      {"gpt-4o", {2.50, 10.00}},
      {"gpt-4o-mini", {0.15, 0.60}},
      {"gpt-4.1", {2.00, 8.00}},
      {"gpt-4.1-mini", {0.40, 1.60}},
      {"gpt-4.1-nano", {0.10, 0.40}},
      {"gpt-4-turbo", {10.00, 30.00}},
      {"gpt-4", {30.00, 60.00}},
      {"gpt-3.5-turbo", {0.50, 1.50}},
      {"o1", {15.00, 60.00}},
      {"o1-mini", {1.10, 4.40}},
      {"o3-mini", {1.10, 4.40}},
      {"claude-3-haiku", {0.25, 1.25}},
      {"claude-3-opus", {15.00, 75.00}},
      {"claude-3-5-haiku", {0.80, 4.00}},
      {"claude-3-5-sonnet", {3.00, 15.00}},
      {"claude-3-7-sonnet", {3.00, 15.00}},
      {"claude-sonnet-4", {3.00, 15.00}},
      {"claude-opus-4", {15.00, 75.00}},
      {"gemini-1.5-flash", {0.075, 0.30}},
      {"gemini-1.5-pro", {1.25, 5.00}},
  };
};

PriceTable& table() {
  static PriceTable t;
  return t;
}

bool allDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// The model's family: the name without a provider prefix ("openai/") and without one date or
// version suffix: -2024-07-18, -20241022, @20240620, -0613, -001, -latest.
std::string_view familyOf(std::string_view model) {
  if (auto slash = model.rfind('/'); slash != std::string_view::npos) model.remove_prefix(slash + 1);
  if (auto at = model.rfind('@'); at != std::string_view::npos && allDigits(model.substr(at + 1))) return model.substr(0, at);
  if (model.ends_with("-latest")) return model.substr(0, model.size() - 7);
  // -YYYY-MM-DD
  if (model.size() > 11) {
    std::string_view tail = model.substr(model.size() - 11);
    if (tail[0] == '-' && allDigits(tail.substr(1, 4)) && tail[5] == '-' && allDigits(tail.substr(6, 2)) &&
        tail[8] == '-' && allDigits(tail.substr(9, 2)))
      return model.substr(0, model.size() - 11);
  }
  // -YYYYMMDD, -MMDD, -NNN
  if (auto dash = model.rfind('-'); dash != std::string_view::npos) {
    std::string_view digits = model.substr(dash + 1);
    if (allDigits(digits) && (digits.size() == 8 || digits.size() == 4 || digits.size() == 3)) return model.substr(0, dash);
  }
  return model;
}

}  // namespace

void setModelPrice(std::string_view model, ModelPrice price) {
  auto& t = table();
  std::lock_guard lock(t.mutex);
  t.prices.insert_or_assign(std::string(model), price);
}

std::optional<ModelPrice> modelPrice(std::string_view model) {
  auto& t = table();
  std::lock_guard lock(t.mutex);
  if (auto it = t.prices.find(model); it != t.prices.end()) return it->second;
  if (auto it = t.prices.find(familyOf(model)); it != t.prices.end()) return it->second;
  return std::nullopt;
}

std::optional<double> estimateCostUsd(const LlmUsage& usage) {
  auto price = modelPrice(usage.model);
  if (!price) return std::nullopt;
  return (static_cast<double>(usage.promptTokens) * price->inputPerMillion +
          static_cast<double>(usage.completionTokens) * price->outputPerMillion) /
         1e6;
}

namespace detail {

void setUsageMeta(nlohmann::json& meta, std::string_view model, std::int64_t promptTokens,
                  std::int64_t completionTokens, std::int64_t totalTokens) {
  if (!model.empty()) meta["model"] = std::string(model);
  meta["prompt_tokens"] = promptTokens;
  meta["completion_tokens"] = completionTokens;
  // The counts come from a response the program received (or its own annotate call) and may be
  // anything an integer holds: summed as every token count is (token_count.hpp), a negative as 0.
  meta["total_tokens"] = totalTokens >= 0 ? totalTokens
                                          : addTokens(std::max<std::int64_t>(promptTokens, 0),
                                                      std::max<std::int64_t>(completionTokens, 0));
  if (auto cost = estimateCostUsd({.model = model, .promptTokens = promptTokens, .completionTokens = completionTokens}))
    meta["estimated_cost_usd"] = *cost;
}

std::optional<ResponseUsage> usageOfResponse(const nlohmann::json& response) noexcept {
  try {
    if (!response.is_object()) return std::nullopt;
    auto usage = response.find("usage");
    if (usage == response.end() || !usage->is_object()) return std::nullopt;
    auto count = [&](const char* openAi, const char* anthropic) -> std::optional<std::int64_t> {
      for (const char* key : {openAi, anthropic})
        if (auto it = usage->find(key); it != usage->end() && it->is_number_integer()) return it->get<std::int64_t>();
      return std::nullopt;
    };
    auto prompt = count("prompt_tokens", "input_tokens");
    auto completion = count("completion_tokens", "output_tokens");
    if (!prompt || !completion) return std::nullopt;
    ResponseUsage out;
    out.promptTokens = *prompt;
    out.completionTokens = *completion;
    if (auto total = usage->find("total_tokens"); total != usage->end() && total->is_number_integer())
      out.totalTokens = total->get<std::int64_t>();
    if (auto model = response.find("model"); model != response.end() && model->is_string()) out.model = *model;
    return out;
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<ResponseUsage> usageOfResponseText(std::string_view text) noexcept {
  // Only text that can be a response object is parsed.
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{' || text.find("\"usage\"") == std::string_view::npos)
    return std::nullopt;
  auto parsed = parseJsonBounded(text, ReadLimits{}.maxValueDepth);
  return parsed ? usageOfResponse(*parsed) : std::nullopt;
}

}  // namespace detail
}  // namespace nndna::xray
