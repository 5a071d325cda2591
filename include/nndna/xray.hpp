// nndna xray: an execution-graph debugger for C++ programs. This header is what a traced file
// includes: spans, their inputs and outputs, metadata and LLM usage, and carrying the current
// span to another thread.
//
// Link the `nndna::xray` library (CMake: find_package(nndna), pkg-config: nndna-xray); nothing
// else of nndna is needed. See docs/xray.md.
//
//   #include <nndna/xray.hpp>                        // in every traced file
//   XRAY_SPAN("fetch_profile", {{"user_id", id}});    // RAII span with named inputs
//
//   #include <nndna/xray_trace.hpp>                  // where a run is captured and shown
//   nndna::xray::Session session;
//   ...
//   nndna::xray::Trace trace = session.finish();
//   std::string html = nndna::xray::toHtml(trace);
//
// Or stream every span of a whole process to a file: run it with NNDNA_XRAY_OUT=trace.jsonl
// (`nndna xray run PROGRAM --html trace.html` does this and writes the viewer afterwards).
//
// The other headers: <nndna/xray_traced.hpp> (traced(): wrap a function in a span),
// <nndna/xray_trace.hpp> (sessions, traces, their exports and readers) and
// <nndna/xray_value.hpp> (Value, the scalar autodiff engine).
//
// Every traced file includes this header, so it stays light: no fmt, no nlohmann/json, no
// <string>, <vector>, <sstream>, <atomic> or <optional> (bench/xray measures its cost). Values are
// turned into text through a buffer the library owns; JSON values and a user's to_json are found
// by what they can do, without naming nlohmann::json.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>  // std::ostream and std::string, declared only
#include <new>     // placement new of the JSON a user's to_json fills
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "nndna/export.hpp"

namespace nndna::xray {

// ============================================================================================
// Turning values into text
// ============================================================================================

// Specialise to control how a type appears in traces (`convert` returns anything that converts
// to std::string_view, e.g. a std::string):
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
// The normalisation itself, on one text (include <string> to use the result).
NNDNA_API std::string normalizePreview(std::string_view text);

namespace detail {

// The text of one value while it is made, into a std::string the library owns (this header only
// declares std::string). Containers stop adding elements once it is longer than maxTextLength().
class NNDNA_API TextOut {
 public:
  explicit TextOut(std::string& buffer) noexcept : buffer_(&buffer) {}
  void put(std::string_view text);
  void put(char c);
  void putInteger(long long value);
  void putUnsigned(unsigned long long value);
  void putFloat(double value);  // the shortest text that reads back as the same double
  // A string inside a container: double-quoted with JSON escapes (as fmt prints ranges).
  void putQuoted(std::string_view text);
  // What `operator<<` writes, through a stream the library owns.
  void putStreamed(void (*write)(std::ostream&, const void*), const void* value);
  // "<TypeName>": the text of a value nothing else can show.
  void putTypeName(const std::type_info& type);
  bool full() const noexcept;

 private:
  std::string* buffer_;
};

// JSON nested deeper than this is shown as a note (printing it recurses once per level).
inline constexpr int kMaxPrintedJsonDepth = 256;

template <class T>
concept HasTextOf = requires(const T& v) {
  { TextOf<T>::convert(v) };
  std::string_view(TextOf<T>::convert(v));
};
// An nlohmann::basic_json (json, ordered_json, …): printed by its own dump(), never throwing for
// invalid UTF-8.
template <class T>
concept JsonLike = requires(const T& v) {
  v.dump(-1, ' ', false, T::error_handler_t::replace);
  v.is_structured();
};
template <class T>
concept CharPointer = std::same_as<T, const char*> || std::same_as<T, char*>;
template <class T>
concept StringLike = std::is_convertible_v<const T&, std::string_view>;
// std::optional and the like.
template <class T>
concept OptionalValue = requires(const T& v) {
  typename T::value_type;
  { v.has_value() } -> std::same_as<bool>;
  *v;
};
// std::ostream is only declared here: a type's own operator<< is found by argument-dependent
// lookup where the span is instantiated (the file that prints the type includes <ostream>).
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
concept Range = std::is_array_v<T> || requires(const T& v) {
  v.begin();
  v.end();
} || requires(const T& v) {
  begin(v);
  end(v);
};
template <class T>
concept MapLike = Range<T> && requires {
  typename T::key_type;
  typename T::mapped_type;
};

// The JSON a user's `to_json(nlohmann::json&, const T&)` (found by argument-dependent lookup)
// fills: the conversion the call asks for names the JSON type, so this header does not.
class JsonCapture {
 public:
  JsonCapture() = default;
  JsonCapture(const JsonCapture&) = delete;
  JsonCapture& operator=(const JsonCapture&) = delete;
  ~JsonCapture() {
    if (destroy_ != nullptr) destroy_(storage_);
  }

  template <class J>
  operator J&() {  // NOLINT: implicit, it is what the to_json call converts through
    static_assert(sizeof(J) <= sizeof(storage_) && alignof(J) <= alignof(std::max_align_t));
    if (destroy_ != nullptr) destroy_(storage_);
    J* json = ::new (static_cast<void*>(storage_)) J();
    destroy_ = [](void* at) { static_cast<J*>(at)->~J(); };
    write_ = [](TextOut& out, const void* at) { writeJson(out, *static_cast<const J*>(at)); };
    return *json;
  }
  void writeTo(TextOut& out) const {
    if (write_ != nullptr) write_(out, storage_);
  }

  template <class J>
  static void writeJson(TextOut& out, const J& json) {
    if (deeperThan(json, kMaxPrintedJsonDepth)) {
      out.put("<JSON nested deeper than 256 levels>");
      return;
    }
    const auto text = json.dump(-1, ' ', false, J::error_handler_t::replace);
    out.put(std::string_view(text));
  }

 private:
  template <class J>
  static bool deeperThan(const J& json, int levels) {
    if (!json.is_structured()) return false;
    if (levels == 0) return true;
    for (const auto& child : json)
      if (deeperThan(child, levels - 1)) return true;
    return false;
  }

  alignas(std::max_align_t) unsigned char storage_[32];
  void (*destroy_)(void*) = nullptr;
  void (*write_)(TextOut&, const void*) = nullptr;
};

template <class T>
concept HasToJson = requires(JsonCapture& j, const T& v) { to_json(j, v); };

template <class T>
void streamTo(std::ostream& os, const void* value) {
  os << *static_cast<const T*>(value);
}

template <class T>
void writeText(TextOut& out, const T& value);

// An element of a container: strings and characters quoted, as fmt prints ranges.
template <class T>
void writeElement(TextOut& out, const T& value) {
  if constexpr (!HasTextOf<T> && !JsonLike<T> && !CharPointer<T> && StringLike<T>) {
    out.putQuoted(std::string_view(value));
  } else if constexpr (std::same_as<T, char>) {
    out.put('\'');
    out.put(value);
    out.put('\'');
  } else {
    writeText(out, value);
  }
}

template <class T, std::size_t... I>
void writeTuple(TextOut& out, const T& value, std::index_sequence<I...>) {
  out.put('(');
  ((out.put(I == 0 ? "" : ", "), writeElement(out, get<I>(value))), ...);
  out.put(')');
}

// "[a, b]" or, for maps, "{k: v}"; stops once the text is longer than maxTextLength().
template <class T>
void writeRange(TextOut& out, const T& range) {
  constexpr bool kMap = MapLike<T>;
  out.put(kMap ? '{' : '[');
  bool first = true;
  for (const auto& element : range) {
    if (!first) out.put(", ");
    first = false;
    if (out.full()) {
      out.put("\u2026");
      break;
    }
    if constexpr (kMap) {
      writeElement(out, element.first);
      out.put(": ");
      writeElement(out, element.second);
    } else {
      writeElement(out, element);
    }
  }
  out.put(kMap ? '}' : ']');
}

// The customisation chain, most specific first.
template <class T>
void writeText(TextOut& out, const T& value) {
  if constexpr (HasTextOf<T>) {
    const auto text = TextOf<T>::convert(value);
    out.put(std::string_view(text));
  } else if constexpr (JsonLike<T>) {
    JsonCapture::writeJson(out, value);
  } else if constexpr (CharPointer<T>) {
    out.put(value == nullptr ? std::string_view("null") : std::string_view(value));
  } else if constexpr (StringLike<T>) {
    out.put(std::string_view(value));
  } else if constexpr (std::same_as<T, bool>) {
    out.put(value ? "true" : "false");
  } else if constexpr (std::same_as<T, char>) {
    out.put(value);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    out.putInteger(value);
  } else if constexpr (std::is_integral_v<T>) {
    out.putUnsigned(value);
  } else if constexpr (std::is_floating_point_v<T>) {
    out.putFloat(static_cast<double>(value));
  } else if constexpr (std::is_null_pointer_v<T>) {
    out.put("null");
  } else if constexpr (OptionalValue<T>) {
    if (value.has_value()) writeText(out, *value);
    else out.put("null");
  } else if constexpr (Streamable<T>) {
    out.putStreamed(&streamTo<T>, std::addressof(value));
  } else if constexpr (PairLike<T>) {
    out.put('(');
    writeElement(out, value.first);
    out.put(", ");
    writeElement(out, value.second);
    out.put(')');
  } else if constexpr (Range<T>) {
    writeRange(out, value);
  } else if constexpr (TupleLike<T>) {
    writeTuple(out, value, std::make_index_sequence<std::tuple_size<T>::value>{});
  } else if constexpr (std::is_enum_v<T>) {
    out.putInteger(static_cast<long long>(value));
  } else if constexpr (HasToJson<T>) {
    JsonCapture json;
    to_json(json, value);
    json.writeTo(out);
  } else {
    out.putTypeName(typeid(T));
  }
}

// A value seen through what the library needs to record it: how to write its text (only if it
// is recorded), its type (for the fallback when the text cannot be made) and whether that text
// is JSON (then secret keys are redacted at any depth and an LLM response's usage is read).
struct ErasedValue {
  const void* value = nullptr;
  void (*write)(TextOut&, const void*) = nullptr;  // may throw: the library catches
  const std::type_info* type = nullptr;
  bool json = false;
};

template <class T>
void writeErased(TextOut& out, const void* value) {
  writeText(out, *static_cast<const T*>(value));
}

template <class T>
ErasedValue erase(const T& value) noexcept {
  return {std::addressof(value), &writeErased<T>, &typeid(T), JsonLike<T> && !HasTextOf<T>};
}

// The value's text, truncated to maxTextLength(); may throw what the conversion throws.
NNDNA_API std::string textOf(const ErasedValue& value);

// A metadata value: JSON scalars stay numbers and booleans, other values become their text.
struct MetaValue {
  enum class Kind : std::uint8_t { boolean, integer, unsignedInteger, number, text, value };
  Kind kind = Kind::value;
  bool boolean = false;
  long long integer = 0;
  unsigned long long unsignedInteger = 0;
  double number = 0;
  std::string_view text;
  ErasedValue value;  // Kind::value: its text, JSON kept as JSON
};

// The string types whose view cannot throw (other types convertible to a view go the safe way).
template <class T>
concept PlainString = std::same_as<T, std::string> || std::same_as<T, std::string_view> ||
                      (std::is_array_v<T> && std::same_as<std::remove_extent_t<T>, char>);

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
  } else if constexpr (PlainString<T>) {
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
// "<TypeName>"; truncated to maxTextLength(). Returns a std::string (include <string> to use it).
// May throw what the conversion throws; spans never let it reach the program (they record
// "<TypeName>" instead).
template <class T>
auto toText(const T& value) {
  return detail::textOf(detail::erase(value));
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
// every span construction: this is what makes a disabled span nearly free. A plain bool read and
// written with the compiler's atomic builtins, so that this header needs no <atomic>.
NNDNA_API extern bool g_enabled;

// A read-only run of elements (std::span without <span>).
template <class T>
struct Items {
  const T* first = nullptr;
  std::size_t count = 0;
  Items() = default;
  Items(const T* data, std::size_t size) : first(data), count(size) {}
  const T* begin() const noexcept { return first; }
  const T* end() const noexcept { return first + count; }
  std::size_t size() const noexcept { return count; }
  bool empty() const noexcept { return count == 0; }
};

struct SpanSpec {
  std::string_view name;
  Items<Arg> inputs;
  std::string_view kind;
  Items<std::string_view> tags;
  Items<std::string_view> redact;
  bool captureOutput = true;
};
struct ThreadState;
NNDNA_API void annotateValue(std::string_view key, const MetaValue& value) noexcept;
}  // namespace detail

// True while spans are being recorded.
inline bool enabled() noexcept { return __atomic_load_n(&detail::g_enabled, __ATOMIC_RELAXED); }

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
      begin({name,
             {inputs.begin(), inputs.size()},
             options.kind,
             {options.tags.begin(), options.tags.size()},
             {options.redact.begin(), options.redact.size()},
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
  std::int64_t totalTokens = -1;  // below 0: prompt + completion
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
// "-latest", "-001"); a name that is neither has no price (never a neighbour's). modelPrice()
// and estimateCostUsd() are in <nndna/xray_trace.hpp>.
NNDNA_API void setModelPrice(std::string_view model, ModelPrice price);

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

}  // namespace nndna::xray
