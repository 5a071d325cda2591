// nndna xray: capturing a run and what is done with it. A Session collects the spans a process
// records (<nndna/xray.hpp>) into a Trace, which is summarised, exported (trace JSON, Chrome
// trace events, OpenTelemetry, DOT, the HTML viewer), read back, overviewed and diffed; and the
// process-wide streaming to a file that NNDNA_XRAY_OUT switches on. See docs/xray.md.
//
// JSON values are declared through <nlohmann/json_fwd.hpp>; include <nlohmann/json.hpp> to use
// the functions that take or return them.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nndna/xray.hpp"

namespace nndna::xray {

// The price of a model (see setModelPrice), and the cost of a call; none for an unknown model.
NNDNA_API std::optional<ModelPrice> modelPrice(std::string_view model);
NNDNA_API std::optional<double> estimateCostUsd(const LlmUsage& usage);

// ============================================================================================
// Traces: the result of a run
// ============================================================================================

// One finished (or still open) span. A Trace stores them flat; `children` and `parent` are
// indices into Trace::nodes, so no algorithm over a trace needs recursion.
//
// What every span has is a field; what few spans carry (inputs, output, error, kind, tags,
// metadata) sits behind one pointer and is read through the accessors below, so that a trace of
// millions of plain spans stays small (bench/xray measures it).
class NNDNA_API TraceNode {
 public:
  std::string id;
  std::string name;
  double startMs = 0;    // relative to the start of the session / stream
  double latencyMs = 0;  // for open spans: until the end of the recording
  std::optional<std::size_t> parent;
  std::vector<std::size_t> children;
  int thread = 0;
  bool open = false;  // never finished (crash, kill, or still running at the end)

  TraceNode();
  ~TraceNode();
  TraceNode(const TraceNode& other);
  TraceNode(TraceNode&& other) noexcept;
  TraceNode& operator=(const TraceNode& other);
  TraceNode& operator=(TraceNode&& other) noexcept;

  using Inputs = std::vector<std::pair<std::string, std::string>>;
  const Inputs& inputs() const noexcept;  // name → text, in order
  const std::optional<std::string>& output() const noexcept;
  const std::optional<std::string>& error() const noexcept;
  const std::string& kind() const noexcept;  // "" when none
  const std::vector<std::string>& tags() const noexcept;
  const nlohmann::json& meta() const noexcept;  // always an object (empty when nothing is set)

  void addInput(std::string name, std::string text);
  void setOutput(std::optional<std::string> text);
  void setError(std::optional<std::string> text);
  void setKind(std::string kind);
  void setTags(std::vector<std::string> tags);
  nlohmann::json& mutableMeta();  // an object

  struct Details;  // defined in the library

 private:
  Details& details();
  std::unique_ptr<Details> details_;
};

struct Trace {
  std::vector<TraceNode> nodes;  // parents before children; siblings by start time
  std::vector<std::size_t> roots;
  std::string title;
  // How a streamed run ended, when not normally: "terminated: TypeName: what()" or
  // "no exit record (crashed or killed)". Empty for sessions and normal exits.
  std::string exitNote;
  // Wall-clock time (Unix epoch, ms) of startMs 0; 0 when unknown (e.g. a file that lacks it).
  std::int64_t startUnixMs = 0;
  // What the reader of this trace should know, e.g. spans closed out of order.
  std::vector<std::string> warnings;
};

struct TraceSummary {
  std::size_t nodes = 0;
  std::size_t errors = 0;
  std::size_t open = 0;
  double totalMs = 0;  // from the first span's start to the last span's end
  std::int64_t totalTokens = 0;
  double costUsd = 0;
};
NNDNA_API TraceSummary summarize(const Trace& trace);

// In-process capture: spans opened while a Session is active are collected and returned by
// finish(). One session at a time per process. Spans opened before the session started (still
// open when it starts) are not part of it; spans it records under them are its roots.
class NNDNA_API Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  // Stops capturing and returns the trace. Spans still open appear with open = true (on every
  // thread; see docs/xray.md for what is read of other threads' open spans).
  Trace finish();

 private:
  bool finished_ = false;
  std::uint64_t generation_ = 0;
  std::int64_t startUnixMs_ = 0;
};

// Process-wide streaming (what NNDNA_XRAY_OUT=path switches on at startup): every span writes
// one JSON line when it opens and one when it closes, each with a single write(2) to a file
// opened O_APPEND, so a crash or SIGKILL loses nothing that was already written; spans with no
// closing line are shown as open. Throws std::system_error if the file cannot be opened.
// stopStreaming waits for lines being written on other threads, then closes the file.
NNDNA_API void startStreaming(const std::string& path);
NNDNA_API void stopStreaming() noexcept;
// True while this process streams spans to a file (NNDNA_XRAY_OUT or startStreaming). The
// variable itself is removed from the environment at startup, so child processes do not append.
NNDNA_API bool streaming() noexcept;
inline constexpr const char* kStreamEnvVar = "NNDNA_XRAY_OUT";

namespace testing {
// For xray's own tests: called by a streaming thread between reading the file descriptor and
// writing its line (a test widens that window to check stopStreaming waits for it).
NNDNA_API void setStreamWriteHook(void (*hook)()) noexcept;
}  // namespace testing

// --- Exports ------------------------------------------------------------------------------------

inline constexpr std::string_view kTraceFormat = "nndna-xray-trace";
inline constexpr int kTraceFormatVersion = 1;
inline constexpr std::string_view kEventFormat = "nndna-xray-events";
inline constexpr int kEventFormatVersion = 1;

// Trace JSON ("nndna-xray-trace" v1, flow-xray's node shape; see docs/xray.md), as a JSON value.
NNDNA_API nlohmann::json toJson(const Trace& trace);
// The same document as text, written in one pass without recursion: its size is linear in the
// trace however deep the nesting (`pretty` indents, up to 32 levels, then stops indenting).
NNDNA_API std::string toJsonText(const Trace& trace, bool pretty = true);

// Limits of the readers of untrusted trace files. Span nesting itself is not limited (it is read
// without recursion); values inside a span (metadata, inputs) are.
struct ReadLimits {
  std::size_t maxValueDepth = 64;  // arrays/objects nested inside one span's metadata or inputs
};
// Reads trace JSON — nndna's or flow-xray's (0.2 and 0.3.x, whose `tags` is an object). Throws
// std::runtime_error naming the JSON path (`$.nodes[0].children[2]`) and what was expected.
NNDNA_API Trace traceFromJson(const nlohmann::json& document, const ReadLimits& limits = {});
NNDNA_API Trace readTraceJson(std::istream& in, const ReadLimits& limits = {});
// Reads an event stream (JSON lines): errors name the line.
NNDNA_API Trace readEventStream(std::istream& lines, const ReadLimits& limits = {});
// Either format, told apart by the first line; errors name the file.
NNDNA_API Trace readTraceFile(const std::string& path, const ReadLimits& limits = {});

// Chrome trace-event JSON (opens in Perfetto and chrome://tracing).
NNDNA_API nlohmann::json toChromeTrace(const Trace& trace);

// OpenTelemetry: OTLP/JSON (an ExportTraceServiceRequest), as an OpenTelemetry Collector's
// file receiver, Jaeger or Phoenix load it. Span ids are derived from the trace's span ids,
// times are absolute (Trace::startUnixMs), LLM spans carry the GenAI semantic conventions'
// attributes (gen_ai.request.model, gen_ai.usage.input_tokens, …).
struct OtlpOptions {
  std::string serviceName = "nndna-xray";
};
NNDNA_API nlohmann::json toOtlpJson(const Trace& trace, const OtlpOptions& options = {});

struct GraphOptions {
  double slowMs = 1000;  // spans at least this slow are drawn as slow
};
// The call graph: calls with the same name under the same parent group fold into one box "×N".
NNDNA_API std::string toDot(const Trace& trace, const GraphOptions& options = {});
// One self-contained offline HTML page: header totals, overview, call graph, timeline, details,
// search.
NNDNA_API std::string toHtml(const Trace& trace, const GraphOptions& options = {});

// --- Overview and diff ------------------------------------------------------------------------

struct ModelUsage {
  std::string model;
  std::size_t calls = 0;
  std::int64_t promptTokens = 0;
  std::int64_t completionTokens = 0;
  double costUsd = 0;
};
struct RepeatedCall {
  std::string name;
  std::vector<std::size_t> nodes;  // every call of `name` with the same inputs
  double totalMs = 0;
};
struct TraceOverview {
  std::vector<std::size_t> criticalPath;  // root to leaf: each step the child that ended last
  std::vector<std::size_t> slowest;       // up to 10 spans, slowest first
  std::vector<RepeatedCall> repeated;     // same name and inputs, more than once; most time first
  std::vector<std::size_t> errors;        // spans with an error, in trace order
  std::vector<ModelUsage> models;         // per model, most cost first
};
NNDNA_API TraceOverview overview(const Trace& trace);

// Spans are matched by their path of names, each with its index among same-named siblings
// ("/agent[0]/call_llm[2]"), as flow-xray's diff does.
struct SpanChange {
  std::string path;
  std::optional<std::size_t> before;  // index in the first trace (none: added)
  std::optional<std::size_t> after;   // index in the second trace (none: removed)
  bool outputChanged = false;
  bool errorChanged = false;
  double latencyDeltaMs = 0;  // after - before
  double costDeltaUsd = 0;
};
struct TraceDiff {
  std::vector<SpanChange> spans;  // every span of either trace, in the order of a walk of both
  std::size_t added = 0, removed = 0, changed = 0, same = 0;
  double latencyDeltaMs = 0;  // of the whole run
  double costDeltaUsd = 0;
};
NNDNA_API TraceDiff diffTraces(const Trace& before, const Trace& after);
// The diff as one offline HTML page: spans added, removed and changed, side by side.
NNDNA_API std::string diffHtml(const Trace& before, const Trace& after, const TraceDiff& diff,
                               std::string_view title = "xray diff");

}  // namespace nndna::xray
