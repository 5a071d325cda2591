#include "server/diagram_job.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <stdexcept>

#include "diagram/checked_model.hpp"
#include "diagram/layout_plan.hpp"
#include "nndna/diagram.hpp"
#include "nndna/ir.hpp"
#include "render/svg_render.hpp"
#include "server/error_locations.hpp"

namespace nndna::server {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string dumped(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Timings of the stages, for the answer; the progress events carry the same figures as they come.
struct StageTimer {
  const ProgressFn& progress;
  json timings = json::object();
  bool cacheHit = false;

  void start(std::string_view stage) const {
    progress(dumped({{"type", "stage"}, {"stage", stage}, {"state", "start"}}));
  }
  void done(std::string_view stage, double seconds, bool hit = false) {
    timings[std::string(stage)] = seconds;
    json event = {{"type", "stage"}, {"stage", stage}, {"state", "done"}, {"seconds", seconds}};
    if (stage == "compile") {
      event["cache_hit"] = hit;
      cacheHit = hit;
    }
    progress(dumped(event));
  }
  // Runs `fn` as the stage `stage`.
  template <class Fn>
  auto timed(std::string_view stage, Fn&& fn) {
    start(stage);
    const auto t0 = Clock::now();
    auto result = fn();
    done(stage, std::chrono::duration<double>(Clock::now() - t0).count());
    return result;
  }
};

// HTTP status for a spec runner error: the spec's own faults are 422; a cancelled run 409; the
// server's own trouble (toolchain missing, cache not writable) 500.
int statusFor(specrun::SpecRunError::Kind kind) {
  using Kind = specrun::SpecRunError::Kind;
  switch (kind) {
    case Kind::compile_error:
    case Kind::trace_error:
    case Kind::spec_error:
    case Kind::crash:
    case Kind::timeout:
    case Kind::memory_limit:
    case Kind::output_limit:
    case Kind::invalid_output:
    case Kind::invalid_ir: return 422;  // the spec program wrote a graph that breaks the IR's rules
    case Kind::cancelled: return 409;
    // Not a spec run's kinds (the evaluator, Graphviz): the server's own trouble if they appear.
    case Kind::eval_error:
    case Kind::render_error:
    case Kind::setup_error: return 500;
  }
  return 500;
}

// Whether a model's graphs have been checked (ir::validateGraph) since it was made: a spec run's
// model has (the IR reader checks what it reads), a model handed in may not have.
enum class ModelCheck : std::uint8_t { checked, unchecked };

// Builds the model's diagram and lays it out: the 200 answer, or the error a model can cause.
JobOutcome drawn(const ir::TracedModel& model, ModelCheck check, DiagramProduct product, StageTimer& stages,
                 std::stop_token stop, const std::shared_ptr<LayoutWorkers>& workers) {
  // The standalone SVG of a diagram, laid out by a worker when there are workers.
  auto renderSvg = [&](const diagram::Diagram& d) {
    if (!workers) return diagram::renderSvg(d);
    return diagram::detail::finishedSvg(workers->layOut(diagram::detail::planLayout(d), stop), d);
  };
  try {
    diagram::Options options;
    options.summary = product == DiagramProduct::page;  // only the page shows it, not the app's JSON
    const diagram::Diagram d = stages.timed("diagram", [&] {
      return check == ModelCheck::checked ? diagram::buildDiagramOfCheckedModel(model, options)
                                          : diagram::buildDiagram(model, options);
    });
    if (stop.stop_requested()) return {.status = 409, .body = errorBody("cancelled", "the request was cancelled")};
    const std::string svg = stages.timed("layout", [&] { return renderSvg(d); });
    if (product == DiagramProduct::page) {
      return {.status = 200, .body = diagram::renderHtml(d, svg), .contentType = "text/html; charset=utf-8",
              .cacheHit = stages.cacheHit};
    }
    std::string body = R"({"ok":true,"cache_hit":)";
    body += stages.cacheHit ? "true" : "false";
    body += R"(,"svg":)" + dumped(svg);
    if (d.inferAlone) {
      body += R"(,"infer_svg":)" + dumped(stages.timed("layout", [&] { return renderSvg(*d.inferAlone); }));
    }
    body += R"(,"timings":)" + dumped(stages.timings);
    // The diagram's own JSON, as `nndna diagram -o x.json` writes it, placed in the answer as is.
    body += R"(,"diagram":)" + diagram::toJson(d, -1) + "}";
    return {.status = 200, .body = std::move(body), .cacheHit = stages.cacheHit};
  } catch (const std::overflow_error& e) {
    // A model whose metrics overflow 64 bits: the user's to fix.
    return {.status = 422, .body = errorBody("diagram_error", e.what(), e.what()), .cacheHit = stages.cacheHit};
  } catch (const render::RenderError& e) {
    return {.status = 500, .body = errorBody("layout_error", e.what()), .cacheHit = stages.cacheHit};
  } catch (const LayoutCancelled&) {
    return {.status = 409, .body = errorBody("cancelled", "the request was cancelled"), .cacheHit = stages.cacheHit};
  }
}

}  // namespace

std::string errorBody(std::string_view kind, std::string_view message, std::string_view diagnosticsFrom) {
  json diagnostics = json::array();
  for (const SourceDiagnostic& d : locateDiagnostics(diagnosticsFrom, kSpecFileName)) {
    diagnostics.push_back({{"line", d.line}, {"column", d.column}, {"severity", d.severity}, {"message", d.message}});
  }
  return dumped({{"ok", false}, {"error", {{"kind", kind}, {"message", message}, {"diagnostics", diagnostics}}}});
}

specrun::RunOptions runOptions(const DiagramJobSettings& settings) {
  specrun::RunOptions options;
  options.cacheDir = settings.cacheDir;
  options.compileLimits = settings.compileLimits;
  options.runLimits = settings.runLimits;
  options.pchBuilder = settings.pchBuilder;
  return options;
}

JobOutcome runDiagramJob(std::string_view source, DiagramProduct product, const DiagramJobSettings& settings,
                         std::stop_token stop, const ProgressFn& progress) {
  StageTimer stages{progress};
  specrun::RunOptions options = runOptions(settings);
  options.stop = stop;
  options.onStage = [&stages](const specrun::StageEvent& e) {
    if (e.finished) {
      stages.done(e.stage, e.seconds, e.cacheHit);
    } else {
      stages.start(e.stage);
    }
  };
  ir::TracedModel model;
  try {
    model = specrun::runSpecSource(source, kSpecFileName, options);
  } catch (const specrun::SpecRunError& e) {
    const std::string_view kind = specrun::kindName(e.kind());
    return {.status = statusFor(e.kind()), .body = errorBody(kind, e.what(), e.what()), .cacheHit = stages.cacheHit};
  }
  if (stop.stop_requested()) return {.status = 409, .body = errorBody("cancelled", "the request was cancelled")};
  return drawn(model, ModelCheck::checked, product, stages, stop, settings.layoutWorkers);
}

JobOutcome diagramAnswer(const ir::TracedModel& model, DiagramProduct product, const ProgressFn& progress,
                         std::stop_token stop, const std::shared_ptr<LayoutWorkers>& layoutWorkers) {
  StageTimer stages{progress};
  return drawn(model, ModelCheck::unchecked, product, stages, stop, layoutWorkers);
}

}  // namespace nndna::server
