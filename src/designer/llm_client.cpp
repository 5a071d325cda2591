#include "designer/llm_client.hpp"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "designer/utf8.hpp"

namespace nndna::designer {
namespace {

using nlohmann::json;

// The structured answer both APIs are asked for.
json answerSchema() {
  return {{"type", "object"},
          {"properties",
           {{"source", {{"type", "string"}, {"description", "The whole C++ spec file, exactly as it is saved."}}}}},
          {"required", {"source"}},
          {"additionalProperties", false}};
}

constexpr std::string_view kToolName = "write_spec";
// Anthropic requires max_tokens; a large spec with its JSON escaping fits well within this.
constexpr int kAnthropicMaxTokens = 8192;
constexpr std::string_view kAnthropicVersion = "2023-06-01";
// How much of an endpoint's error text is shown.
constexpr std::size_t kShownErrorChars = 400;

std::string_view roleName(ChatMessage::Role role) {
  return role == ChatMessage::Role::user ? "user" : "assistant";
}

json conversationJson(std::span<const ChatMessage> conversation) {
  json messages = json::array();
  for (const ChatMessage& m : conversation) messages.push_back({{"role", roleName(m.role)}, {"content", m.content}});
  return messages;
}

// The request as sent. The user's description and spec may hold bytes that are not UTF-8: they
// are replaced rather than failing the request (dump() would throw).
std::string requestText(const json& body) { return body.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

std::string endpointErrorText(std::string_view body) {
  std::string text;
  const json parsed = json::parse(body, nullptr, false);
  if (!parsed.is_discarded() && parsed.is_object() && parsed.contains("error")) {
    const json& error = parsed["error"];
    if (error.is_string()) text = error.get<std::string>();
    if (error.is_object() && error.contains("message") && error["message"].is_string()) {
      text = error["message"].get<std::string>();
    }
  }
  if (text.empty()) text = std::string(body);
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (text.size() > kShownErrorChars) text = std::string(utf8Prefix(text, kShownErrorChars)) + "…";
  return text;
}

namespace {

std::string withEndpointMessage(std::string message, std::string_view body) {
  const std::string said = endpointErrorText(body);
  if (!said.empty()) message += fmt::format(" — the endpoint said: {}", said);
  return message;
}

LlmError statusError(const HttpResponse& response, const Endpoint& endpoint, const Redactor& redactor) {
  const int status = static_cast<int>(response.status);
  const std::string url = displayUrl(endpoint.requestUrl());
  std::string message;
  LlmError::Kind kind = LlmError::Kind::rejected;
  if (status == 401 || status == 403) {
    kind = LlmError::Kind::unauthorized;
    const std::string_view keyVar =
        endpoint.style == ApiStyle::openai ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
    message = endpoint.apiKey.empty()
                  ? fmt::format("{} refused the request (HTTP {}): no API key was sent; set NNDNA_LLM_API_KEY "
                                "(or {})",
                                url, status, keyVar)
                  : fmt::format("{} refused the API key (HTTP {}): check NNDNA_LLM_API_KEY (or {})", url, status,
                                keyVar);
  } else if (status == 404) {
    kind = LlmError::Kind::not_found;
    message = fmt::format(
        "{} answered HTTP 404: no such endpoint or model — check the base URL (OpenAI-style URLs usually end "
        "in /v1) and the model name '{}'",
        url, endpoint.model);
  } else if (status == 429 || status >= 500) {
    kind = LlmError::Kind::server_error;
    message = fmt::format("{} kept failing: HTTP {} after {} attempt{}", url, status, response.attempts,
                          response.attempts == 1 ? "" : "s");
  } else {
    message = fmt::format("{} rejected the request (HTTP {})", url, status);
  }
  return LlmError(kind, status, redactor.scrub(withEndpointMessage(std::move(message), response.body)));
}

LlmError::Kind kindOf(HttpError::Kind kind) {
  switch (kind) {
    case HttpError::Kind::timeout: return LlmError::Kind::timeout;
    case HttpError::Kind::cancelled: return LlmError::Kind::cancelled;
    case HttpError::Kind::connection_refused:
    case HttpError::Kind::unresolved_host:
    case HttpError::Kind::tls:
    case HttpError::Kind::other: return LlmError::Kind::unreachable;
  }
  return LlmError::Kind::unreachable;
}

LlmError badResponse(const Endpoint& endpoint, std::string_view what) {
  return LlmError(LlmError::Kind::bad_response, 200,
                  fmt::format("{} answered, but not in the {} API's shape: {}", displayUrl(endpoint.requestUrl()),
                              apiStyleName(endpoint.style), what));
}

std::int64_t tokenCount(const json& usage, const char* name) {
  if (!usage.is_object() || !usage.contains(name) || !usage[name].is_number_integer()) return 0;
  return usage[name].get<std::int64_t>();
}

// The tool's input as the JSON answer text readAnswer() reads: {"source": ...}. Only the top
// level is kept (other fields by name and JSON type): writing out an input nested a million
// deep, as a hostile endpoint may send, would recurse as deep.
std::string toolInputText(const json& input) {
  json flat = json::object();
  for (const auto& [key, value] : input.items()) {
    flat[key] = value.is_string() ? value : json(std::string("(") + value.type_name() + ")");
  }
  return flat.dump();
}

}  // namespace

std::string openAiRequestBody(const Endpoint& endpoint, std::string_view system,
                              std::span<const ChatMessage> conversation, bool structured) {
  json messages = json::array({{{"role", "system"}, {"content", system}}});
  for (json& m : conversationJson(conversation)) messages.push_back(std::move(m));
  json body = {{"model", endpoint.model}, {"messages", std::move(messages)}};
  if (structured) {
    body["response_format"] = {
        {"type", "json_schema"},
        {"json_schema", {{"name", "nndna_spec"}, {"strict", true}, {"schema", answerSchema()}}}};
  }
  return requestText(body);
}

std::string anthropicRequestBody(const Endpoint& endpoint, std::string_view system,
                                 std::span<const ChatMessage> conversation, bool structured) {
  json body = {{"model", endpoint.model},
               {"max_tokens", kAnthropicMaxTokens},
               {"system", system},
               {"messages", conversationJson(conversation)}};
  if (structured) {
    body["tools"] = json::array({{{"name", kToolName},
                                  {"description", "Hand over the complete nndna model spec file."},
                                  {"input_schema", answerSchema()}}});
    body["tool_choice"] = {{"type", "tool"}, {"name", kToolName}};
  }
  return requestText(body);
}

ChatAnswer readOpenAiAnswer(std::string_view body, const Endpoint& endpoint) {
  const json parsed = json::parse(body, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) throw badResponse(endpoint, "the body is not a JSON object");
  const json* choices = parsed.contains("choices") ? &parsed["choices"] : nullptr;
  if (choices == nullptr || !choices->is_array() || choices->empty() || !(*choices)[0].is_object() ||
      !(*choices)[0].contains("message") || !(*choices)[0]["message"].is_object()) {
    throw badResponse(endpoint, "no choices[0].message");
  }
  const json& message = (*choices)[0]["message"];
  ChatAnswer answer;
  if (message.contains("content") && message["content"].is_string()) {
    answer.text = message["content"].get<std::string>();
  } else if (message.contains("refusal") && message["refusal"].is_string()) {
    answer.text = message["refusal"].get<std::string>();
  }
  answer.model = parsed.contains("model") && parsed["model"].is_string() ? parsed["model"].get<std::string>()
                                                                         : endpoint.model;
  if (parsed.contains("usage")) {
    answer.promptTokens = tokenCount(parsed["usage"], "prompt_tokens");
    answer.completionTokens = tokenCount(parsed["usage"], "completion_tokens");
  }
  return answer;
}

ChatAnswer readAnthropicAnswer(std::string_view body, const Endpoint& endpoint) {
  const json parsed = json::parse(body, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) throw badResponse(endpoint, "the body is not a JSON object");
  if (!parsed.contains("content") || !parsed["content"].is_array()) throw badResponse(endpoint, "no content blocks");
  ChatAnswer answer;
  for (const json& block : parsed["content"]) {
    if (!block.is_object() || !block.contains("type") || !block["type"].is_string()) continue;
    const std::string type = block["type"].get<std::string>();
    if (type == "tool_use" && block.contains("input") && block["input"].is_object()) {
      answer.text = toolInputText(block["input"]);
      answer.structured = true;
      break;
    }
    if (type == "text" && block.contains("text") && block["text"].is_string()) {
      answer.text += block["text"].get<std::string>();
    }
  }
  answer.model = parsed.contains("model") && parsed["model"].is_string() ? parsed["model"].get<std::string>()
                                                                         : endpoint.model;
  if (parsed.contains("usage")) {
    answer.promptTokens = tokenCount(parsed["usage"], "input_tokens");
    answer.completionTokens = tokenCount(parsed["usage"], "output_tokens");
  }
  return answer;
}

ChatClient::ChatClient(Endpoint endpoint, HttpSettings settings)
    : endpoint_(std::move(endpoint)), settings_(settings), redactor_(endpoint_.apiKey) {}

HttpResponse ChatClient::send(const std::string& body, std::stop_token stop, const RetryListener& onRetry) {
  // A key with a line break would write headers of its own into the request.
  if (endpoint_.apiKey.find_first_of("\r\n") != std::string::npos) {
    throw LlmError(LlmError::Kind::rejected, 0, "the API key contains a line break: check NNDNA_LLM_API_KEY");
  }
  std::vector<std::string> headers;
  if (endpoint_.style == ApiStyle::openai) {
    if (!endpoint_.apiKey.empty()) headers.push_back("Authorization: Bearer " + endpoint_.apiKey);
  } else {
    if (!endpoint_.apiKey.empty()) headers.push_back("x-api-key: " + endpoint_.apiKey);
    headers.push_back("anthropic-version: " + std::string(kAnthropicVersion));
  }
  try {
    return postJson(endpoint_.requestUrl(), headers, body, settings_, stop, onRetry);
  } catch (const HttpError& e) {
    throw LlmError(kindOf(e.kind()), 0, redactor_.scrub(e.what()));
  }
}

ChatAnswer ChatClient::ask(std::string_view system, std::span<const ChatMessage> conversation, std::stop_token stop,
                           const RetryListener& onRetry) {
  const auto start = std::chrono::steady_clock::now();
  auto bodyFor = [&](bool structured) {
    return endpoint_.style == ApiStyle::openai ? openAiRequestBody(endpoint_, system, conversation, structured)
                                               : anthropicRequestBody(endpoint_, system, conversation, structured);
  };
  HttpResponse response = send(bodyFor(structured_), stop, onRetry);
  int attempts = response.attempts;
  // An endpoint without structured output (an older llama.cpp or vLLM) rejects the schema or
  // the tool with a 400/422: ask once more without it.
  if (structured_ && (response.status == 400 || response.status == 422)) {
    structured_ = false;
    response = send(bodyFor(false), stop, onRetry);
    attempts += response.attempts;
  }
  if (response.status != 200) throw statusError(response, endpoint_, redactor_);
  ChatAnswer answer;
  try {
    answer = endpoint_.style == ApiStyle::openai ? readOpenAiAnswer(response.body, endpoint_)
                                                 : readAnthropicAnswer(response.body, endpoint_);
  } catch (const LlmError& e) {
    throw LlmError(e.kind(), e.status(), redactor_.scrub(e.what()));
  }
  if (endpoint_.style == ApiStyle::openai) answer.structured = structured_;
  answer.httpAttempts = attempts;
  answer.latencySeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return answer;
}

}  // namespace nndna::designer
