// The designer: plain English (and, optionally, an existing spec) in, a working model spec out.
//
// With a model endpoint it asks the model for a spec, compiles and traces the answer and sends
// any error back for repair, up to `maxRepairs` rounds; when the endpoint fails it falls back to
// the offline designer and says why. Without an endpoint (or with `offline`) the offline designer
// builds the spec from its templates. Every step is reported through the progress callback as it
// happens; every LLM call and every compile is an xray span (seen when an xray session or stream
// is active, as with `nndna design --trace`). The API key never appears in an event, a span, an
// error or the result.
//
//   designer::DesignRequest request{.prompt = "a small transformer that adds two-digit numbers"};
//   request.endpoint = designer::resolveEndpoint({}).endpoint;   // nullopt: offline
//   designer::DesignResult result = designer::design(request, [](const designer::DesignEvent& e) {
//     std::cout << e.message << "\n";
//   });
//
// Thread-safety: design() keeps no state between calls; concurrent calls from several threads
// are fine (each has its own HTTP handle and its own files). The callback runs on the calling
// thread. Cancellation: request a stop on the token; it is checked between steps and during
// HTTP transfers and waits, and it kills a running compile or spec program.
#pragma once

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "designer/endpoint.hpp"
#include "designer/events.hpp"
#include "designer/http_client.hpp"
#include "nndna/diagram.hpp"
#include "nndna/ir.hpp"
#include "specrun/spec_runner.hpp"

namespace nndna::designer {

// The longest description the designer reads (a description, not a document): longer ones fail
// at once with a message saying so.
inline constexpr std::size_t kMaxPromptBytes = 32 * 1024;

struct DesignRequest {
  std::string prompt;                 // what the user wants (or wants changed)
  std::optional<std::string> source;  // their current spec, to change (`--from`); may not compile
  std::string sourceName = "design.cpp";  // the spec's file name in messages ("adder.cpp:12: ...")
  std::optional<Endpoint> endpoint;   // nullopt: design offline
  std::string whyOffline;             // shown when designing offline without `offline` set
  bool offline = false;               // design offline even when an endpoint is given
  int maxRepairs = 3;                 // repair rounds after the first answer
  HttpSettings http;
  specrun::RunOptions run;            // compile and sandbox options of each attempt
};

// One round: an answer of the model (or the offline designer's spec) and its check.
struct Attempt {
  int number = 0;  // 1-based
  bool offline = false;
  std::string source;  // the spec; empty when the answer held none
  std::optional<LlmCall> llm;
  std::string answerProblem;  // why the answer held no spec
  std::optional<CheckOutcome> check;
};

struct DesignResult {
  bool ok = false;
  bool cancelled = false;
  std::string source;  // the working spec; when !ok, the last spec tried (to fix by hand)
  std::optional<ir::TracedModel> model;       // when ok
  std::optional<diagram::Diagram> diagram;    // when ok: its metrics are the final metrics line
  std::string error;   // when !ok: the last error, as shown
  int errorLine = 0;   // its spec line, 0 when none
  std::vector<Attempt> attempts;
  bool offline = false;          // the result came from the offline designer
  std::string fallbackReason;    // set when the endpoint failed and the offline designer took over
  std::optional<OfflineChoice> offlineChoice;
};

// Runs a design. Throws only for what no design can get past (the diagram of a traced model
// failing to build); every endpoint and spec failure is in the result and the events.
DesignResult design(const DesignRequest& request, const ProgressCallback& onEvent = {},
                    std::stop_token stop = {});

}  // namespace nndna::designer
