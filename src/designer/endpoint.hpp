// Which model the designer asks, and where: from flags and the environment (docs/design.md).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace nndna::designer {

// The two wire formats the designer speaks: OpenAI-compatible chat completions (OpenAI, Ollama,
// llama.cpp's server, vLLM, LM Studio, OpenRouter) and Anthropic's Messages API.
enum class ApiStyle : std::uint8_t { openai, anthropic };
std::string_view apiStyleName(ApiStyle style);
// "openai" / "anthropic"; nullopt for anything else.
std::optional<ApiStyle> parseApiStyle(std::string_view name);

struct Endpoint {
  std::string baseUrl;  // "https://api.openai.com/v1", "http://localhost:11434/v1"
  std::string model;
  ApiStyle style = ApiStyle::openai;
  std::string apiKey;   // may be empty (local servers); never printed, logged or traced
  bool modelIsDefault = false;  // nobody named a model: the style's default is asked

  // The request URL: the base URL + "/chat/completions" or "/messages" (unless the base URL
  // already ends with that path).
  std::string requestUrl() const;
};

// What the command line (or a server request) says; unset fields come from the environment.
struct EndpointFlags {
  std::optional<std::string> baseUrl;
  std::optional<std::string> model;
  std::optional<ApiStyle> style;
};

// Reads one environment variable (std::getenv by default; tests pass their own).
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;
std::optional<std::string> processEnvironment(std::string_view name);

struct EndpointChoice {
  std::optional<Endpoint> endpoint;  // nullopt: nothing is configured, design offline
  std::string whyOffline;            // set when endpoint is nullopt
};

// The endpoint is configured when a base URL is given (--base-url, NNDNA_LLM_BASE_URL, else
// OPENAI_BASE_URL) or a model is named (--model, NNDNA_LLM_MODEL; then the vendor's own URL of
// the style is used). An API key alone configures nothing: having OPENAI_API_KEY in the
// environment must not make `nndna design` spend money unasked. The key is NNDNA_LLM_API_KEY,
// else OPENAI_API_KEY or ANTHROPIC_API_KEY by style. The style is --api-style, else anthropic
// when the base URL is Anthropic's (or only ANTHROPIC_API_KEY is set and no URL is given),
// else openai.
EndpointChoice resolveEndpoint(const EndpointFlags& flags,
                               const EnvironmentLookup& env = processEnvironment);

// The URL as it may be shown: no "user:password@", no query string (either may hold a secret).
std::string displayUrl(std::string_view url);

}  // namespace nndna::designer
