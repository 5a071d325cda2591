// Asking a chat model for a spec: OpenAI-compatible chat completions or Anthropic's Messages API.
//
// Both are asked for structured output where they offer it: OpenAI-style endpoints get a JSON
// schema response format ({"source": string}), Anthropic gets a forced `write_spec` tool whose
// input is that object. An endpoint that rejects the structured request (an older local server)
// is asked again without it, and the client remembers that for its later calls.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>

#include "designer/endpoint.hpp"
#include "designer/http_client.hpp"
#include "designer/redact.hpp"

namespace nndna::designer {

struct ChatMessage {
  enum class Role : std::uint8_t { user, assistant };
  Role role = Role::user;
  std::string content;
};

struct ChatAnswer {
  std::string text;   // the answer: the tool input's JSON, or the message text
  std::string model;  // as the endpoint reported it (else as asked)
  std::int64_t promptTokens = 0;
  std::int64_t completionTokens = 0;
  double latencySeconds = 0;  // the whole call, retries and waits included
  int httpAttempts = 1;
  bool structured = false;  // the endpoint honoured the JSON schema / forced tool
};

// The endpoint failed to give an answer. The message is what the user reads: it names the
// status, what it usually means and what to check, and never the API key.
class LlmError : public std::runtime_error {
 public:
  enum class Kind {
    unauthorized,  // 401/403: the key
    not_found,     // 404: the URL or the model name
    rejected,      // another 4xx
    server_error,  // 429/5xx after the retries
    unreachable,   // connection refused, DNS, TLS
    timeout,
    cancelled,
    bad_response,  // 200 whose body is not the API's shape
  };
  LlmError(Kind kind, int status, const std::string& message)
      : std::runtime_error(message), kind_(kind), status_(status) {}
  Kind kind() const { return kind_; }
  int status() const { return status_; }  // HTTP status; 0 when none arrived

 private:
  Kind kind_;
  int status_;
};

// One conversation partner. Not thread-safe (it remembers whether structured output works);
// use one per design.
class ChatClient {
 public:
  ChatClient(Endpoint endpoint, HttpSettings settings);

  // Sends the system prompt and the conversation; returns the model's answer. Throws LlmError
  // (every text in it scrubbed of the key).
  ChatAnswer ask(std::string_view system, std::span<const ChatMessage> conversation, std::stop_token stop,
                 const RetryListener& onRetry = {});

  const Endpoint& endpoint() const { return endpoint_; }
  const Redactor& redactor() const { return redactor_; }

 private:
  HttpResponse send(const std::string& body, std::stop_token stop, const RetryListener& onRetry);

  Endpoint endpoint_;
  HttpSettings settings_;
  Redactor redactor_;
  bool structured_ = true;  // cleared when the endpoint rejects the schema / tool request
};

// The JSON bodies and the answer readers, exposed for tests.
std::string openAiRequestBody(const Endpoint& endpoint, std::string_view system,
                              std::span<const ChatMessage> conversation, bool structured);
std::string anthropicRequestBody(const Endpoint& endpoint, std::string_view system,
                                 std::span<const ChatMessage> conversation, bool structured);
// Reads a 200 body; throws LlmError(bad_response) when it is not the API's shape.
ChatAnswer readOpenAiAnswer(std::string_view body, const Endpoint& endpoint);
ChatAnswer readAnthropicAnswer(std::string_view body, const Endpoint& endpoint);
// The endpoint's own words about an error, on one line and at most 400 characters:
// {"error": {"message": ...}} (OpenAI, Anthropic, vLLM), {"error": "..."} (Ollama), else the body.
std::string endpointErrorText(std::string_view body);

}  // namespace nndna::designer
