// Span lifecycle: per-thread stacks of open spans, ids, context hand-off, annotations.
#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

#include "xray/recorder.hpp"

namespace nndna::xray {
namespace detail {
namespace {
std::atomic<std::uint64_t> g_nextId{1};
std::atomic<int> g_nextThread{0};
}  // namespace

namespace {
thread_local ThreadState* t_existing = nullptr;
}

ThreadState::ThreadState() : index(g_nextThread.fetch_add(1, std::memory_order_relaxed)) {
  stack.reserve(64);
  registerThread(this);
  t_existing = this;
}

ThreadState::~ThreadState() {
  t_existing = nullptr;
  unregisterThread(this);
}

ThreadState* existingThreadState() noexcept { return t_existing; }

ThreadState& threadState() {
  thread_local ThreadState state;
  return state;
}

std::uint64_t nextSpanId() noexcept { return g_nextId.fetch_add(1, std::memory_order_relaxed); }

std::string spanIdText(std::uint64_t id) { return "s" + std::to_string(id); }

namespace {
// The innermost real span of this thread (markers are other threads' spans: not ours to edit).
SpanRecord* currentRecord() {
  if (!enabled()) return nullptr;
  auto& stack = threadState().stack;
  if (stack.empty() || stack.back().marker) return nullptr;
  return &stack.back().record;
}
}  // namespace

}  // namespace detail

void Span::begin(const detail::SpanSpec& spec) {
  auto& thread = detail::threadState();
  auto& stack = thread.stack;
  depth_ = static_cast<std::uint32_t>(stack.size());
  auto& entry = stack.emplace_back();
  auto& r = entry.record;
  r.id = detail::nextSpanId();
  r.parent = depth_ > 0 ? stack[depth_ - 1].record.id : 0;
  r.name.assign(spec.name);
  if (!spec.kind.empty()) r.more().kind.assign(spec.kind);
  r.thread = thread.index;
  r.captureOutput = spec.captureOutput;
  r.generation = detail::activeGeneration();
  if (!spec.tags.empty()) r.more().tags.assign(spec.tags.begin(), spec.tags.end());
  if (!spec.inputs.empty()) {
    auto& inputs = r.more().inputs;
    inputs.reserve(spec.inputs.size());
    for (const Arg& arg : spec.inputs) {
      bool secret = looksSecret(arg.name()) ||
                    std::find(spec.redact.begin(), spec.redact.end(), arg.name()) != spec.redact.end();
      inputs.emplace_back(std::string(arg.name()), secret ? std::string(kRedacted) : arg.text());
    }
  }
  thread_ = &thread;
  uncaughtAtStart_ = std::uncaught_exceptions();
  r.startNs = detail::nowNs();
  if (detail::streamingActive()) detail::streamBegin(r);
}

void Span::end() noexcept {
  std::int64_t endNs = detail::nowNs();
  auto& stack = thread_->stack;
  // RAII keeps spans LIFO; should a span outlive inner ones anyway, they close with it.
  while (stack.size() > depth_ + 1) stack.pop_back();
  if (stack.size() != depth_ + 1) return;
  detail::SpanRecord record = std::move(stack.back().record);
  stack.pop_back();
  record.endNs = endNs;
  if (std::uncaught_exceptions() > uncaughtAtStart_ && !(record.details && record.details->error)) {
    try {
      record.more().error = thread_->lastException.empty() ? std::string("exception") : thread_->lastException;
    } catch (...) {
      // Out of memory while unwinding: the span keeps no error text rather than terminating.
    }
  }
  try {
    if (detail::streamingActive()) detail::streamEnd(record);
    if (record.generation != 0 && record.generation == detail::activeGeneration())
      detail::keepForSession(*thread_, std::move(record));
  } catch (...) {
    // A destructor must not throw; a span that cannot be recorded (no memory) is dropped.
  }
}

bool Span::wantsOutput() const noexcept { return thread_->stack[depth_].record.captureOutput; }

void Span::setOutputText(std::string text) { thread_->stack[depth_].record.more().output = std::move(text); }

void Span::error(std::string_view message) {
  if (active()) thread_->stack[depth_].record.more().error = std::string(message);
}

void Span::tag(std::string_view tag) {
  if (active()) thread_->stack[depth_].record.more().tags.emplace_back(tag);
}

void Span::meta(std::string_view key, nlohmann::json value) {
  if (!active()) return;
  auto& meta = thread_->stack[depth_].record.more().meta;
  if (!meta.is_object()) meta = nlohmann::json::object();
  meta[std::string(key)] = std::move(value);
}

void annotate(std::string_view key, nlohmann::json value) {
  if (auto* r = detail::currentRecord()) {
    auto& meta = r->more().meta;
    if (!meta.is_object()) meta = nlohmann::json::object();
    meta[std::string(key)] = std::move(value);
  }
}

void annotateError(std::string_view message) {
  if (auto* r = detail::currentRecord()) r->more().error = std::string(message);
}

void annotate(const LlmUsage& usage) {
  auto* r = detail::currentRecord();
  if (r == nullptr) return;
  auto& m = r->more().meta;
  if (!m.is_object()) m = nlohmann::json::object();
  if (!usage.model.empty()) m["model"] = std::string(usage.model);
  m["prompt_tokens"] = usage.promptTokens;
  m["completion_tokens"] = usage.completionTokens;
  m["total_tokens"] = usage.totalTokens.value_or(usage.promptTokens + usage.completionTokens);
  if (auto cost = estimateCostUsd(usage)) m["estimated_cost_usd"] = *cost;
}

Context currentContext() noexcept {
  if (!enabled()) return Context();
  auto& stack = detail::threadState().stack;
  return stack.empty() ? Context() : Context(stack.back().record.id);
}

ContextScope::ContextScope(Context context) {
  if (!enabled() || !context) return;
  thread_ = &detail::threadState();
  auto& entry = thread_->stack.emplace_back();
  entry.marker = true;
  entry.record.id = context.spanId();
}

ContextScope::~ContextScope() {
  if (thread_ == nullptr) return;
  // Pop our marker (and anything a misbehaving caller left above it).
  auto& stack = thread_->stack;
  while (!stack.empty()) {
    bool mine = stack.back().marker;
    stack.pop_back();
    if (mine) break;
  }
}

namespace detail {
std::string describeCurrentException() {
  try {
    throw;
  } catch (const std::exception& e) {
    return demangle(typeid(e).name()) + ": " + e.what();
  } catch (...) {
    auto* type = abi::__cxa_current_exception_type();
    return type != nullptr ? demangle(type->name()) : std::string("unknown exception");
  }
}
}  // namespace detail

}  // namespace nndna::xray
