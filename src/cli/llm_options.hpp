// The options that say which model designs and how patiently (`nndna design`, `nndna serve`):
// --base-url, --model, --api-style, --max-repairs, --retries, --timeout (docs/design.md).
#pragma once

#include <string>

#include "designer/endpoint.hpp"
#include "designer/http_client.hpp"

namespace CLI {
class App;
}

namespace nndna::cli {

struct LlmArgs {
  std::string baseUrl, model, apiStyle;
  int maxRepairs = 3;
  int retries = 3;
  double timeout = 180;  // seconds for one answer of the model
};

// `timeoutFlag` names the option of the answer's timeout: "--timeout" for `nndna design`,
// "--llm-timeout" for `nndna serve` (whose other timeouts are the requests').
void addLlmOptions(CLI::App& cmd, LlmArgs& args, const std::string& timeoutFlag = "--timeout");

// The endpoint these flags and the environment configure (nullopt: design offline, and why).
designer::EndpointChoice resolveEndpoint(const LlmArgs& args);

// Timeouts and retries of the model's HTTP requests.
designer::HttpSettings httpSettings(const LlmArgs& args);

}  // namespace nndna::cli
