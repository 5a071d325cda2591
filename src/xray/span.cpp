// Span lifecycle on the owning thread: open (push a slot), close (append a finished record,
// stream the end, pop), annotations, context hand-off.
#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <exception>

#include "xray/recorder.hpp"

namespace nndna::xray {
namespace detail {
namespace {

// Writes a slot for other threads to read consistently (see readOpenSpans): the id is zeroed
// before the fields change and set last.
void publishSlot(OpenSpan& slot, std::uint64_t id, std::uint64_t parent, std::int64_t startTicks,
                 std::uint64_t generation, const ShortName& name, bool marker) noexcept {
  slot.id.store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  slot.parent.store(parent, std::memory_order_relaxed);
  slot.startTicks.store(startTicks, std::memory_order_relaxed);
  slot.generation.store(generation, std::memory_order_relaxed);
  auto words = std::bit_cast<NameWords>(name);
  for (std::size_t i = 0; i < words.size(); ++i) slot.name[i].store(words[i], std::memory_order_relaxed);
  slot.marker.store(marker, std::memory_order_relaxed);
  slot.id.store(id, std::memory_order_release);
}

// The innermost real span of this thread (markers are other threads' spans: not ours to edit).
OpenSpan* currentSpan() noexcept {
  if (!enabled()) return nullptr;
  ThreadState* thread = existingThreadState();
  if (thread == nullptr) return nullptr;
  std::uint32_t depth = thread->depth.load(std::memory_order_relaxed);
  if (depth == 0) return nullptr;
  OpenSpan& top = thread->slot(depth - 1);
  return top.marker.load(std::memory_order_relaxed) ? nullptr : &top;
}

}  // namespace
}  // namespace detail

void Span::begin(const detail::SpanSpec& spec) {
  detail::ThreadState* thread = detail::threadState();
  if (thread == nullptr) return;  // the thread is ending: nothing to record into

  // Everything that may throw happens before the stack changes.
  std::unique_ptr<detail::SpanDetails> details;
  auto more = [&details]() -> detail::SpanDetails& {
    if (!details) details = std::make_unique<detail::SpanDetails>();
    return *details;
  };
  if (spec.name.size() > detail::ShortName::kCapacity) more().longName.assign(spec.name);
  if (!spec.kind.empty()) more().extra().kind.assign(spec.kind);
  if (!spec.tags.empty()) more().extra().tags.assign(spec.tags.begin(), spec.tags.end());
  if (!spec.captureOutput) more().captureOutput = false;
  if (!spec.inputs.empty()) {
    auto& inputs = more().inputs;
    std::size_t guess = 0;  // lengths, names and short texts
    for (const Arg& arg : spec.inputs) guess += 8 + arg.name().size() + 16;
    inputs.reserve(guess);
    for (const Arg& arg : spec.inputs) {
      bool secret = looksSecret(arg.name()) ||
                    std::find(spec.redact.begin(), spec.redact.end(), arg.name()) != spec.redact.end();
      if (secret) inputs.add(arg.name(), kRedacted);
      else inputs.add(arg.name(), arg.text());
    }
  }
  std::uint32_t depth = thread->depth.load(std::memory_order_relaxed);
  detail::OpenSpan& slot = thread->slotForPush(depth);

  std::uint64_t id = thread->nextId();
  std::uint64_t parent = depth > 0 ? thread->slot(depth - 1).id.load(std::memory_order_relaxed) : 0;
  std::uint64_t generation = detail::activeGeneration();
  uncaughtAtStart_ = std::uncaught_exceptions();
  std::int64_t startTicks = detail::ticks();
  slot.details = std::move(details);
  detail::publishSlot(slot, id, parent, startTicks, generation, detail::ShortName::of(spec.name), false);
  thread->depth.store(depth + 1, std::memory_order_release);
  thread_ = thread;
  depth_ = depth;

  if (detail::streamingActive()) [[unlikely]] {
    try {
      detail::streamBegin({id, parent, spec.name, startTicks, thread->index, slot.details.get()});
    } catch (...) {
      // No memory for the line: the span is still recorded in process.
    }
  }
}

void Span::end() noexcept {
  std::int64_t endTicks = detail::ticks();
  detail::ThreadState& thread = *thread_;
  std::uint32_t top = thread.depth.load(std::memory_order_relaxed);
  if (top <= depth_) return;  // already closed with an enclosing span that ended first
  // RAII keeps spans LIFO; should a span outlive inner ones anyway, they are dropped with it.
  if (top > depth_ + 1) thread.popTo(depth_ + 1);
  detail::OpenSpan& slot = thread.slot(depth_);
  if (slot.marker.load(std::memory_order_relaxed)) return;  // our slot was popped and reused

  if (std::uncaught_exceptions() > uncaughtAtStart_ && !(slot.details && slot.details->hasError())) {
    try {
      slot.more().extra().error = thread.lastException.empty() ? std::string("exception") : thread.lastException;
    } catch (...) {
      // Out of memory while unwinding: the span keeps no error text rather than terminating.
    }
  }
  std::uint64_t id = slot.id.load(std::memory_order_relaxed);
  if (detail::streamingActive()) [[unlikely]] {
    try {
      detail::streamEnd(id, endTicks, slot.details.get());
    } catch (...) {
      // A destructor must not throw; the line is lost, the span shows as unfinished.
    }
  }
  std::uint64_t generation = slot.generation.load(std::memory_order_relaxed);
  if (generation != 0 && generation == detail::activeGeneration()) {
    try {
      thread.keep(generation, {id, slot.parent.load(std::memory_order_relaxed),
                               slot.startTicks.load(std::memory_order_relaxed), endTicks, std::move(slot.details),
                               slot.shortName()});
    } catch (...) {
      // No memory for a new chunk: the span is dropped.
    }
  }
  // Published as finished before it leaves the open stack (the collector relies on the order).
  thread.popTo(depth_);
}

bool Span::wantsOutput() const noexcept {
  const auto& details = thread_->slot(depth_).details;
  return !details || details->captureOutput;
}

void Span::setOutputText(std::string text) { thread_->slot(depth_).more().extra().output = std::move(text); }

void Span::error(std::string_view message) {
  if (active()) thread_->slot(depth_).more().extra().error = std::string(message);
}

void Span::tag(std::string_view tag) {
  if (active()) thread_->slot(depth_).more().extra().tags.emplace_back(tag);
}

void Span::meta(std::string_view key, nlohmann::json value) {
  if (!active()) return;
  auto& meta = thread_->slot(depth_).more().extra().meta;
  if (!meta.is_object()) meta = nlohmann::json::object();
  meta[std::string(key)] = std::move(value);
}

void annotate(std::string_view key, nlohmann::json value) {
  if (auto* span = detail::currentSpan()) {
    auto& meta = span->more().extra().meta;
    if (!meta.is_object()) meta = nlohmann::json::object();
    meta[std::string(key)] = std::move(value);
  }
}

void annotateError(std::string_view message) {
  if (auto* span = detail::currentSpan()) span->more().extra().error = std::string(message);
}

void annotate(const LlmUsage& usage) {
  auto* span = detail::currentSpan();
  if (span == nullptr) return;
  auto& m = span->more().extra().meta;
  if (!m.is_object()) m = nlohmann::json::object();
  if (!usage.model.empty()) m["model"] = std::string(usage.model);
  m["prompt_tokens"] = usage.promptTokens;
  m["completion_tokens"] = usage.completionTokens;
  m["total_tokens"] = usage.totalTokens.value_or(usage.promptTokens + usage.completionTokens);
  if (auto cost = estimateCostUsd(usage)) m["estimated_cost_usd"] = *cost;
}

Context currentContext() noexcept {
  if (!enabled()) return Context();
  detail::ThreadState* thread = detail::existingThreadState();
  if (thread == nullptr) return Context();
  std::uint32_t depth = thread->depth.load(std::memory_order_relaxed);
  return depth == 0 ? Context() : Context(thread->slot(depth - 1).id.load(std::memory_order_relaxed));
}

ContextScope::ContextScope(Context context) {
  if (!enabled() || !context) return;
  detail::ThreadState* thread = detail::threadState();
  if (thread == nullptr) return;
  std::uint32_t depth = thread->depth.load(std::memory_order_relaxed);
  detail::OpenSpan& slot = thread->slotForPush(depth);
  slot.details.reset();
  detail::publishSlot(slot, context.spanId(), 0, 0, 0, {}, true);
  thread->depth.store(depth + 1, std::memory_order_release);
  thread_ = thread;
  depth_ = depth;
}

ContextScope::~ContextScope() {
  if (thread_ == nullptr) return;
  // Pop our marker (and anything a misbehaving caller left above it).
  if (thread_->depth.load(std::memory_order_relaxed) > depth_) thread_->popTo(depth_);
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
