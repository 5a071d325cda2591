#include "designer/designer.hpp"

#include <fmt/format.h>

#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>

#include "designer/answer.hpp"
#include "designer/llm_client.hpp"
#include "designer/numbers.hpp"
#include "designer/offline/offline_designer.hpp"
#include "designer/prompt.hpp"
#include "designer/redact.hpp"
#include "designer/spec_check.hpp"
#include "designer/utf8.hpp"
#include "diagram/checked_model.hpp"

namespace nndna::designer {
namespace {

namespace xray = nndna::xray;

// "1 attempt", "3 attempts".
std::string counted(int n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string costText(const std::optional<double>& cost) {
  if (!cost) return "cost unknown (no price for this model)";
  return *cost < 0.01 ? fmt::format("${:.4f}", *cost) : fmt::format("${:.2f}", *cost);
}

std::string firstLine(std::string_view text) { return std::string(text.substr(0, text.find('\n'))); }

// One design in progress: the request, the events it has sent, the result it builds.
class Run {
 public:
  Run(const DesignRequest& request, const ProgressCallback& onEvent, std::stop_token stop)
      : request_(request),
        onEvent_(onEvent),
        stop_(stop),
        redactor_(request.endpoint ? request.endpoint->apiKey : std::string()) {}

  DesignResult run() {
    if (request_.prompt.size() > kMaxPromptBytes) {
      result_.error = fmt::format("the description is {} bytes long; the designer reads at most {}",
                                  withThousands(static_cast<std::int64_t>(request_.prompt.size())),
                                  withThousands(static_cast<std::int64_t>(kMaxPromptBytes)));
      finish(false, result_.error);
      return std::move(result_);
    }
    xray::Span span("design", {{"prompt", clean(request_.prompt)}, {"from_source", request_.source.has_value()}},
                    {.kind = "designer"});
    if (request_.offline || !request_.endpoint) {
      DesignEvent event = make(EventKind::designing_offline, 0);
      event.reason = request_.offline ? "asked to design offline" : request_.whyOffline;
      event.message = fmt::format("designing offline: {}", event.reason);
      send(std::move(event));
      designOfflineNow();
    } else {
      designWithModel();
    }
    span.output(result_.ok ? "ok" : (result_.cancelled ? "cancelled" : "failed"));
    if (!result_.ok && !result_.cancelled) span.error(firstLine(result_.error));
    return std::move(result_);
  }

 private:
  DesignEvent make(EventKind kind, int attempt) const {
    DesignEvent event;
    event.kind = kind;
    event.attempt = attempt;
    return event;
  }

  // What every text from outside (answers, errors, compiler output) becomes before it is kept or
  // sent: without the key, and valid UTF-8 (so that an event or trace can be written as JSON).
  std::string clean(std::string_view text) const { return validUtf8(redactor_.scrub(text)); }

  void send(DesignEvent event) {
    for (std::string* text : {&event.message, &event.reason, &event.model, &event.endpoint}) *text = clean(*text);
    if (event.check) event.check->error = clean(event.check->error);
    if (event.llm) event.llm->model = clean(event.llm->model);
    if (onEvent_) onEvent_(event);
  }

  bool cancelledNow() {
    if (!stop_.stop_requested()) return false;
    cancelNow();
    return true;
  }

  void cancelNow() {
    result_.cancelled = true;
    result_.error = "the design was cancelled";
    finish(false, result_.error);
  }

  void finish(bool ok, std::string message) {
    result_.ok = ok;
    DesignEvent event = make(EventKind::finished, static_cast<int>(result_.attempts.size()));
    event.ok = ok;
    event.message = std::move(message);
    send(std::move(event));
  }

  // Compiles and traces one candidate; reports the outcome.
  CheckedSpec check(Attempt& attempt) {
    xray::Span span("compile_and_trace", {{"attempt", attempt.number}, {"source", clean(attempt.source)}},
                    {.kind = "compile"});
    CheckedSpec checked = checkSpec(attempt.source, request_.sourceName, request_.run, stop_);
    checked.outcome.error = clean(checked.outcome.error);
    attempt.check = checked.outcome;
    span.meta("cache_hit", checked.outcome.cacheHit);
    if (checked.outcome.ok) {
      span.output("compiled and traced");
    } else {
      span.meta("line", checked.outcome.line);
      span.error(checked.outcome.errorKind + ": " + checked.outcome.error);
    }
    DesignEvent event = make(EventKind::check_result, attempt.number);
    event.check = checked.outcome;
    if (checked.outcome.ok) {
      event.message = fmt::format("attempt {}: compiled and traced in {:.1f} s{}", attempt.number,
                                  checked.outcome.seconds, checked.outcome.cacheHit ? " (compile cached)" : "");
    } else {
      const std::string where = checked.outcome.line > 0 ? fmt::format(" at line {}", checked.outcome.line) : "";
      event.message = fmt::format("attempt {}: {}{}:\n{}", attempt.number, checked.outcome.errorKind, where,
                                  checked.outcome.error);
    }
    send(std::move(event));
    return checked;
  }

  // The traced model is the result: its diagram, the metrics line, the final event.
  void succeed(std::string source, ir::TracedModel model) {
    result_.source = std::move(source);
    // Checked when it was read from the spec's run (the IR reader checks every graph).
    diagram::Diagram picture = diagram::buildDiagramOfCheckedModel(model);
    MetricsLine metrics;
    if (picture.metrics.train) {
      for (const diagram::Metric& m : *picture.metrics.train) {
        if (m.key == "params") metrics.params = m.value;
        if (m.key == "activations") metrics.activationBytes = m.value;
        if (m.key == "flops") metrics.flops = m.value;
        if (m.key == "kernels") metrics.kernels = m.value;
        metrics.text += (metrics.text.empty() ? "" : " · ") + m.display;
      }
    }
    DesignEvent event = make(EventKind::metrics, static_cast<int>(result_.attempts.size()));
    event.message = fmt::format("model: {} — {} ({} parameters)", picture.label, metrics.text,
                                withThousands(metrics.params));
    event.metrics = std::move(metrics);
    send(std::move(event));
    result_.model = std::move(model);
    result_.diagram = std::move(picture);
    result_.error.clear();
    result_.errorLine = 0;
    const int attempts = static_cast<int>(result_.attempts.size());
    // The offline designer takes one attempt; the ones before it were the model's, unusable.
    if (result_.offline && attempts > 1) {
      finish(true, fmt::format("designed in 1 attempt by the offline designer, after {} from the model",
                               counted(attempts - 1, "unusable answer", "unusable answers")));
    } else {
      finish(true, fmt::format("designed in {}{}", counted(attempts, "attempt", "attempts"),
                               result_.offline ? " by the offline designer" : ""));
    }
  }

  void fail(const Attempt& last) {
    result_.source = last.source;
    result_.error = last.check ? last.check->error : last.answerProblem;
    result_.errorLine = last.check ? last.check->line : 0;
    finish(false, fmt::format("no working spec after {}; the last error is shown above{}",
                              counted(static_cast<int>(result_.attempts.size()), "attempt", "attempts"),
                              result_.errorLine > 0 ? fmt::format(" (line {})", result_.errorLine) : ""));
  }

  void designOfflineNow() {
    if (cancelledNow()) return;
    result_.offline = true;
    OfflineDesign offline;
    {
      xray::Span span("offline_designer", {{"description", clean(request_.prompt)}}, {.kind = "designer"});
      offline = request_.source ? changeOffline(request_.prompt, *request_.source) : designOffline(request_.prompt);
      span.meta("template", offline.choice.templateName);
      span.output(offline.choice.why);
    }
    Attempt attempt;
    attempt.number = static_cast<int>(result_.attempts.size()) + 1;
    attempt.offline = true;
    attempt.source = offline.source;
    result_.offlineChoice = offline.choice;

    DesignEvent choice = make(EventKind::offline_choice, attempt.number);
    choice.message = describe(offline.choice);
    choice.offline = std::move(offline.choice);
    send(std::move(choice));

    CheckedSpec checked = check(attempt);
    result_.attempts.push_back(attempt);
    if (checked.cancelled) {
      cancelNow();
    } else if (checked.outcome.ok) {
      succeed(std::move(attempt.source), std::move(*checked.model));
    } else {
      fail(result_.attempts.back());
    }
  }

  static std::string describe(const OfflineChoice& choice) {
    std::string text = choice.preset.empty()
                           ? fmt::format("offline designer: {} ({}) — {}", choice.templateName, choice.title, choice.why)
                           : fmt::format("offline designer: preset {} on {} — {}", choice.preset, choice.templateName,
                                         choice.why);
    if (!choice.settings.empty()) text += "\n  settings: " + fmt::format("{}", fmt::join(choice.settings, ", "));
    for (const std::string& note : choice.notes) text += "\n  note: " + note;
    text += choice.unusedWords.empty() ? "\n  every word of the description was used"
                                       : "\n  words not used: " + fmt::format("{}", fmt::join(choice.unusedWords, ", "));
    return text;
  }

  void fallBack(std::string reason) {
    result_.fallbackReason = clean(reason);
    DesignEvent event = make(EventKind::fallback_offline, static_cast<int>(result_.attempts.size()));
    event.reason = result_.fallbackReason;
    event.message = fmt::format("the model endpoint failed: {}\nfalling back to the offline designer",
                                result_.fallbackReason);
    send(std::move(event));
    designOfflineNow();
  }

  // Asks the model once; nullopt after a failure that ended the model's part (fallback or cancel).
  std::optional<ChatAnswer> ask(ChatClient& client, const std::vector<ChatMessage>& conversation, int attemptNumber) {
    const std::string messages = [&] {
      std::string text;
      for (const ChatMessage& m : conversation) {
        text += fmt::format("[{}]\n{}\n", m.role == ChatMessage::Role::user ? "user" : "assistant", m.content);
      }
      return clean(text);
    }();
    const std::string system = fmt::format("docs/design_prompt.md ({} bytes)", systemPrompt().size());
    const Endpoint& endpoint = client.endpoint();
    const std::string url = displayUrl(endpoint.requestUrl());
    xray::Span span("llm_call",
                    {{"model", clean(endpoint.model)}, {"endpoint", url}, {"system", system}, {"messages", messages}},
                    {.kind = "llm"});
    span.meta("attempt", attemptNumber);
    span.meta("api_style", std::string(apiStyleName(endpoint.style)));
    auto onRetry = [&](const RetryEvent& retry) {
      DesignEvent event = make(EventKind::retrying, attemptNumber);
      RetryWait wait;
      wait.status = static_cast<int>(retry.status);
      wait.seconds = static_cast<double>(retry.wait.count()) / 1000.0;
      wait.fromRetryAfter = retry.fromRetryAfter;
      wait.retry = retry.retry;
      event.retry = wait;
      event.message = fmt::format("attempt {}: HTTP {}{}, retrying in {:g} s{}", attemptNumber, retry.status,
                                  retry.status == 429 ? " (rate limited)" : " (server error)", wait.seconds,
                                  retry.fromRetryAfter ? " as the server asked (Retry-After)" : "");
      send(std::move(event));
    };
    try {
      ChatAnswer answer = client.ask(systemPrompt(), conversation, stop_, onRetry);
      answer.text = clean(answer.text);
      answer.model = clean(answer.model);
      xray::annotate(xray::LlmUsage{.model = answer.model,
                                    .promptTokens = answer.promptTokens,
                                    .completionTokens = answer.completionTokens});
      span.meta("latency_ms", answer.latencySeconds * 1000.0);
      span.meta("http_attempts", answer.httpAttempts);
      span.meta("structured_output", answer.structured);
      span.output(answer.text);
      return answer;
    } catch (const LlmError& e) {
      span.error(clean(e.what()));
      if (e.kind() == LlmError::Kind::cancelled) {
        cancelNow();
      } else {
        fallBack(e.what());
      }
      return std::nullopt;
    }
  }

  void designWithModel() {
    ChatClient client(*request_.endpoint, request_.http);
    const Endpoint& endpoint = client.endpoint();
    {
      DesignEvent event = make(EventKind::asking_model, 0);
      event.model = endpoint.model;
      event.endpoint = displayUrl(endpoint.requestUrl());
      event.apiStyle = std::string(apiStyleName(endpoint.style));
      event.message = fmt::format("asking {} at {} ({} API){}", event.model, event.endpoint, event.apiStyle,
                                  endpoint.modelIsDefault ? " — the default model; name one with --model or NNDNA_LLM_MODEL" : "");
      send(std::move(event));
    }
    std::vector<ChatMessage> conversation{{ChatMessage::Role::user, designRequest(request_.prompt, request_.source)}};
    std::string purpose = request_.source ? "asking for the change" : "asking for a spec";
    const int rounds = 1 + std::max(0, request_.maxRepairs);
    for (int round = 1; round <= rounds; ++round) {
      if (cancelledNow()) return;
      Attempt attempt;
      attempt.number = round;
      DesignEvent started = make(EventKind::attempt_started, round);
      started.message = fmt::format("attempt {}: {}", round, purpose);
      send(std::move(started));

      std::optional<ChatAnswer> answer = ask(client, conversation, round);
      if (!answer) return;
      LlmCall call;
      call.model = answer->model;
      call.promptTokens = answer->promptTokens;
      call.completionTokens = answer->completionTokens;
      call.costUsd = xray::estimateCostUsd(xray::LlmUsage{
          .model = answer->model, .promptTokens = answer->promptTokens, .completionTokens = answer->completionTokens});
      call.latencySeconds = answer->latencySeconds;
      call.httpAttempts = answer->httpAttempts;
      attempt.llm = call;
      {
        DesignEvent event = make(EventKind::llm_answer, round);
        event.llm = call;
        event.message = fmt::format("attempt {}: {} answered in {:.1f} s: {} tokens in, {} out, {}", round,
                                    call.model, call.latencySeconds, withThousands(call.promptTokens),
                                    withThousands(call.completionTokens), costText(call.costUsd));
        send(std::move(event));
      }

      const AnswerReading reading = readAnswer(answer->text);
      conversation.push_back({ChatMessage::Role::assistant, answer->text});
      if (!reading.source) {
        attempt.answerProblem = clean(reading.problem);
        DesignEvent event = make(EventKind::answer_unusable, round);
        event.reason = reading.problem;
        event.message = fmt::format("attempt {}: the answer holds no spec: {}", round, reading.problem);
        send(std::move(event));
        conversation.push_back({ChatMessage::Role::user, reanswerRequest(attempt.answerProblem)});
        result_.attempts.push_back(std::move(attempt));
        purpose = "asking again for an answer in the agreed form";
        continue;
      }
      attempt.source = *reading.source;
      CheckedSpec checked = check(attempt);
      result_.attempts.push_back(attempt);
      if (checked.cancelled) {
        cancelNow();
        return;
      }
      if (checked.outcome.ok) {
        succeed(std::move(attempt.source), std::move(*checked.model));
        return;
      }
      conversation.push_back({ChatMessage::Role::user, repairRequest(checked.outcome, attempt.source)});
      purpose = checked.outcome.line > 0
                    ? fmt::format("asking for a fix of the {} at line {}", checked.outcome.errorKind, checked.outcome.line)
                    : fmt::format("asking for a fix of the {}", checked.outcome.errorKind);
    }
    // Every round used. A spec that failed is the user's to fix; answers with no spec at all
    // leave nothing to fix, and the offline designer answers instead.
    for (auto it = result_.attempts.rbegin(); it != result_.attempts.rend(); ++it) {
      if (!it->source.empty()) {
        fail(*it);
        return;
      }
    }
    fallBack(fmt::format("the model's answers held no spec ({})", result_.attempts.back().answerProblem));
  }

  const DesignRequest& request_;
  const ProgressCallback& onEvent_;
  std::stop_token stop_;
  Redactor redactor_;
  DesignResult result_;
};

}  // namespace

DesignResult design(const DesignRequest& request, const ProgressCallback& onEvent, std::stop_token stop) {
  return Run(request, onEvent, stop).run();
}

}  // namespace nndna::designer
