#include "designer/events.hpp"

#include <nlohmann/json.hpp>

namespace nndna::designer {

std::string_view kindName(EventKind kind) {
  switch (kind) {
    case EventKind::asking_model: return "asking_model";
    case EventKind::designing_offline: return "designing_offline";
    case EventKind::attempt_started: return "attempt_started";
    case EventKind::retrying: return "retrying";
    case EventKind::llm_answer: return "llm_answer";
    case EventKind::answer_unusable: return "answer_unusable";
    case EventKind::check_result: return "check_result";
    case EventKind::fallback_offline: return "fallback_offline";
    case EventKind::offline_choice: return "offline_choice";
    case EventKind::metrics: return "metrics";
    case EventKind::finished: return "finished";
  }
  return "unknown";
}

nlohmann::json toJson(const DesignEvent& event) {
  nlohmann::json out = {{"kind", kindName(event.kind)}, {"message", event.message}};
  if (event.attempt > 0) out["attempt"] = event.attempt;
  switch (event.kind) {
    case EventKind::asking_model:
      out["model"] = event.model;
      out["endpoint"] = event.endpoint;
      out["api_style"] = event.apiStyle;
      break;
    case EventKind::retrying:
      if (event.retry) {
        out["retry"] = {{"status", event.retry->status},
                        {"seconds", event.retry->seconds},
                        {"from_retry_after", event.retry->fromRetryAfter},
                        {"retry", event.retry->retry}};
      }
      break;
    case EventKind::llm_answer:
      if (event.llm) {
        nlohmann::json llm = {{"model", event.llm->model},
                              {"prompt_tokens", event.llm->promptTokens},
                              {"completion_tokens", event.llm->completionTokens},
                              {"latency_seconds", event.llm->latencySeconds},
                              {"http_attempts", event.llm->httpAttempts}};
        if (event.llm->costUsd) llm["cost_usd"] = *event.llm->costUsd;
        out["llm"] = std::move(llm);
      }
      break;
    case EventKind::check_result:
      if (event.check) {
        nlohmann::json check = {{"ok", event.check->ok},
                                {"seconds", event.check->seconds},
                                {"compile_seconds", event.check->compileSeconds},
                                {"run_seconds", event.check->runSeconds},
                                {"cache_hit", event.check->cacheHit}};
        if (!event.check->ok) {
          check["error_kind"] = event.check->errorKind;
          check["error"] = event.check->error;
          if (event.check->line > 0) check["line"] = event.check->line;
        }
        out["check"] = std::move(check);
      }
      break;
    case EventKind::designing_offline:
    case EventKind::fallback_offline:
    case EventKind::answer_unusable:
      out["reason"] = event.reason;
      break;
    case EventKind::offline_choice:
      if (event.offline) {
        nlohmann::json offline = {{"template", event.offline->templateName},
                                  {"title", event.offline->title},
                                  {"why", event.offline->why},
                                  {"settings", event.offline->settings},
                                  {"unused_words", event.offline->unusedWords},
                                  {"notes", event.offline->notes}};
        if (!event.offline->preset.empty()) offline["preset"] = event.offline->preset;
        out["offline"] = std::move(offline);
      }
      break;
    case EventKind::metrics:
      if (event.metrics) {
        out["metrics"] = {{"params", event.metrics->params},
                          {"activation_bytes", event.metrics->activationBytes},
                          {"flops", event.metrics->flops},
                          {"kernels", event.metrics->kernels},
                          {"text", event.metrics->text}};
      }
      break;
    case EventKind::attempt_started:
      break;
    case EventKind::finished:
      out["ok"] = event.ok;
      break;
  }
  return out;
}

}  // namespace nndna::designer
