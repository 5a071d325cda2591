// The model price table behind estimated_cost_usd. Users extend it with setModelPrice().
#include <map>
#include <mutex>
#include <string>

#include <nndna/xray.hpp>

namespace nndna::xray {
namespace {

struct PriceTable {
  std::mutex mutex;
  std::map<std::string, ModelPrice, std::less<>> prices{
      // US$ per million tokens (input, output), list prices as published by the vendors in
      // 2024–2025; override or extend them with setModelPrice.
      {"gpt-4o", {2.50, 10.00}},
      {"gpt-4o-mini", {0.15, 0.60}},
      {"gpt-4.1", {2.00, 8.00}},
      {"gpt-4.1-mini", {0.40, 1.60}},
      {"o3-mini", {1.10, 4.40}},
      {"claude-3-5-sonnet", {3.00, 15.00}},
      {"claude-3-5-haiku", {0.80, 4.00}},
      {"claude-3-haiku", {0.25, 1.25}},
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

}  // namespace

void setModelPrice(std::string_view model, ModelPrice price) {
  auto& t = table();
  std::lock_guard lock(t.mutex);
  t.prices.insert_or_assign(std::string(model), price);
}

std::optional<ModelPrice> modelPrice(std::string_view model) {
  auto& t = table();
  std::lock_guard lock(t.mutex);
  // The longest registered name that is a prefix of the model name.
  std::optional<ModelPrice> best;
  std::size_t bestLength = 0;
  for (const auto& [name, price] : t.prices) {
    if (model.starts_with(name) && name.size() >= bestLength) {
      best = price;
      bestLength = name.size();
    }
  }
  return best;
}

std::optional<double> estimateCostUsd(const LlmUsage& usage) {
  auto price = modelPrice(usage.model);
  if (!price) return std::nullopt;
  return (static_cast<double>(usage.promptTokens) * price->inputPerMillion +
          static_cast<double>(usage.completionTokens) * price->outputPerMillion) /
         1e6;
}

}  // namespace nndna::xray
