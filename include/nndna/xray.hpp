// nndna xray: an execution-graph debugger for C++ programs, and a scalar autodiff engine whose
// backward pass can be stepped through node by node.
//
// Link the `nndna::xray` library (CMake: find_package(nndna), pkg-config: nndna-xray); nothing
// else of nndna is needed. See docs/xray.md.
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
//
// This header is included by every file that is traced, so it is kept light (no fmt, no
// nlohmann/json.hpp, no <sstream>: bench/xray measures its cost). Functions that take or return
// JSON declare it through <nlohmann/json_fwd.hpp>; include <nlohmann/json.hpp> to use them.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "nndna/export.hpp"

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
NNDNA_API void setMaxTextLength(std::size_t bytes) noexcept;
NNDNA_API std::size_t maxTextLength() noexcept;

// Normalisation of previews (off by default; NNDNA_XRAY_NORMALIZE=1 switches it on at startup):
// UUIDs become <uuid>, ISO 8601 timestamps <timestamp>, paths under /tmp <tmp:NAME> and under
// /home/USER or /Users/USER <path:NAME>, so traces of two runs compare and share cleanly.
NNDNA_API void setNormalizePreviews(bool on) noexcept;
NNDNA_API bool normalizePreviews() noexcept;
// The normalisation itself, on one text.
NNDNA_API std::string normalizePreview(std::string_view text);

namespace detail {
NNDNA_API std::string truncateText(std::string text);
NNDNA_API std::string demangle(const char* mangledName);
// Text of the common scalar types (the library formats them: this header stays light).
NNDNA_API std::string integerText(long long value);
NNDNA_API std::string unsignedText(unsigned long long value);
NNDNA_API std::string floatText(double value);
// A string inside a container: double-quoted with JSON escapes (as fmt prints ranges).
NNDNA_API std::string quotedText(std::string_view text);
// An nlohmann::json value as compact JSON (invalid UTF-8 replaced, never throws for it).
NNDNA_API std::string jsonText(const nlohmann::json& value);
// What `operator<<` writes, through a stream the library owns.
NNDNA_API std::string streamedText(void (*write)(std::ostream&, const void*), const void* value);
// "<TypeName>": the text of a value nothing else can show.
NNDNA_API std::string typeNameText(const std::type_info& type);

// nlohmann::json, named so that it is only completed where a template is instantiated (a user's
// to_json(nlohmann::json&, const T&) implies that user's file includes <nlohmann/json.hpp>).
template <class T>
using DeferredJson = std::conditional_t<sizeof(T) != 0, nlohmann::json, void>;

template <class T>
concept HasTextOf = requires(const T& v) {
  { TextOf<T>::convert(v) } -> std::convertible_to<std::string>;
};
template <class T>
concept IsJson = std::same_as<T, nlohmann::json>;
// Another nlohmann::basic_json (ordered_json, …): printed by its own dump().
template <class T>
concept JsonLike = requires(const T& v) {
  { v.dump(-1, ' ', false, T::error_handler_t::replace) } -> std::convertible_to<std::string>;
};
template <class T>
concept CharPointer = std::same_as<T, const char*> || std::same_as<T, char*>;
template <class T>
concept StringLike = std::is_convertible_v<const T&, std::string_view>;
template <class T>
concept OptionalValue = requires { typename T::value_type; } && std::same_as<T, std::optional<typename T::value_type>>;
template <class T>
concept Streamable = requires(std::ostream& os, const T& v) { os << v; };
template <class T>
concept PairLike = requires(const T& v) {
  v.first;
  v.second;
};
template <class T>
concept TupleLike = requires { std::tuple_size<T>::value; };
template <class T>
concept Range = requires(const T& v) {
  std::begin(v);
  std::end(v);
};
template <class T>
concept MapLike = Range<T> && requires {
  typename T::key_type;
  typename T::mapped_type;
};
template <class T>
concept HasToJson = requires(DeferredJson<T>& j, const T& v) {
  sizeof(DeferredJson<T>);
  to_json(j, v);
};

template <class T>
void writeTo(std::ostream& os, const void* value) {
  os << *static_cast<const T*>(value);
}

template <class T>
std::string textOfUntruncated(const T& value);

// An element of a container: strings and characters quoted, as fmt prints ranges.
template <class T>
std::string elementText(const T& value) {
  if constexpr (!HasTextOf<T> && !JsonLike<T> && !CharPointer<T> && StringLike<T>)
    return quotedText(std::string_view(value));
  else if constexpr (std::same_as<T, char>)
    return "'" + std::string(1, value) + "'";
  else
    return textOfUntruncated(value);
}

template <class T, std::size_t... I>
std::string tupleText(const T& value, std::index_sequence<I...>) {
  std::string out = "(";
  ((out += (I == 0 ? "" : ", ") + elementText(std::get<I>(value))), ...);
  return out + ")";
}

// "[a, b]" or, for maps, "{k: v}"; stops once the text is longer than maxTextLength().
template <class T>
std::string rangeText(const T& range) {
  constexpr bool kMap = MapLike<T>;
  std::string out = kMap ? "{" : "[";
  bool first = true;
  for (const auto& element : range) {
    if (!first) out += ", ";
    first = false;
    if (out.size() > maxTextLength()) {
      out += "\u2026";
      break;
    }
    if constexpr (kMap) out += elementText(element.first) + ": " + elementText(element.second);
    else out += elementText(element);
  }
  return out + (kMap ? "}" : "]");
}

// The customisation chain, most specific first.
template <class T>
std::string textOfUntruncated(const T& value) {
  if constexpr (HasTextOf<T>) {
    return TextOf<T>::convert(value);
  } else if constexpr (IsJson<T>) {
    return jsonText(value);
  } else if constexpr (JsonLike<T>) {
    return value.dump(-1, ' ', false, T::error_handler_t::replace);
  } else if constexpr (CharPointer<T>) {
    return value == nullptr ? std::string("null") : std::string(value);
  } else if constexpr (StringLike<T>) {
    return std::string(std::string_view(value));
  } else if constexpr (std::same_as<T, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::same_as<T, char>) {
    return std::string(1, value);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return integerText(value);
  } else if constexpr (std::is_integral_v<T>) {
    return unsignedText(value);
  } else if constexpr (std::is_floating_point_v<T>) {
    return floatText(static_cast<double>(value));
  } else if constexpr (std::is_null_pointer_v<T>) {
    return "null";
  } else if constexpr (OptionalValue<T>) {
    return value ? textOfUntruncated(*value) : std::string("null");
  } else if constexpr (Streamable<T>) {
    return streamedText(&writeTo<T>, std::addressof(value));
  } else if constexpr (PairLike<T>) {
    return "(" + elementText(value.first) + ", " + elementText(value.second) + ")";
  } else if constexpr (Range<T>) {
    return rangeText(value);
  } else if constexpr (TupleLike<T>) {
    return tupleText(value, std::make_index_sequence<std::tuple_size_v<T>>{});
  } else if constexpr (std::is_enum_v<T>) {
    return integerText(static_cast<long long>(value));
  } else if constexpr (HasToJson<T>) {
    DeferredJson<T> json;
    to_json(json, value);
    return jsonText(json);
  } else {
    return typeNameText(typeid(T));
  }
}

// A value seen through what the library needs to record it: its text (made only if it is
// recorded), its type (for the fallback when the text cannot be made) and, for nlohmann::json,
// the value itself (nested redaction, LLM usage).
struct ErasedValue {
  const void* value = nullptr;
  std::string (*text)(const void*) = nullptr;  // may throw: the library catches
  const std::type_info* type = nullptr;
  const nlohmann::json* json = nullptr;
};

template <class T>
std::string erasedText(const void* value) {
  return textOfUntruncated(*static_cast<const T*>(value));
}

template <class T>
ErasedValue erase(const T& value) noexcept {
  ErasedValue erased{std::addressof(value), &erasedText<T>, &typeid(T), nullptr};
  if constexpr (IsJson<T> && !HasTextOf<T>) erased.json = std::addressof(value);
  return erased;
}

// A metadata value: JSON scalars stay numbers and booleans, other values become their text.
struct MetaValue {
  enum class Kind : std::uint8_t { boolean, integer, unsignedInteger, number, text, value };
  Kind kind = Kind::value;
  bool boolean = false;
  long long integer = 0;
  unsigned long long unsignedInteger = 0;
  double number = 0;
  std::string_view text;
  ErasedValue value;  // Kind::value: text, or the JSON itself
};

template <class T>
MetaValue metaValue(const T& value) noexcept {
  MetaValue m;
  if constexpr (HasTextOf<T>) {
    m.value = erase(value);
  } else if constexpr (std::same_as<T, bool>) {
    m.kind = MetaValue::Kind::boolean;
    m.boolean = value;
  } else if constexpr (std::is_integral_v<T> && !std::same_as<T, char> && std::is_signed_v<T>) {
    m.kind = MetaValue::Kind::integer;
    m.integer = value;
  } else if constexpr (std::is_integral_v<T> && !std::same_as<T, char>) {
    m.kind = MetaValue::Kind::unsignedInteger;
    m.unsignedInteger = value;
  } else if constexpr (std::is_floating_point_v<T>) {
    m.kind = MetaValue::Kind::number;
    m.number = static_cast<double>(value);
  } else if constexpr (std::same_as<T, std::string> || std::same_as<T, std::string_view> ||
                       (std::is_array_v<T> && std::same_as<std::remove_extent_t<T>, char>)) {
    // Only the string types whose view cannot throw; other convertible types go the safe way.
    m.kind = MetaValue::Kind::text;
    m.text = std::string_view(value);
  } else {
    m.value = erase(value);
  }
  return m;
}
}  // namespace detail

// The trace text of any value: TextOf<T>, JSON values (as JSON), strings (a null char pointer as
// "null"), numbers, booleans, std::optional, `operator<<`, pairs and tuples "(a, b)", ranges
// "[a, b]" and maps "{k: v}", enums (their number), a user `to_json` (nlohmann), or else
// "<TypeName>"; truncated to maxTextLength(). May throw what the conversion throws; spans never
// let it reach the program (they record "<TypeName>" instead).
template <class T>
std::string toText(const T& value) {
  return detail::truncateText(detail::textOfUntruncated(value));
}

// True for input names that look like secrets (api_key, authorization, password, secret, token,
// access_token…); their values are never formatted, only recorded as "[REDACTED]". The same rule
// (and a span's `redact` names) applies to the keys of JSON inputs and outputs at any depth.
NNDNA_API bool looksSecret(std::string_view name) noexcept;
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
  Arg(std::string_view name, const T& value) noexcept : name_(name), value_(detail::erase(value)) {}

  std::string_view name() const noexcept { return name_; }
  // The value's text, truncated (may throw what the conversion throws).
  std::string text() const { return detail::truncateText(value_.text(value_.value)); }
  const detail::ErasedValue& erased() const noexcept { return value_; }

 private:
  std::string_view name_;
  detail::ErasedValue value_;
};

struct SpanOptions {
  std::string_view kind{};                           // e.g. "llm", "tool", "retrieval"
  std::initializer_list<std::string_view> tags{};    // free-form labels
  std::initializer_list<std::string_view> redact{};  // more input names (and JSON keys) to redact
  bool captureOutput = true;                         // false: output() records nothing
};

namespace detail {
// Tracing is on while a Session is active or the process streams to NNDNA_XRAY_OUT. Read on
// every span construction: this is what makes a disabled span nearly free.
NNDNA_API extern std::atomic<bool> g_enabled;

struct SpanSpec {
  std::string_view name;
  std::span<const Arg> inputs;
  std::string_view kind;
  std::span<const std::string_view> tags;
  std::span<const std::string_view> redact;
  bool captureOutput = true;
};
struct ThreadState;
NNDNA_API void annotateValue(std::string_view key, const MetaValue& value) noexcept;
}  // namespace detail

// True while spans are being recorded.
inline bool enabled() noexcept { return detail::g_enabled.load(std::memory_order_relaxed); }

// An RAII span: opens on construction, closes on destruction, nests under the span open on this
// thread (or the context adopted with ContextScope). Left by an exception, it records
// "TypeName: what()" as its error; the exception propagates unchanged. Nothing a span records
// throws into the program: a value whose text cannot be made is recorded as "<TypeName>".
//
// A span is scoped: it closes after the spans opened inside it. A C++20 coroutine that suspends
// inside a span breaks that order; such spans are still recorded, marked in their metadata
// ("xray.misnested") and counted in Trace::warnings (docs/xray.md, "Coroutines").
class NNDNA_API Span {
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

  // Records the value's text (unless captureOutput is false). An OpenAI- or Anthropic-style
  // response (JSON with "usage") also sets the span's model, tokens and cost.
  template <class T>
  void output(const T& value) noexcept {
    if (active()) setOutput(detail::erase(value));
  }
  void error(std::string_view message) noexcept;
  void tag(std::string_view tag) noexcept;
  // Free-form metadata: numbers and booleans stay JSON numbers and booleans, nlohmann::json
  // stays JSON, anything else is recorded as its text.
  template <class T>
  void meta(std::string_view key, const T& value) noexcept {
    if (active()) setMeta(key, detail::metaValue(value));
  }

 private:
  void begin(const detail::SpanSpec& spec);
  void end() noexcept;
  void setOutput(const detail::ErasedValue& value) noexcept;
  void setMeta(std::string_view key, const detail::MetaValue& value) noexcept;

  detail::ThreadState* thread_ = nullptr;
  std::uint64_t id_ = 0;
  std::uint32_t depth_ = 0;
  int uncaughtAtStart_ = 0;
};

#define NNDNA_XRAY_CONCAT_INNER(a, b) a##b
#define NNDNA_XRAY_CONCAT(a, b) NNDNA_XRAY_CONCAT_INNER(a, b)
// XRAY_SPAN("name") or XRAY_SPAN("name", {{"input", value}, ...}) or with SpanOptions after.
// __COUNTER__ names each span uniquely, so two spans on one line (a macro expanding to two) work.
#define XRAY_SPAN(...) ::nndna::xray::Span NNDNA_XRAY_CONCAT(xray_span_, __COUNTER__)(__VA_ARGS__)

// Metadata and errors for the span currently open on this thread, from code that has no handle
// on it (no-ops when tracing is off or no span is open on this thread). Values as Span::meta.
template <class T>
void annotate(std::string_view key, const T& value) noexcept {
  if (enabled()) detail::annotateValue(key, detail::metaValue(value));
}
NNDNA_API void annotateError(std::string_view message) noexcept;

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
NNDNA_API void annotate(const LlmUsage& usage) noexcept;
// Adds or replaces a model's price. A model name is priced by its exact entry, else by the entry
// of its family once a date or version suffix is taken off ("gpt-4o-mini-2024-07-18" ->
// "gpt-4o-mini", "claude-3-5-sonnet-20241022" -> "claude-3-5-sonnet", "gpt-4-0613" -> "gpt-4",
// "-latest", "-001"); a name that is neither has no price (never a neighbour's).
NNDNA_API void setModelPrice(std::string_view model, ModelPrice price);
NNDNA_API std::optional<ModelPrice> modelPrice(std::string_view model);
NNDNA_API std::optional<double> estimateCostUsd(const LlmUsage& usage);

// --- Carrying the current span to another thread ----------------------------------------------

class Context;
// The span open on this thread (or the adopted context), to hand to another thread.
NNDNA_API Context currentContext() noexcept;

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

// While alive, spans opened on this thread with no enclosing span nest under the context's span.
class NNDNA_API ContextScope {
 public:
  explicit ContextScope(Context context);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  detail::ThreadState* thread_ = nullptr;
  std::uint64_t id_ = 0;
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
NNDNA_API std::string_view defaultArgName(std::size_t index) noexcept;
NNDNA_API std::string describeCurrentException();

// std::invoke without <functional>: callables, and member function pointers with an object (or a
// pointer to one) first.
template <class F, class... Args>
decltype(auto) call(F& fn, Args&&... args) {
  if constexpr (std::is_member_function_pointer_v<F>) {
    return [&fn](auto&& object, auto&&... rest) -> decltype(auto) {
      if constexpr (std::is_pointer_v<std::remove_cvref_t<decltype(object)>>)
        return ((*object).*fn)(std::forward<decltype(rest)>(rest)...);
      else
        return (std::forward<decltype(object)>(object).*fn)(std::forward<decltype(rest)>(rest)...);
    }(std::forward<Args>(args)...);
  } else {
    return fn(std::forward<Args>(args)...);
  }
}
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
    if (!enabled()) return detail::call(fn_, std::forward<Args>(args)...);
    std::size_t index = 0;
    std::array<Arg, sizeof...(Args)> inputs{Arg(argName(index++), args)...};
    Span span(detail::SpanSpec{name_, inputs, options_.kind, tagViews_, redactViews_,
                               options_.captureOutput});
    using Result = decltype(detail::call(fn_, std::forward<Args>(args)...));
    try {
      if constexpr (std::is_void_v<Result>) {
        detail::call(fn_, std::forward<Args>(args)...);
      } else {
        decltype(auto) result = detail::call(fn_, std::forward<Args>(args)...);
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

// ============================================================================================
// Value: scalar reverse-mode autodiff
// ============================================================================================

namespace detail {
struct ValueNode;
struct ValueNodeAccess;
}

struct BackwardOptions {
  double seed = 1.0;
  // false: every grad is zeroed first; true: grads add to what they hold (flow-xray's
  // zero_first=False, micrograd style), the root's grad is set to the seed.
  bool accumulate = false;
};

class Value;
NNDNA_API Value operator+(const Value& a, const Value& b);
NNDNA_API Value operator-(const Value& a, const Value& b);
NNDNA_API Value operator*(const Value& a, const Value& b);
NNDNA_API Value operator/(const Value& a, const Value& b);
NNDNA_API Value operator-(const Value& a);
NNDNA_API Value pow(const Value& base, double exponent);
NNDNA_API Value pow(const Value& base, const Value& exponent);

// A scalar in a computation graph. Copies share the node (like a Python reference). Every
// algorithm over the graph is iterative, and destruction unlinks chains without recursion, so a
// graph of millions of nodes builds, differentiates and dies without deep stacks.
class NNDNA_API Value {
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
  // The label, else the id (as flow-xray shows unlabelled nodes).
  std::string displayName() const;

  // Sets every grad in the graph to zero, seeds this node's grad, and applies each node's local
  // backward rule in reverse topological order.
  void backward(double seed = 1.0);
  void backward(const BackwardOptions& options);

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
NNDNA_API Value relu(const Value& v);
NNDNA_API Value tanh(const Value& v);
NNDNA_API Value exp(const Value& v);
NNDNA_API Value log(const Value& v);
NNDNA_API Value sigmoid(const Value& v);

// Every node reachable from root, each after all of its parents (root last). Iterative.
NNDNA_API std::vector<Value> topologicalOrder(const Value& root);
NNDNA_API void zeroGrad(const Value& root);
NNDNA_API void backwardFrom(const Value& root, double seed = 1.0);
NNDNA_API void backwardFrom(const Value& root, const BackwardOptions& options);

// DOT of the graph (rankdir BT, one box per node: name, op, data[, grad]).
NNDNA_API std::string valueGraphToDot(const Value& root, bool showGrad);
// IR JSON version 1: {version, root_id, nodes[{id, op, label, data, grad?, parents}]}.
NNDNA_API nlohmann::json valueGraphToIr(const Value& root, bool includeGrad = true);

// --- Backward debugger ------------------------------------------------------------------------

// Per-node backward: zeroes the graph, seeds the root, then each step() applies one node's local
// rule in reverse topological order and returns that node.
class NNDNA_API BackwardStepper {
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

class NNDNA_API GraphDebugger {
 public:
  explicit GraphDebugger(Value root) : root_(std::move(root)) {}
  std::string dotForward() const { return valueGraphToDot(root_, false); }
  std::string dotBackward() const { return valueGraphToDot(root_, true); }
  nlohmann::json irForward() const;
  nlohmann::json irBackward() const;
  // Runs backward on the root (mutating grads) and returns the snapshots in order.
  std::vector<Snapshot> namedSnapshots(double seed = 1.0, bool includeStepDots = true) const;
  // The interactive stepper page: one Graphviz layout, the gradients of every step stored as
  // deltas, next / previous / slider; the page title names the step shown. `startAtEnd` opens it
  // after the backward pass.
  std::string stepperHtml(std::string_view title, bool startAtEnd = false, double seed = 1.0) const;

 private:
  Value root_;
};

}  // namespace nndna::xray
