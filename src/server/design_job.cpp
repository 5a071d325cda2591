#include "server/design_job.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <exception>

#include "designer/redact.hpp"

namespace nndna::server {

namespace {

using nlohmann::json;

std::string dumped(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// `fields` (a JSON object's members, without braces) put first into the JSON object `body`.
std::string withFields(const std::string& fields, const std::string& body) {
  return "{" + fields + "," + body.substr(1);
}

}  // namespace

JobOutcome runDesignJob(const DesignJobRequest& request, const DesignSettings& design,
                        const DiagramJobSettings& run, std::stop_token stop, const ProgressFn& progress) {
  // The designer scrubs what it reports; the server scrubs again whatever it sends, so that not
  // even a model echoing the key into its spec gets it to the browser.
  const designer::Redactor redactor(design.endpoint ? design.endpoint->apiKey : std::string());
  auto scrubbed = [&redactor](JobOutcome outcome) {
    outcome.body = redactor.scrub(outcome.body);
    return outcome;
  };

  designer::DesignRequest req;
  req.prompt = request.prompt;
  req.source = request.source;
  req.sourceName = std::string(kSpecFileName);  // errors name the editor's lines
  req.endpoint = design.endpoint;
  req.whyOffline = design.whyOffline;
  req.maxRepairs = design.maxRepairs;
  req.http = design.http;
  req.run = runOptions(run);

  designer::DesignResult result;
  try {
    result = designer::design(
        req,
        [&](const designer::DesignEvent& event) {
          progress(redactor.scrub(dumped({{"type", "design"}, {"event", designer::toJson(event)}})));
        },
        stop);
  } catch (const std::exception& e) {
    return scrubbed({.status = 500, .body = errorBody("internal", fmt::format("the design failed: {}", e.what()))});
  }
  if (result.cancelled) return {.status = 409, .body = errorBody("cancelled", "the design was cancelled")};

  json info = {{"offline", result.offline}, {"attempts", result.attempts.size()}};
  if (!result.fallbackReason.empty()) info["fallback_reason"] = result.fallbackReason;
  const std::string fields = R"("source":)" + dumped(result.source) + R"(,"design":)" + dumped(info);
  if (!result.ok) {
    const designer::Attempt* last = result.attempts.empty() ? nullptr : &result.attempts.back();
    const std::string kind = last && last->check ? last->check->errorKind : "design_failed";
    JobOutcome failed{.status = 422, .body = errorBody(kind, result.error, result.error)};
    // Nothing to fix by hand without a spec (a description too long to read).
    if (!result.source.empty()) failed.body = withFields(fields, failed.body);
    return scrubbed(std::move(failed));
  }
  JobOutcome drawn = diagramAnswer(*result.model, DiagramProduct::diagram, progress, stop, run.layoutWorkers);
  if (drawn.status == 200 || drawn.status == 422) drawn.body = withFields(fields, drawn.body);
  return scrubbed(std::move(drawn));
}

}  // namespace nndna::server
