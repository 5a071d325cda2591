#include "designer/endpoint.hpp"

#include <cstdlib>

namespace nndna::designer {
namespace {

constexpr std::string_view kOpenAiUrl = "https://api.openai.com/v1";
constexpr std::string_view kAnthropicUrl = "https://api.anthropic.com/v1";
// Small, cheap models of each vendor: a spec is a few hundred lines.
constexpr std::string_view kOpenAiModel = "gpt-4o-mini";
constexpr std::string_view kAnthropicModel = "claude-3-5-haiku-latest";

std::optional<std::string> nonEmpty(std::optional<std::string> value) {
  if (value && value->empty()) return std::nullopt;
  return value;
}

std::string_view pathOf(ApiStyle style) {
  return style == ApiStyle::openai ? "/chat/completions" : "/messages";
}

}  // namespace

std::string_view apiStyleName(ApiStyle style) {
  return style == ApiStyle::openai ? "openai" : "anthropic";
}

std::optional<ApiStyle> parseApiStyle(std::string_view name) {
  if (name == "openai") return ApiStyle::openai;
  if (name == "anthropic") return ApiStyle::anthropic;
  return std::nullopt;
}

std::optional<std::string> processEnvironment(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::string Endpoint::requestUrl() const {
  std::string url = baseUrl;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.ends_with(pathOf(style))) return url;
  return url + std::string(pathOf(style));
}

EndpointChoice resolveEndpoint(const EndpointFlags& flags, const EnvironmentLookup& env) {
  std::optional<std::string> baseUrl = nonEmpty(flags.baseUrl);
  if (!baseUrl) baseUrl = nonEmpty(env("NNDNA_LLM_BASE_URL"));
  if (!baseUrl) baseUrl = nonEmpty(env("OPENAI_BASE_URL"));
  std::optional<std::string> model = nonEmpty(flags.model);
  if (!model) model = nonEmpty(env("NNDNA_LLM_MODEL"));
  if (!baseUrl && !model) {
    return {std::nullopt,
            "no model endpoint is configured (set NNDNA_LLM_BASE_URL or --base-url, and "
            "NNDNA_LLM_MODEL or --model; see docs/design.md)"};
  }

  const std::optional<std::string> ownKey = nonEmpty(env("NNDNA_LLM_API_KEY"));
  ApiStyle style = ApiStyle::openai;
  if (flags.style) {
    style = *flags.style;
  } else if (baseUrl && baseUrl->find("anthropic.com") != std::string::npos) {
    style = ApiStyle::anthropic;
  } else if (!baseUrl && !ownKey && !nonEmpty(env("OPENAI_API_KEY")) &&
             nonEmpty(env("ANTHROPIC_API_KEY"))) {
    style = ApiStyle::anthropic;
  }

  Endpoint endpoint;
  endpoint.style = style;
  endpoint.baseUrl = baseUrl.value_or(std::string(style == ApiStyle::openai ? kOpenAiUrl : kAnthropicUrl));
  endpoint.modelIsDefault = !model.has_value();
  endpoint.model = model.value_or(std::string(style == ApiStyle::openai ? kOpenAiModel : kAnthropicModel));
  std::optional<std::string> key = ownKey;
  if (!key) key = nonEmpty(env(style == ApiStyle::openai ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY"));
  endpoint.apiKey = key.value_or("");
  return {std::move(endpoint), {}};
}

std::string displayUrl(std::string_view url) {
  std::string out(url);
  if (const auto query = out.find_first_of("?#"); query != std::string::npos) out.erase(query);
  const auto scheme = out.find("://");
  const std::size_t hostStart = scheme == std::string::npos ? 0 : scheme + 3;
  const auto pathStart = out.find('/', hostStart);
  const auto at = out.rfind('@', pathStart == std::string::npos ? out.size() : pathStart);
  if (at != std::string::npos && at >= hostStart) out.erase(hostStart, at + 1 - hostStart);
  return out;
}

}  // namespace nndna::designer
