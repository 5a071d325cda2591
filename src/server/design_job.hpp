// One design job: plain English (and the editor's spec, to change) in, a designed spec and its
// diagram out — the designer (src/designer) run on the server, in the job pool (docs/serve.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <stop_token>
#include <string>

#include "designer/designer.hpp"
#include "server/diagram_job.hpp"
#include "server/job_pool.hpp"

namespace nndna::server {

// How the server designs: `nndna serve`'s designer flags and the NNDNA_LLM_* environment.
struct DesignSettings {
  std::optional<designer::Endpoint> endpoint;  // nullopt: the offline designer
  std::string whyOffline;                      // said in the answer when endpoint is nullopt
  int maxRepairs = 3;
  designer::HttpSettings http;
  std::chrono::seconds timeout{600};  // a design request's deadline (504 beyond)
  std::size_t perMinute = 10;         // design requests per client address a minute; 0: no limit
};

struct DesignJobRequest {
  std::string prompt;
  std::optional<std::string> source;  // the editor's spec, to change
};

// Runs the designer. Each of its events is reported through `progress` as it happens
// (`{"type":"design","event":{...designer::toJson(event)}}`), then the stages of drawing the
// result (`{"type":"stage",...}`, as runDiagramJob's). The outcome:
//   200: the /api/diagram answer plus "source" (the designed spec) and "design" (offline,
//        fallback_reason, attempts);
//   422: the error answer of the last attempt plus "source" (the last spec tried, to fix by hand);
//   409: cancelled (`stop`).
// Candidates are compiled as kSpecFileName with the diagram jobs' sandbox and cache. The API key
// appears in no event and no outcome: every byte that leaves is scrubbed of it.
JobOutcome runDesignJob(const DesignJobRequest& request, const DesignSettings& design,
                        const DiagramJobSettings& run, std::stop_token stop, const ProgressFn& progress);

}  // namespace nndna::server
