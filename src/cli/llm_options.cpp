#include "cli/llm_options.hpp"
#include "cli/number_checks.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <optional>

namespace nndna::cli {

namespace {

std::optional<std::string> nonEmpty(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

}  // namespace

void addLlmOptions(CLI::App& cmd, LlmArgs& args, const std::string& timeoutFlag) {
  cmd.add_option("--base-url", args.baseUrl,
                 "The model endpoint's base URL, e.g. https://api.openai.com/v1 (default: $NNDNA_LLM_BASE_URL, "
                 "else $OPENAI_BASE_URL)");
  cmd.add_option("--model", args.model, "The model to ask (default: $NNDNA_LLM_MODEL)");
  cmd.add_option("--api-style", args.apiStyle, "openai (chat completions) or anthropic (Messages API)")
      ->check(CLI::IsMember({"openai", "anthropic"}));
  cmd.add_option("--max-repairs", args.maxRepairs, "Rounds of sending an error back to the model (default 3)")
      ->check(CLI::Range(0, 20));
  cmd.add_option("--retries", args.retries, "HTTP retries after 429 or 5xx answers of the model (default 3)")
      ->check(CLI::Range(0, 10));
  cmd.add_option(timeoutFlag, args.timeout, "Seconds to wait for one answer of the model (default 180)")
      ->check(numberFrom(0.001, kMaxLimitSeconds, "seconds"));
}

designer::EndpointChoice resolveEndpoint(const LlmArgs& args) {
  designer::EndpointFlags flags{nonEmpty(args.baseUrl), nonEmpty(args.model), std::nullopt};
  if (!args.apiStyle.empty()) flags.style = designer::parseApiStyle(args.apiStyle);
  return designer::resolveEndpoint(flags);
}

designer::HttpSettings httpSettings(const LlmArgs& args) {
  designer::HttpSettings http;
  http.maxRetries = args.retries;
  http.requestTimeout = std::chrono::milliseconds(static_cast<std::int64_t>(args.timeout * 1000));
  http.connectTimeout = std::min(http.connectTimeout, http.requestTimeout);
  return http;
}

}  // namespace nndna::cli
