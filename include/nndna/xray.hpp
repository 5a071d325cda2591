// nndna xray: an execution-graph debugger for C++ programs, and a scalar autodiff engine whose
// backward pass can be stepped through node by node.
//
// Link the `nndna_xray` library; nothing else of nndna is needed. See docs/xray.md.
//
//   nndna::xray::Session session;                   // capture this run in process
//   {
//     XRAY_SPAN("fetch_profile", {{"user_id", id}});  // RAII span with named inputs
//     auto answer = xray::traced("call_llm", callLlm, {.kind = "llm"})(prompt);
//   }
//   nndna::xray::Trace trace = session.finish();
//   std::string html = nndna::xray::toHtml(trace);
//
// Or stream every span of a whole process to a file: run it with NNDNA_XRAY_OUT=trace.jsonl
// (`nndna xray run PROGRAM --html trace.html` does this and writes the viewer afterwards).
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace nndna::xray {

// ============================================================================================
// Turning values into text
// ============================================================================================

// Specialise to control how a type appears in traces:
//   template <> struct nndna::xray::TextOf<Money> {
//     static std::string convert(const Money& m) { return m.str(); }
//   };
template <class T>
struct TextOf;

// Longest text kept for an input or output (longer text ends in "…"). Default 2000 bytes.
void setMaxTextLength(std::size_t bytes) noexcept;
std::size_t maxTextLength() noexcept;

namespace detail {
std::string truncateText(std::string text);
std::string demangle(const char* mangledName);

template <class T>
concept HasTextOf = requires(const T& v) {
  { TextOf<T>::convert(v) } -> std::convertible_to<std::string>;
};
template <class T>
concept StringLike = std::is_convertible_v<const T&, std::string_view>;
template <class T>
concept FmtFormattable = fmt::is_formattable<T>::value;
template <class T>
concept Streamable = requires(std::ostream& os, const T& v) { os << v; };
template <class T>
concept JsonConvertible = std::is_constructible_v<nlohmann::json, const T&>;

// The customisation chain, most specific first.
template <class T>
std::string textOfUntruncated(const T& value) {
  if constexpr (HasTextOf<T>) {
    return TextOf<T>::convert(value);
  } else if constexpr (StringLike<T>) {
    return std::string(std::string_view(value));
  } else if constexpr (FmtFormattable<T>) {
    return fmt::format("{}", value);
  } else if constexpr (Streamable<T>) {
    std::ostringstream out;
    out << value;
    return std::move(out).str();
  } else if constexpr (JsonConvertible<T>) {
    return nlohmann::json(value).dump();
  } else {
    return "<" + demangle(typeid(T).name()) + ">";
  }
}
}  // namespace detail

// The trace text of any value: TextOf<T>, strings, fmt-formattable types (numbers, ranges,
// tuples…), `operator<<`, a user `to_json`, or else `<TypeName>`; truncated to maxTextLength().
template <class T>
std::string toText(const T& value) {
  return detail::truncateText(detail::textOfUntruncated(value));
}

// True for input names that look like secrets (api_key, authorization, password, secret, token,
// access_token…); their values are never formatted, only recorded as "[REDACTED]".
bool looksSecret(std::string_view name) noexcept;
inline constexpr std::string_view kRedacted = "[REDACTED]";

// ============================================================================================
// Spans
// ============================================================================================

// A named input of a span. Holds only a reference to the value: it is formatted when the span
// is recorded, so a span with tracing off never formats anything. Use it in the span's own
// full-expression (as XRAY_SPAN and traced() do).
class Arg {
 public:
  template <class T>
  Arg(std::string_view name, const T& value) noexcept
      : name_(name), value_(static_cast<const void*>(std::addressof(value))), format_(&formatErased<T>) {}

  std::string_view name() const noexcept { return name_; }
  std::string text() const { return format_(value_); }

 private:
  template <class T>
  static std::string formatErased(const void* value) {
    return toText(*static_cast<const T*>(value));
  }
  std::string_view name_;
  const void* value_;
  std::string (*format_)(const void*);
};

struct SpanOptions {
  std::string_view kind{};                         // e.g. "llm", "tool", "retrieval"
  std::initializer_list<std::string_view> tags{};    // free-form labels
  std::initializer_list<std::string_view> redact{};  // more input names to redact
  bool captureOutput = true;                       // false: output() records nothing
};

namespace detail {
// Tracing is on while a Session is active or the process streams to NNDNA_XRAY_OUT. Read on
// every span construction: this is what makes a disabled span nearly free.
inline std::atomic<bool> g_enabled{false};

struct SpanSpec {
  std::string_view name;
  std::span<const Arg> inputs;
  std::string_view kind;
  std::span<const std::string_view> tags;
  std::span<const std::string_view> redact;
  bool captureOutput = true;
};
struct ThreadState;
}  // namespace detail

// True while spans are being recorded.
inline bool enabled() noexcept { return detail::g_enabled.load(std::memory_order_relaxed); }

// An RAII span: opens on construction, closes on destruction, nests under the span open on this
// thread (or the context adopted with ContextScope). Left by an exception, it records
// "TypeName: what()" as its error; the exception propagates unchanged.
class Span {
 public:
  explicit Span(std::string_view name, std::initializer_list<Arg> inputs = {},
                const SpanOptions& options = {}) {
    if (enabled()) [[unlikely]]
      begin({name, std::span<const Arg>(inputs.begin(), inputs.size()), options.kind,
             std::span<const std::string_view>(options.tags.begin(), options.tags.size()),
             std::span<const std::string_view>(options.redact.begin(), options.redact.size()),
             options.captureOutput});
  }
  explicit Span(const detail::SpanSpec& spec) {
    if (enabled()) [[unlikely]]
      begin(spec);
  }
  ~Span() {
    if (thread_ != nullptr) [[unlikely]]
      end();
  }
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;

  // True when this span is being recorded.
  bool active() const noexcept { return thread_ != nullptr; }

  template <class T>
  void output(const T& value) {
    if (active() && wantsOutput()) setOutputText(toText(value));
  }
  void error(std::string_view message);
  void tag(std::string_view tag);
  void meta(std::string_view key, nlohmann::json value);

 private:
  void begin(const detail::SpanSpec& spec);
  void end() noexcept;
  bool wantsOutput() const noexcept;
  void setOutputText(std::string text);

  detail::ThreadState* thread_ = nullptr;
  std::uint32_t depth_ = 0;
  int uncaughtAtStart_ = 0;
};

#define NNDNA_XRAY_CONCAT_INNER(a, b) a##b
#define NNDNA_XRAY_CONCAT(a, b) NNDNA_XRAY_CONCAT_INNER(a, b)
// XRAY_SPAN("name") or XRAY_SPAN("name", {{"input", value}, ...}) or with SpanOptions after.
#define XRAY_SPAN(...) ::nndna::xray::Span NNDNA_XRAY_CONCAT(xray_span_, __LINE__)(__VA_ARGS__)

// Metadata and errors for the span currently open on this thread, from code that has no handle
// on it (no-ops when tracing is off or no span is open on this thread).
void annotate(std::string_view key, nlohmann::json value);
void annotateError(std::string_view message);

// --- LLM metadata and cost -------------------------------------------------------------------

struct LlmUsage {
  std::string_view model{};
  std::int64_t promptTokens = 0;
  std::int64_t completionTokens = 0;
  std::optional<std::int64_t> totalTokens{};  // default: prompt + completion
};

// US dollars per million tokens.
struct ModelPrice {
  double inputPerMillion = 0;
  double outputPerMillion = 0;
};

// Sets meta.model, prompt_tokens, completion_tokens, total_tokens and, when the model has a
// price, estimated_cost_usd on the current span.
void annotate(const LlmUsage& usage);
// Adds or replaces a model's price. Lookup takes the longest registered prefix of the model
// name, so "gpt-4o-mini" also prices "gpt-4o-mini-2024-07-18".
void setModelPrice(std::string_view model, ModelPrice price);
std::optional<ModelPrice> modelPrice(std::string_view model);
std::optional<double> estimateCostUsd(const LlmUsage& usage);

// --- Carrying the current span to another thread ----------------------------------------------

class Context {
 public:
  Context() = default;
  std::uint64_t spanId() const noexcept { return spanId_; }
  explicit operator bool() const noexcept { return spanId_ != 0; }

 private:
  friend Context currentContext() noexcept;
  explicit Context(std::uint64_t id) : spanId_(id) {}
  std::uint64_t spanId_ = 0;
};

// The span open on this thread (or the adopted context), to hand to another thread.
Context currentContext() noexcept;

// While alive, spans opened on this thread with no enclosing span nest under the context's span.
class ContextScope {
 public:
  explicit ContextScope(Context context);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  detail::ThreadState* thread_ = nullptr;
  std::uint32_t depth_ = 0;
};

// Wraps a callable so that it runs under the caller's current span, wherever it is invoked
// (a std::thread, a thread pool task…).
template <class F>
auto bindContext(F fn) {
  return [context = currentContext(), fn = std::move(fn)](auto&&... args) mutable -> decltype(auto) {
    ContextScope scope(context);
    return fn(std::forward<decltype(args)>(args)...);
  };
}

// --- Function wrapper ---------------------------------------------------------------------------

struct TracedOptions {
  std::string kind{};
  std::vector<std::string> tags{};
  std::vector<std::string> argNames{};  // names of the inputs; default arg0, arg1, …
  std::vector<std::string> redact{};
  bool captureOutput = true;
};

namespace detail {
std::string_view defaultArgName(std::size_t index) noexcept;
std::string describeCurrentException();
}  // namespace detail

// `traced("call_llm", fn)(args…)`: calls fn inside a span that records the arguments, the result
// (unless void or captureOutput is false) and an exception ("TypeName: what()", rethrown).
template <class F>
class Traced {
 public:
  Traced(std::string name, F fn, TracedOptions options)
      : name_(std::move(name)), fn_(std::move(fn)), options_(std::move(options)) {
    for (const auto& t : options_.tags) tagViews_.emplace_back(t);
    for (const auto& r : options_.redact) redactViews_.emplace_back(r);
  }

  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    if (!enabled()) return std::invoke(fn_, std::forward<Args>(args)...);
    std::size_t index = 0;
    std::array<Arg, sizeof...(Args)> inputs{Arg(argName(index++), args)...};
    Span span(detail::SpanSpec{name_, inputs, options_.kind, tagViews_, redactViews_,
                               options_.captureOutput});
    using Result = std::invoke_result_t<F&, Args&&...>;
    try {
      if constexpr (std::is_void_v<Result>) {
        std::invoke(fn_, std::forward<Args>(args)...);
      } else {
        decltype(auto) result = std::invoke(fn_, std::forward<Args>(args)...);
        span.output(result);
        return result;  // moves a value, passes a reference through
      }
    } catch (...) {
      span.error(detail::describeCurrentException());
      throw;
    }
  }

 private:
  std::string_view argName(std::size_t index) const noexcept {
    return index < options_.argNames.size() ? std::string_view(options_.argNames[index])
                                            : detail::defaultArgName(index);
  }
  std::string name_;
  F fn_;
  TracedOptions options_;
  std::vector<std::string_view> tagViews_;
  std::vector<std::string_view> redactViews_;
};

template <class F>
Traced<std::decay_t<F>> traced(std::string name, F&& fn, TracedOptions options = {}) {
  return Traced<std::decay_t<F>>(std::move(name), std::forward<F>(fn), std::move(options));
}

// ============================================================================================
// Traces: the result of a run
// ============================================================================================

// One finished (or still open) span. A Trace stores them flat; `children` and `parent` are
// indices into Trace::nodes, so no algorithm over a trace needs recursion.
struct TraceNode {
  std::string id;
  std::string name;
  std::vector<std::pair<std::string, std::string>> inputs;
  std::optional<std::string> output;
  std::optional<std::string> error;
  double startMs = 0;    // relative to the start of the session / stream
  double latencyMs = 0;  // for open spans: until the end of the recording
  std::string kind;
  std::vector<std::string> tags;
  nlohmann::json meta = nlohmann::json::object();
  bool open = false;  // never finished (crash, kill, or still running at the end)
  int thread = 0;
  std::optional<std::size_t> parent;
  std::vector<std::size_t> children;
};

struct Trace {
  std::vector<TraceNode> nodes;  // parents before children; siblings by start time
  std::vector<std::size_t> roots;
  std::string title;
  // How a streamed run ended, when not normally: "terminated: TypeName: what()" or
  // "no exit record (crashed or killed)". Empty for sessions and normal exits.
  std::string exitNote;
};

struct TraceSummary {
  std::size_t nodes = 0;
  std::size_t errors = 0;
  std::size_t open = 0;
  double totalMs = 0;  // from the first span's start to the last span's end
  std::int64_t totalTokens = 0;
  double costUsd = 0;
};
TraceSummary summarize(const Trace& trace);

// In-process capture: spans opened while a Session is active are collected and returned by
// finish(). One session at a time per process.
class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  // Stops capturing and returns the trace. Spans still open on the calling thread appear with
  // open = true.
  Trace finish();

 private:
  bool finished_ = false;
  std::uint64_t generation_ = 0;
};

// Process-wide streaming (what NNDNA_XRAY_OUT=path switches on at startup): every span writes
// one JSON line when it opens and one when it closes, each with a single write(2) to a file
// opened O_APPEND, so a crash or SIGKILL loses nothing that was already written; spans with no
// closing line are shown as open. Throws std::system_error if the file cannot be opened.
void startStreaming(const std::string& path);
void stopStreaming() noexcept;
// True while this process streams spans to a file (NNDNA_XRAY_OUT or startStreaming). The
// variable itself is removed from the environment at startup, so child processes do not append.
bool streaming() noexcept;
inline constexpr const char* kStreamEnvVar = "NNDNA_XRAY_OUT";

// --- Exports ------------------------------------------------------------------------------------

inline constexpr std::string_view kTraceFormat = "nndna-xray-trace";
inline constexpr int kTraceFormatVersion = 1;
inline constexpr std::string_view kEventFormat = "nndna-xray-events";
inline constexpr int kEventFormatVersion = 1;

// Trace JSON ("nndna-xray-trace" v1, flow-xray's node shape; see docs/xray.md).
nlohmann::json toJson(const Trace& trace);
// Reads trace JSON or an event stream (JSON lines); throws std::runtime_error when invalid.
Trace traceFromJson(const nlohmann::json& document);
Trace readEventStream(std::istream& lines);
Trace readTraceFile(const std::string& path);

// Chrome trace-event JSON (opens in Perfetto and chrome://tracing).
nlohmann::json toChromeTrace(const Trace& trace);

struct GraphOptions {
  double slowMs = 1000;  // spans at least this slow are drawn as slow
};
// The call graph: calls with the same name under the same parent group fold into one box "×N".
std::string toDot(const Trace& trace, const GraphOptions& options = {});
// One self-contained offline HTML page: header totals, call graph, timeline, details, search.
std::string toHtml(const Trace& trace, const GraphOptions& options = {});

// ============================================================================================
// Value: scalar reverse-mode autodiff
// ============================================================================================

namespace detail {
struct ValueNode;
struct ValueNodeAccess;
}

// A scalar in a computation graph. Copies share the node (like a Python reference). Every
// algorithm over the graph is iterative, and destruction unlinks chains without recursion, so a
// graph of millions of nodes builds, differentiates and dies without deep stacks.
class Value {
 public:
  Value(double data = 0.0, std::string label = {});  // NOLINT: implicit from numbers on purpose

  double data() const noexcept;
  double grad() const noexcept;
  void setData(double data) noexcept;
  void setGrad(double grad) noexcept;
  const std::string& label() const noexcept;
  void setLabel(std::string label);
  // "" for leaves; "+", "-", "*", "/", "neg", "**k", "pow", "relu", "tanh", "exp", "log", "sigmoid".
  std::string op() const;
  // Stable for the node's lifetime and unique in the process ("v17").
  std::string id() const;
  std::uint64_t numericId() const noexcept;
  std::vector<Value> parents() const;
  // label, else op, else id.
  std::string displayName() const;

  // Sets every grad in the graph to zero, seeds this node's grad, and applies each node's local
  // backward rule in reverse topological order.
  void backward(double seed = 1.0);

  Value relu() const;
  Value tanh() const;
  Value exp() const;
  Value log() const;
  Value sigmoid() const;

  friend Value operator+(const Value& a, const Value& b);
  friend Value operator-(const Value& a, const Value& b);
  friend Value operator*(const Value& a, const Value& b);
  friend Value operator/(const Value& a, const Value& b);
  friend Value operator-(const Value& a);
  friend Value pow(const Value& base, double exponent);
  friend Value pow(const Value& base, const Value& exponent);

  bool sameNode(const Value& other) const noexcept { return node_ == other.node_; }
  // Applies only this node's local rule (adds to its parents' grads). Used by the stepper.
  void applyLocalBackward() const;

 private:
  explicit Value(std::shared_ptr<detail::ValueNode> node) : node_(std::move(node)) {}
  friend struct detail::ValueNodeAccess;
  std::shared_ptr<detail::ValueNode> node_;
};

inline Value operator+(double a, const Value& b) { return Value(a) + b; }
inline Value operator-(double a, const Value& b) { return Value(a) - b; }
inline Value operator*(double a, const Value& b) { return Value(a) * b; }
inline Value operator/(double a, const Value& b) { return Value(a) / b; }
inline Value operator+(const Value& a, double b) { return a + Value(b); }
inline Value operator-(const Value& a, double b) { return a - Value(b); }
inline Value operator*(const Value& a, double b) { return a * Value(b); }
inline Value operator/(const Value& a, double b) { return a / Value(b); }
Value relu(const Value& v);
Value tanh(const Value& v);
Value exp(const Value& v);
Value log(const Value& v);
Value sigmoid(const Value& v);

// Every node reachable from root, each after all of its parents (root last). Iterative.
std::vector<Value> topologicalOrder(const Value& root);
void zeroGrad(const Value& root);
void backwardFrom(const Value& root, double seed = 1.0);

// DOT of the graph (rankdir BT, one box per node: name, op, data[, grad]).
std::string valueGraphToDot(const Value& root, bool showGrad);
// IR JSON version 1: {version, root_id, nodes[{id, op, label, data, grad?, parents}]}.
nlohmann::json valueGraphToIr(const Value& root, bool includeGrad = true);

// --- Backward debugger ------------------------------------------------------------------------

// Per-node backward: zeroes the graph, seeds the root, then each step() applies one node's local
// rule in reverse topological order and returns that node.
class BackwardStepper {
 public:
  explicit BackwardStepper(const Value& root, double seed = 1.0);
  std::optional<Value> step();
  std::size_t size() const noexcept { return order_.size(); }
  std::size_t done() const noexcept { return next_; }

 private:
  std::vector<Value> order_;  // reverse topological order
  std::size_t next_ = 0;
};

struct Snapshot {
  std::string name;  // forward, backward_step_0 … backward_step_{n-1}, after_backward
  std::string dot;
};

class GraphDebugger {
 public:
  explicit GraphDebugger(Value root) : root_(std::move(root)) {}
  std::string dotForward() const { return valueGraphToDot(root_, false); }
  std::string dotBackward() const { return valueGraphToDot(root_, true); }
  nlohmann::json irForward() const { return valueGraphToIr(root_, false); }
  nlohmann::json irBackward() const { return valueGraphToIr(root_, true); }
  // Runs backward on the root (mutating grads) and returns the snapshots in order.
  std::vector<Snapshot> namedSnapshots(double seed = 1.0, bool includeStepDots = true) const;
  // The interactive stepper page: one Graphviz layout, the gradients of every step stored as
  // deltas, next / previous / slider. `startAtEnd` opens it after the backward pass.
  std::string stepperHtml(std::string_view title, bool startAtEnd = false, double seed = 1.0) const;

 private:
  Value root_;
};

}  // namespace nndna::xray
