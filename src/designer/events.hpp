// What the designer reports while it works: one event per step, as plain data.
//
// The command line prints each event's `message`; `nndna serve` streams `toJson(event)` as one
// NDJSON line per event (docs/serve.md). Every text in an event has already had the API key
// scrubbed from it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace nndna::designer {

enum class EventKind : std::uint8_t {
  asking_model,      // the designer will ask this model at this endpoint
  designing_offline, // no endpoint is configured, or --offline: the offline designer works
  attempt_started,   // attempt N begins (a first design, or a repair of attempt N-1)
  retrying,          // the endpoint answered 429/5xx: waiting before asking again
  llm_answer,        // the model answered: tokens, cost, latency
  answer_unusable,   // the answer held no spec (no JSON "source", no fenced code)
  check_result,      // the spec was compiled and traced, or failed to
  fallback_offline,  // the endpoint failed: the offline designer takes over (why)
  offline_choice,    // the offline designer's template, sizes and unused words
  metrics,           // the final model's metrics line
  finished,          // the design is done: a traced model, or the last error
};
std::string_view kindName(EventKind kind);

// One call of the model.
struct LlmCall {
  std::string model;             // as the endpoint reported it (else as asked)
  std::int64_t promptTokens = 0;
  std::int64_t completionTokens = 0;
  std::optional<double> costUsd;  // from xray's price table; none for unknown models
  double latencySeconds = 0;      // the whole call, retries included
  int httpAttempts = 1;           // requests sent (more than 1 after 429/5xx)
};

// An HTTP retry after 429 or 5xx.
struct RetryWait {
  int status = 0;
  double seconds = 0;    // how long the designer waits
  bool fromRetryAfter = false;  // the server's Retry-After header set the wait
  int retry = 0;         // 1 for the first retry
};

// A compile and trace of a candidate spec.
struct CheckOutcome {
  bool ok = false;
  std::string errorKind;      // specrun's kind name ("compile_error", "trace_error", ...); "" when ok
  std::string error;          // the error as the user sees it (compiler diagnostics, trace message)
  int line = 0;               // the spec line the error points at; 0 when none
  double seconds = 0;         // compile + run, wall clock
  double compileSeconds = 0;  // of which the compile (0 on a cache hit)
  double runSeconds = 0;      // and the sandboxed run with reading its IR
  bool cacheHit = false;      // the compiled binary came from the cache
};

// What the offline designer chose and why.
struct OfflineChoice {
  std::string templateName;  // "decoder_lm"
  std::string title;         // "decoder-only transformer language model"
  std::string preset;        // "GPT-2 small" when a named preset was used
  std::string why;           // "'transformer' and 'next token' name it"
  std::vector<std::string> settings;     // "layers 12 (from \"12 layers\")", "width 128 (default)"
  std::vector<std::string> unusedWords;  // words of the description it did not use
  std::vector<std::string> notes;        // adjustments ("width 100 rounded up to 104 ...")
};

// The final model's size and cost (the diagram's metrics of the training side).
struct MetricsLine {
  std::int64_t params = 0;
  std::int64_t activationBytes = 0;
  std::int64_t flops = 0;
  std::int64_t kernels = 0;
  std::string text;  // "24.9K parameters · 1.2 MB activations · ..."
};

struct DesignEvent {
  EventKind kind = EventKind::finished;
  int attempt = 0;       // the attempt the event belongs to (1-based); 0 for none
  std::string message;   // one line for people: what the command line prints

  // Set by the kinds that carry them.
  std::string model, endpoint, apiStyle;    // asking_model
  std::optional<RetryWait> retry;           // retrying
  std::optional<LlmCall> llm;               // llm_answer
  std::optional<CheckOutcome> check;        // check_result
  std::optional<OfflineChoice> offline;     // offline_choice
  std::optional<MetricsLine> metrics;       // metrics
  std::string reason;  // designing_offline, fallback_offline, answer_unusable
  bool ok = false;                          // finished
};

// Receives each event as it happens, on the thread that runs the design.
using ProgressCallback = std::function<void(const DesignEvent&)>;

// The event as a JSON object: {"kind": "llm_answer", "attempt": 1, "message": ..., "llm": {...}}
// (fields the kind does not carry are left out; docs/design.md lists them).
nlohmann::json toJson(const DesignEvent& event);

}  // namespace nndna::designer
