// Span lifecycle: open (push a slot), close (append a finished record, stream the end, pop),
// spans closed out of order (coroutines), annotations, context hand-off.
#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <exception>

#include "xray/recorder.hpp"

namespace nndna::xray {
namespace detail {

bool g_enabled = false;  // read and written with __atomic builtins (see xray.hpp)

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
  slot.closed.store(false, std::memory_order_relaxed);
  slot.id.store(id, std::memory_order_release);
}

// The innermost real span of this thread (markers are other threads' spans: not ours to edit).
OpenSpan* currentSpan() noexcept {
  if (!enabled()) return nullptr;
  ThreadState* thread = existingThreadState();
  if (thread == nullptr) return nullptr;
  thread->popClosed();
  std::uint32_t depth = thread->depth.load(std::memory_order_relaxed);
  if (depth == 0) return nullptr;
  OpenSpan& top = thread->slot(depth - 1);
  return top.marker.load(std::memory_order_relaxed) ? nullptr : &top;
}

nlohmann::json& metaObject(SpanDetails& details) {
  auto& meta = details.extra().meta;
  if (!meta.is_object()) meta = nlohmann::json::object();
  return meta;
}

nlohmann::json metaJson(const MetaValue& value) {
  switch (value.kind) {
    case MetaValue::Kind::boolean: return value.boolean;
    case MetaValue::Kind::integer: return value.integer;
    case MetaValue::Kind::unsignedInteger: return value.unsignedInteger;
    case MetaValue::Kind::number: return value.number;
    case MetaValue::Kind::text: return truncateText(std::string(value.text));
    case MetaValue::Kind::value: break;
  }
  // JSON stays JSON (within the depth the writers can print without deep recursion).
  if (value.value.json) {
    if (auto parsed = parseJsonBounded(rawText(value.value), ReadLimits{}.maxValueDepth)) return *parsed;
  }
  return recordedText(value.value, {});
}

void setMetaOn(SpanDetails& details, std::string_view key, const MetaValue& value) noexcept {
  try {
    metaObject(details)[std::string(key)] = metaJson(value);
  } catch (...) {
    // No memory for the value: the span goes without it.
  }
}

// Counts the live spans (not closed, not context markers) above `depth` on `thread`'s stack.
std::uint32_t liveSpansAbove(ThreadState& thread, std::uint32_t depth, std::uint32_t top) noexcept {
  std::uint32_t live = 0;
  for (std::uint32_t i = depth + 1; i < top; ++i) {
    OpenSpan& s = thread.slot(i);
    if (!s.closed.load(std::memory_order_relaxed) && !s.marker.load(std::memory_order_relaxed)) ++live;
  }
  return live;
}

}  // namespace
}  // namespace detail

void Span::begin(const detail::SpanSpec& spec) {
  detail::ThreadState* thread = detail::threadState();
  if (thread == nullptr) return;  // the thread is ending: nothing to record into
  try {
    thread->popClosed();
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
    if (!spec.redact.empty()) more().redact.assign(spec.redact.begin(), spec.redact.end());
    if (!spec.inputs.empty()) {
      auto& inputs = more().inputs;
      std::span<const std::string> redact = more().redact;
      std::size_t guess = 0;  // lengths, names and short texts
      for (const Arg& arg : spec.inputs) guess += 8 + arg.name().size() + 16;
      inputs.reserve(guess);
      for (const Arg& arg : spec.inputs) {
        bool secret = looksSecret(arg.name()) ||
                      std::find(spec.redact.begin(), spec.redact.end(), arg.name()) != spec.redact.end();
        if (secret) inputs.add(arg.name(), kRedacted);
        else inputs.add(arg.name(), detail::recordedText(arg.erased(), redact));
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
    slot.exceptionsAtStart = thread->exceptionCount;
    detail::publishSlot(slot, id, parent, startTicks, generation, detail::ShortName::of(spec.name), false);
    thread->depth.store(depth + 1, std::memory_order_release);
    thread_ = thread;
    depth_ = depth;
    id_ = id;

    if (detail::streamingActive()) [[unlikely]] {
      try {
        detail::streamBegin({id, parent, spec.name, startTicks, thread->index, slot.details.get()});
      } catch (...) {
        // No memory for the line: the span is still recorded in process.
      }
    }
  } catch (...) {
    // No memory for the span's record: the program goes on, the span is not recorded.
  }
}

void Span::end() noexcept {
  std::int64_t endTicks = detail::ticks();
  detail::ThreadState& owner = *thread_;
  detail::ThreadState* here = detail::existingThreadState();
  const bool sameThread = here == &owner;
  detail::OpenSpan& slot = sameThread ? owner.slot(depth_) : owner.slotFromAnyThread(depth_);
  if (slot.id.load(std::memory_order_relaxed) != id_ || slot.closed.load(std::memory_order_relaxed)) return;
  std::uint32_t top = sameThread ? owner.depth.load(std::memory_order_relaxed) : 0;

  // A scoped span closes after everything opened inside it. When it does not, it is recorded all
  // the same, and says why its nesting may be wrong.
  std::string misnested;
  try {
    if (!sameThread) {
      misnested = "closed on thread " + std::to_string(here != nullptr ? here->index : -1) +
                  ", opened on thread " + std::to_string(owner.index) +
                  " (a coroutine resumed on another thread?): spans opened meanwhile may be nested wrongly";
    } else if (std::uint32_t above = detail::liveSpansAbove(owner, depth_, top); above > 0) {
      misnested = "closed while " + std::to_string(above) + " span" + (above == 1 ? "" : "s") +
                  " opened after it were still open (a coroutine suspended inside it?): spans opened "
                  "while it was suspended may be nested under it wrongly";
    } else if (depth_ > 0 && owner.slot(depth_ - 1).closed.load(std::memory_order_relaxed)) {
      misnested = "outlived the span it is nested under (closed out of order)";
    }
  } catch (...) {
  }

  try {
    if (std::uncaught_exceptions() > uncaughtAtStart_ && !(slot.details && slot.details->hasError())) {
      // The exception unwinding through this span: the one noted on this thread since it opened.
      bool noted = sameThread && owner.exceptionCount > slot.exceptionsAtStart && !owner.lastException.empty();
      slot.more().extra().error = noted ? owner.lastException : std::string("exception");
    }
    if (!misnested.empty()) detail::metaObject(slot.more())["xray.misnested"] = misnested;
  } catch (...) {
    // Out of memory while unwinding: the span keeps no error text rather than terminating.
  }

  if (detail::streamingActive()) [[unlikely]] {
    try {
      detail::streamEnd(id_, endTicks, slot.details.get());
    } catch (...) {
      // A destructor must not throw; the line is lost, the span shows as unfinished.
    }
  }
  std::uint64_t generation = slot.generation.load(std::memory_order_relaxed);
  if (generation != 0 && generation == detail::activeGeneration()) {
    try {
      // Records go to the chunk of the thread that closes the span (a chunk has one writer).
      detail::ThreadState* keeper = sameThread ? &owner : detail::threadState();
      if (keeper != nullptr)
        keeper->keep(generation, {id_, slot.parent.load(std::memory_order_relaxed),
                                  slot.startTicks.load(std::memory_order_relaxed), endTicks,
                                  std::move(slot.details), slot.shortName()});
    } catch (...) {
      // No memory for a new chunk: the span is dropped.
    }
  }
  // Published as finished before it leaves the open stack (the collector relies on the order).
  if (sameThread && top == depth_ + 1) {
    owner.popTo(depth_);
    owner.popClosed();
  } else {
    // Spans opened after it are still open (or it closes on another thread): it stays in its slot,
    // closed, until the owner pops what is above it.
    slot.details.reset();
    slot.closed.store(true, std::memory_order_release);
    if (sameThread) owner.popClosed();  // what is above may all be closed already
  }
}

void Span::setOutput(const detail::ErasedValue& value) noexcept {
  try {
    detail::OpenSpan& slot = thread_->slotFromAnyThread(depth_);
    if (slot.details && !slot.details->captureOutput) return;
    std::span<const std::string> redact;
    if (slot.details) redact = slot.details->redact;
    // An LLM response: its model and tokens (read before the text is cut), unless the span was
    // annotated already.
    std::string raw = detail::rawText(value);
    std::optional<detail::ResponseUsage> usage = detail::usageOfResponseText(raw);
    std::string text = detail::finishText(std::move(raw), redact);
    auto& extra = slot.more().extra();
    extra.output = std::move(text);
    if (usage && !(extra.meta.is_object() && extra.meta.contains("total_tokens")))
      detail::setUsageMeta(detail::metaObject(slot.more()), usage->model, usage->promptTokens, usage->completionTokens,
                           usage->totalTokens);
  } catch (...) {
    // No memory for the output: the span goes without it.
  }
}

void Span::error(std::string_view message) noexcept {
  if (!active()) return;
  try {
    thread_->slotFromAnyThread(depth_).more().extra().error = std::string(message);
  } catch (...) {
  }
}

void Span::tag(std::string_view tag) noexcept {
  if (!active()) return;
  try {
    thread_->slotFromAnyThread(depth_).more().extra().tags.emplace_back(tag);
  } catch (...) {
  }
}

void Span::setMeta(std::string_view key, const detail::MetaValue& value) noexcept {
  try {
    detail::setMetaOn(thread_->slotFromAnyThread(depth_).more(), key, value);
  } catch (...) {
  }
}

namespace detail {
void annotateValue(std::string_view key, const MetaValue& value) noexcept {
  try {
    if (auto* span = currentSpan()) setMetaOn(span->more(), key, value);
  } catch (...) {
  }
}
}  // namespace detail

void annotateError(std::string_view message) noexcept {
  try {
    if (auto* span = detail::currentSpan()) span->more().extra().error = std::string(message);
  } catch (...) {
  }
}

void annotate(const LlmUsage& usage) noexcept {
  try {
    auto* span = detail::currentSpan();
    if (span == nullptr) return;
    detail::setUsageMeta(detail::metaObject(span->more()), usage.model, usage.promptTokens, usage.completionTokens,
                         usage.totalTokens);
  } catch (...) {
  }
}

Context currentContext() noexcept {
  if (!enabled()) return Context();
  detail::ThreadState* thread = detail::existingThreadState();
  if (thread == nullptr) return Context();
  thread->popClosed();
  std::uint32_t depth = thread->depth.load(std::memory_order_relaxed);
  return depth == 0 ? Context() : Context(thread->slot(depth - 1).id.load(std::memory_order_relaxed));
}

ContextScope::ContextScope(Context context) {
  if (!enabled() || !context) return;
  detail::ThreadState* thread = detail::threadState();
  if (thread == nullptr) return;
  try {
    thread->popClosed();
    std::uint32_t depth = thread->depth.load(std::memory_order_relaxed);
    detail::OpenSpan& slot = thread->slotForPush(depth);
    slot.details.reset();
    detail::publishSlot(slot, context.spanId(), 0, 0, 0, {}, true);
    thread->depth.store(depth + 1, std::memory_order_release);
    thread_ = thread;
    depth_ = depth;
    id_ = context.spanId();
  } catch (...) {
    // No memory for a deeper stack: spans in this scope become roots.
  }
}

ContextScope::~ContextScope() {
  if (thread_ == nullptr) return;
  detail::ThreadState* here = detail::existingThreadState();
  detail::OpenSpan& slot = here == thread_ ? thread_->slot(depth_) : thread_->slotFromAnyThread(depth_);
  if (!slot.marker.load(std::memory_order_relaxed) || slot.id.load(std::memory_order_relaxed) != id_) return;
  if (here == thread_ && thread_->depth.load(std::memory_order_relaxed) == depth_ + 1) {
    thread_->popTo(depth_);
    thread_->popClosed();
  } else {
    slot.closed.store(true, std::memory_order_release);
    if (here == thread_) thread_->popClosed();
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
