// OpenTelemetry export: OTLP/JSON (an ExportTraceServiceRequest), as the OpenTelemetry
// Collector's otlpjsonfile receiver, Jaeger and Phoenix load it. OTLP/JSON differs from the
// protobuf JSON mapping in two ways that matter here: trace and span ids are lowercase hex (not
// base64), and 64-bit integers (times, int attributes) are strings.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <unordered_set>

#include "xray/recorder.hpp"

namespace nndna::xray {
namespace {

using nlohmann::json;

std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 1469598103934665603ull) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string hex16(std::uint64_t value) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

json attribute(std::string key, json value) {
  json typed;
  if (value.is_boolean()) typed = {{"boolValue", value.get<bool>()}};
  else if (value.is_number_integer()) typed = {{"intValue", std::to_string(value.get<std::int64_t>())}};
  else if (value.is_number()) typed = {{"doubleValue", value.get<double>()}};
  else if (value.is_string()) typed = {{"stringValue", value.get<std::string>()}};
  else if (value.is_array() && std::all_of(value.begin(), value.end(), [](const json& v) { return v.is_string(); })) {
    json values = json::array();
    for (const auto& v : value) values.push_back({{"stringValue", v}});
    typed = {{"arrayValue", {{"values", std::move(values)}}}};
  } else {
    typed = {{"stringValue", value.dump(-1, ' ', false, json::error_handler_t::replace)}};
  }
  return {{"key", std::move(key)}, {"value", std::move(typed)}};
}

// The GenAI provider of a model name (gen_ai.provider.name's well-known values).
std::string providerOf(std::string_view model) {
  if (model.starts_with("gpt-") || model.starts_with("o1") || model.starts_with("o3") || model.starts_with("o4"))
    return "openai";
  if (model.starts_with("claude")) return "anthropic";
  if (model.starts_with("gemini")) return "gcp.gemini";
  return "";
}

// OpenInference's span kind (what Phoenix groups by), from xray's kind.
std::string openInferenceKind(std::string_view kind) {
  if (kind == "llm") return "LLM";
  if (kind == "tool") return "TOOL";
  if (kind == "agent") return "AGENT";
  if (kind == "retrieval" || kind == "retriever") return "RETRIEVER";
  if (kind == "embedding") return "EMBEDDING";
  return "CHAIN";
}

// Nanoseconds since the Unix epoch of the time `ms` after a trace's start, as OTLP writes it (a
// decimal string; its field is unsigned). Trace files are untrusted: a start in the year 2539 or
// a latency of 1e300 ms is a wrong number, not an overflow (found by the xray_trace_json fuzz
// target), so the sum saturates at [0, 2^63).
std::string unixNanoText(std::int64_t startUnixMs, double ms) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr double kMaxOffsetNs = 9.0e18;  // a double below 2^63: the cast below is defined
  const double offsetNs = std::isnan(ms) ? 0.0 : std::clamp(ms * 1e6, -kMaxOffsetNs, kMaxOffsetNs);
  std::int64_t origin = 0;
  if (__builtin_mul_overflow(startUnixMs, std::int64_t{1'000'000}, &origin)) origin = startUnixMs < 0 ? -kMax : kMax;
  std::int64_t total = 0;
  if (__builtin_add_overflow(origin, static_cast<std::int64_t>(offsetNs), &total)) total = offsetNs < 0 ? 0 : kMax;
  return std::to_string(std::max<std::int64_t>(total, 0));
}

}  // namespace

json toOtlpJson(const Trace& trace, const OtlpOptions& options) {
  // Ids: the trace's from its title and start; each span's from its own id, unique within the
  // trace and never all zeros (both are invalid in OTLP).
  const std::string seed = trace.title + "\n" + std::to_string(trace.startUnixMs);
  const std::string traceId = hex16(fnv1a(seed)) + hex16(fnv1a(seed, 0x84222325cbf29ce4ull) | 1);
  std::vector<std::string> spanIds(trace.nodes.size());
  std::unordered_set<std::string> used;
  for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
    std::uint64_t h = fnv1a(trace.nodes[i].id);
    while (h == 0 || used.contains(hex16(h))) h = fnv1a("+", h);
    spanIds[i] = hex16(h);
    used.insert(spanIds[i]);
  }
  auto unixNano = [&](double ms) { return unixNanoText(trace.startUnixMs, ms); };

  json spans = json::array();
  for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
    const TraceNode& n = trace.nodes[i];
    const auto& meta = n.meta();
    json attributes = json::array();
    if (!n.kind().empty()) attributes.push_back(attribute("xray.kind", n.kind()));
    attributes.push_back(attribute("xray.id", n.id));
    attributes.push_back(attribute("thread.id", n.thread));
    if (n.open) attributes.push_back(attribute("xray.open", true));
    if (!n.tags().empty()) attributes.push_back(attribute("xray.tags", n.tags()));
    for (const auto& [name, text] : n.inputs()) attributes.push_back(attribute("xray.input." + name, text));
    if (n.output()) attributes.push_back(attribute("xray.output", *n.output()));
    for (const auto& [key, value] : meta.items()) attributes.push_back(attribute("xray.meta." + key, value));
    // OpenInference (Phoenix) and the GenAI semantic conventions for LLM calls.
    attributes.push_back(attribute("openinference.span.kind", openInferenceKind(n.kind())));
    if (json input = json::object(); !n.inputs().empty()) {
      for (const auto& [name, text] : n.inputs()) input[name] = text;
      attributes.push_back(attribute("input.value", input.dump(-1, ' ', false, json::error_handler_t::replace)));
    }
    if (n.output()) attributes.push_back(attribute("output.value", *n.output()));
    auto model = meta.find("model");
    bool llm = n.kind() == "llm" || (model != meta.end() && model->is_string());
    if (llm) {
      attributes.push_back(attribute("gen_ai.operation.name", "chat"));
      if (model != meta.end() && model->is_string()) {
        std::string name = *model;
        attributes.push_back(attribute("gen_ai.request.model", name));
        attributes.push_back(attribute("gen_ai.response.model", name));
        attributes.push_back(attribute("llm.model_name", name));
        if (std::string provider = providerOf(name); !provider.empty()) {
          attributes.push_back(attribute("gen_ai.provider.name", provider));
          attributes.push_back(attribute("gen_ai.system", provider));  // the name before semconv 1.37
        }
      }
      for (auto [key, genAi, openInference] :
           {std::tuple{"prompt_tokens", "gen_ai.usage.input_tokens", "llm.token_count.prompt"},
            std::tuple{"completion_tokens", "gen_ai.usage.output_tokens", "llm.token_count.completion"},
            std::tuple{"total_tokens", "", "llm.token_count.total"}}) {
        auto it = meta.find(key);
        if (it == meta.end() || !it->is_number_integer()) continue;
        if (*genAi != '\0') attributes.push_back(attribute(genAi, *it));
        attributes.push_back(attribute(openInference, *it));
      }
    }
    json span{{"traceId", traceId},
              {"spanId", spanIds[i]},
              {"name", n.name},
              {"kind", llm ? 3 : 1},  // SPAN_KIND_CLIENT for a model call, else SPAN_KIND_INTERNAL
              {"startTimeUnixNano", unixNano(n.startMs)},
              {"endTimeUnixNano", unixNano(n.startMs + n.latencyMs)},
              {"attributes", std::move(attributes)},
              {"status", n.error() ? json{{"code", 2}, {"message", *n.error()}} : json{{"code", 0}}}};
    if (n.parent) span["parentSpanId"] = spanIds[*n.parent];
    spans.push_back(std::move(span));
  }
  json resource{{"attributes", json::array({attribute("service.name", options.serviceName)})}};
  if (!trace.title.empty()) resource["attributes"].push_back(attribute("xray.title", trace.title));
  json scope{{"name", "nndna.xray"}, {"version", "1"}};
  return {{"resourceSpans",
           json::array({{{"resource", std::move(resource)},
                         {"scopeSpans", json::array({{{"scope", std::move(scope)}, {"spans", std::move(spans)}}})}}})}};
}

}  // namespace nndna::xray
