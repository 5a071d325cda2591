// One compile-and-draw job: a spec's source text in, the page's answer out (docs/serve.md).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "server/job_pool.hpp"
#include "server/layout_workers.hpp"
#include "specrun/spec_runner.hpp"

namespace nndna::server {

// What the page gets back.
enum class DiagramProduct {
  diagram,  // JSON: the diagram model (as `nndna diagram -o x.json` writes it), its SVG, timings
  page,     // the self-contained HTML page `nndna diagram -o x.html` writes
};

struct DiagramJobSettings {
  std::optional<std::filesystem::path> cacheDir;  // the spec runner's compile cache
  specrun::SandboxLimits compileLimits = specrun::defaultCompileLimits();
  specrun::SandboxLimits runLimits = specrun::defaultRunLimits();
  // Builds the PCH of a spec's standard headers while the spec compiles without it (an edit is
  // not held up ~1 s by it); null: built before the compile.
  std::shared_ptr<specrun::PchBuilder> pchBuilder;
  // Lays the diagrams out in worker processes (layout_workers.hpp); null: in this process, one
  // at a time.
  std::shared_ptr<LayoutWorkers> layoutWorkers;
};

// The spec runner's options for these settings (compile cache, sandbox limits, PCH builder).
specrun::RunOptions runOptions(const DiagramJobSettings& settings);

// The name every source from the page is compiled and reported under ("model.cpp:12: ...").
inline constexpr std::string_view kSpecFileName = "model.cpp";

// Compiles and runs `source` (sandboxed, through the compile cache), builds its diagram and lays
// it out. Reports each stage as it starts and ends through `progress`
// (`{"type":"stage","stage":"compile","state":"start"}`, `... "state":"done","seconds":0.8}`):
// compile, run, read (the spec runner's), then diagram and layout. Every error a spec can cause is
// answered, never thrown: 422 with the error's kind, message and located diagnostics; 409 when
// `stop` was triggered. Layout runs in the settings' workers, or serialised in this process
// (Graphviz is not thread-safe).
JobOutcome runDiagramJob(std::string_view source, DiagramProduct product, const DiagramJobSettings& settings,
                         std::stop_token stop, const ProgressFn& progress);

// The answer for a model already traced (the designer's result): its diagram built and laid out,
// reported as the stages diagram and layout. The same answers as runDiagramJob's last stages.
JobOutcome diagramAnswer(const ir::TracedModel& model, DiagramProduct product, const ProgressFn& progress,
                         std::stop_token stop, const std::shared_ptr<LayoutWorkers>& layoutWorkers = nullptr);

// The body of an error answer: {"ok":false,"error":{"kind","message","diagnostics":[...]}}.
std::string errorBody(std::string_view kind, std::string_view message, std::string_view diagnosticsFrom = {});

}  // namespace nndna::server
