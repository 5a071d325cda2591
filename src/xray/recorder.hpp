// Internal: how spans are recorded. Shared by span.cpp, thread_state.cpp, session.cpp,
// stream.cpp and the exception hook.
//
// The common case decides the design: a span that opens and closes on one thread while a
// Session is active. Each thread owns
//   - a stack of open spans in fixed slots (blocks that never move), written only by that
//     thread; other threads may read a consistent copy of a slot (a seqlock whose sequence is
//     the span id) to mark it open at Session::finish or at exit;
//   - fixed-size records of its finished spans, appended to a chunk without any lock and
//     published by a release store of the chunk's count; the thread's mutex is taken only to
//     swap chunks (once per Chunk::kCapacity spans) and by the collector.
// Names live inline in the records (up to ShortName::kCapacity bytes), timestamps are raw ticks
// converted to nanoseconds only when a trace is assembled, and what most spans never set
// (inputs, output, error, tags, metadata, a long name) lives in SpanDetails, allocated only when
// needed.
#pragma once

#include <nlohmann/json.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>
#include <nndna/xray_traced.hpp>

#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

// Nothing here is part of the library's interface: hidden symbols are called directly (no PLT)
// and may be inlined across the library's own calls.
#pragma GCC visibility push(hidden)

namespace nndna::xray::detail {

// ============================================================================================
// Time
// ============================================================================================

inline std::int64_t nowNs() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// True when the x86 time-stamp counter is invariant (constant rate in every power state,
// CPUID 0x80000007 EDX bit 8) and NNDNA_XRAY_CLOCK is not "steady".
bool detectInvariantTsc() noexcept;
// Whether spans are stamped with the time-stamp counter; decided once per process.
inline bool ticksAreTsc() noexcept {
  static const bool tsc = detectInvariantTsc();
  return tsc;
}

// A span timestamp: the time-stamp counter (a few ns to read, against ~20–30 ns for
// steady_clock::now through the vDSO), or steady_clock nanoseconds where the counter is not
// usable. Converted to nanoseconds with a TickScale when a trace is assembled or streamed.
inline std::int64_t ticks() noexcept {
#if defined(__x86_64__)
  if (ticksAreTsc()) return static_cast<std::int64_t>(__rdtsc());
#endif
  return nowNs();
}

// Maps ticks to steady_clock nanoseconds: linear through two (ticks, ns) readings, the first
// taken when the library was loaded and the second when the scale is first needed. Identity when
// ticks are nanoseconds already.
struct TickScale {
  std::int64_t tick0 = 0;
  std::int64_t ns0 = 0;
  double nsPerTick = 1.0;
  std::int64_t toNs(std::int64_t tick) const noexcept {
    return ns0 + static_cast<std::int64_t>(static_cast<double>(tick - tick0) * nsPerTick);
  }
};
// The process's one scale, measured the first time it is needed and never again: a rate that
// changed between conversions would let later timestamps fall before earlier ones (streamed
// lines going backwards, negative latencies, children outside their parents).
const TickScale& processTickScale() noexcept;

// ============================================================================================
// Span records
// ============================================================================================

// A span name stored inline: the first kCapacity bytes and the length. A longer name keeps its
// first bytes here (all that other threads can see of it) and the whole name in SpanDetails.
struct ShortName {
  static constexpr std::size_t kCapacity = 23;
  std::array<char, kCapacity + 1> bytes{};  // the last byte: stored length, and whether cut

  static ShortName of(std::string_view name) noexcept {
    ShortName n;
    std::size_t size = name.size();
    if (size > kCapacity) {
      size = kCapacity;  // cut on a UTF-8 character boundary
      while (size > 0 && (static_cast<unsigned char>(name[size]) & 0xC0) == 0x80) --size;
    }
    if (size > 0) std::memcpy(n.bytes.data(), name.data(), size);
    n.bytes[kCapacity] = static_cast<char>(size | (name.size() > kCapacity ? kCutFlag : 0));
    return n;
  }
  // True when the name is longer than what is stored here.
  bool cut() const noexcept { return (lengthByte() & kCutFlag) != 0; }
  std::string_view view() const noexcept { return {bytes.data(), lengthByte() & ~kCutFlag}; }

 private:
  static constexpr std::size_t kCutFlag = 0x80;
  std::size_t lengthByte() const noexcept { return static_cast<unsigned char>(bytes[kCapacity]); }
};
static_assert(sizeof(ShortName) == 24);
using NameWords = std::array<std::uint64_t, 3>;

// A span's named inputs in one buffer (one allocation for all of them): for each input, the
// name's and the text's lengths (4 bytes each), then the name and the text.
class PackedInputs {
 public:
  void reserve(std::size_t bytes) { bytes_.reserve(bytes); }
  void add(std::string_view name, std::string_view text) {
    appendLength(name.size());
    appendLength(text.size());
    bytes_.append(name);
    bytes_.append(text);
  }
  bool empty() const noexcept { return bytes_.empty(); }
  // fn(std::string_view name, std::string_view text) for each input, in order.
  template <class Fn>
  void forEach(Fn&& fn) const {
    std::string_view rest = bytes_;
    while (rest.size() >= 8) {
      std::uint32_t nameSize = readLength(rest.data());
      std::uint32_t textSize = readLength(rest.data() + 4);
      rest.remove_prefix(8);
      fn(rest.substr(0, nameSize), rest.substr(nameSize, textSize));
      rest.remove_prefix(std::size_t{nameSize} + textSize);
    }
  }

 private:
  void appendLength(std::size_t size) {
    // Texts are cut to maxTextLength() and names are identifiers: 4 GiB is a usage error.
    auto length = static_cast<std::uint32_t>(size < UINT32_MAX ? size : UINT32_MAX);
    char bytes[4];
    std::memcpy(bytes, &length, 4);
    bytes_.append(bytes, 4);
  }
  static std::uint32_t readLength(const char* at) noexcept {
    std::uint32_t length = 0;
    std::memcpy(&length, at, 4);
    return length;
  }
  std::string bytes_;
};

// What few spans set: kept behind one more pointer so a span with inputs allocates little.
struct SpanExtras {
  std::optional<std::string> output;
  std::optional<std::string> error;
  std::string kind;
  std::vector<std::string> tags;
  nlohmann::json meta;  // null until something is annotated
};

// What most spans never set, kept out of line so the hot records stay small.
struct SpanDetails {
  std::string longName;  // the whole name when it is longer than ShortName::kCapacity
  PackedInputs inputs;
  std::unique_ptr<SpanExtras> extras;
  std::vector<std::string> redact;  // the span's own names to redact (SpanOptions::redact)
  bool captureOutput = true;

  SpanDetails() = default;
  SpanDetails(const SpanDetails& other)
      : longName(other.longName),
        inputs(other.inputs),
        extras(other.extras ? std::make_unique<SpanExtras>(*other.extras) : nullptr),
        redact(other.redact),
        captureOutput(other.captureOutput) {}
  SpanDetails& operator=(const SpanDetails&) = delete;

  SpanExtras& extra() {
    if (!extras) extras = std::make_unique<SpanExtras>();
    return *extras;
  }
  bool hasError() const noexcept { return extras && extras->error; }
};

// One slot of a thread's open-span stack. The atomic fields are written by the owning thread
// only and may be read by any thread (readOpenSpans); `details` is the owner's alone.
struct OpenSpan {
  std::atomic<std::uint64_t> id{0};  // 0 while the slot is being rewritten (the seqlock)
  std::atomic<std::uint64_t> parent{0};
  std::atomic<std::int64_t> startTicks{0};
  std::atomic<std::uint64_t> generation{0};  // the session it was opened in (0: none)
  std::array<std::atomic<std::uint64_t>, 3> name{};  // a ShortName
  // A ContextScope's entry: `id` is another thread's span, the parent of this thread's next
  // spans; not a span of this thread.
  std::atomic<bool> marker{false};
  // Closed out of order (a coroutine suspended inside it, or resumed on another thread): the
  // slot stays until the spans above it close, then the owner pops it. Set last, with release.
  std::atomic<bool> closed{false};
  // The thread's exception count when the span opened (ThreadState::exceptionCount): an
  // exception noted since is the one unwinding through the span.
  std::uint64_t exceptionsAtStart = 0;
  std::unique_ptr<SpanDetails> details;

  SpanDetails& more() {
    if (!details) details = std::make_unique<SpanDetails>();
    return *details;
  }
  ShortName shortName() const noexcept {
    NameWords words{name[0].load(std::memory_order_relaxed), name[1].load(std::memory_order_relaxed),
                    name[2].load(std::memory_order_relaxed)};
    return std::bit_cast<ShortName>(words);
  }
};

struct OpenBlock {
  static constexpr std::size_t kSlots = 64;
  std::array<OpenSpan, kSlots> slots;
  std::atomic<OpenBlock*> next{nullptr};  // the chain other threads follow
};

// A finished span: 64 bytes, one cache line.
struct FinishedSpan {
  std::uint64_t id = 0;
  std::uint64_t parent = 0;  // 0: a root
  std::int64_t startTicks = 0;
  std::int64_t endTicks = 0;
  std::unique_ptr<SpanDetails> details;
  ShortName name;
};
static_assert(sizeof(FinishedSpan) == 64);

// Finished spans of one thread and one session, in one block of memory. Only the owning thread
// appends; records below `count` never change again, so a collector may read them while the
// owner appends more. Records are constructed as they are appended, so a chunk's memory is
// touched only as it fills.
class Chunk {
 public:
  // A thread's first chunk of a session is small (64 KiB); a thread that fills it gets large
  // ones (2 MiB, advised as a huge page where the kernel supports it: one page fault per
  // 32,768 spans rather than one per 64 — fresh-memory faults were a large part of a span).
  static constexpr std::uint32_t kSmall = 1024;
  static constexpr std::uint32_t kLarge = 32768;

  explicit Chunk(std::uint32_t capacity);  // throws std::bad_alloc
  ~Chunk();
  Chunk(const Chunk&) = delete;
  Chunk& operator=(const Chunk&) = delete;

  std::uint32_t capacity() const noexcept { return capacity_; }
  std::uint32_t size(std::memory_order order = std::memory_order_acquire) const noexcept { return count_.load(order); }
  bool full() const noexcept { return count_.load(std::memory_order_relaxed) == capacity_; }
  FinishedSpan& operator[](std::uint32_t i) noexcept { return records_[i]; }
  // The owner only; requires !full().
  void append(FinishedSpan&& span) noexcept {
    std::uint32_t n = count_.load(std::memory_order_relaxed);
    std::construct_at(records_ + n, std::move(span));
    count_.store(n + 1, std::memory_order_release);
  }
  // Destroys the records; only when no other thread reads or appends.
  void clear() noexcept;

  std::uint64_t generation = 0;
  int thread = 0;

 private:
  struct FreeMemory {
    std::size_t bytes;
    void operator()(void* p) const noexcept;
  };
  static void* allocate(std::size_t bytes);
  std::uint32_t capacity_;
  std::atomic<std::uint32_t> count_{0};
  std::unique_ptr<void, FreeMemory> memory_;
  FinishedSpan* records_;
};

// A consistent copy of another thread's open span.
struct OpenSpanView {
  std::uint64_t id = 0;
  std::uint64_t parent = 0;
  std::int64_t startTicks = 0;
  std::uint64_t generation = 0;
  ShortName name;
  int thread = 0;
};

// ============================================================================================
// Threads
// ============================================================================================

struct [[gnu::visibility("hidden")]] ThreadState {
  explicit ThreadState(int index);
  ThreadState(const ThreadState&) = delete;
  ThreadState& operator=(const ThreadState&) = delete;

  const int index;

  // --- open spans ---
  // Number of open slots; written by the owner (release), read by anyone (acquire).
  std::atomic<std::uint32_t> depth{0};
  OpenSpan& slot(std::uint32_t at) {
    return at < OpenBlock::kSlots ? first.slots[at] : slotBeyondFirst(at);
  }
  // The same slot, reached from any thread (through the blocks' atomic chain, not the owner's
  // index): for a span that closes on another thread than it opened on.
  OpenSpan& slotFromAnyThread(std::uint32_t at) noexcept {
    OpenBlock* block = &first;
    for (std::uint32_t b = at / OpenBlock::kSlots; b > 0; --b) block = block->next.load(std::memory_order_acquire);
    return block->slots[at % OpenBlock::kSlots];
  }
  // The slot at `at`, allocating blocks as the stack grows. May throw std::bad_alloc.
  OpenSpan& slotForPush(std::uint32_t at) {
    return at < OpenBlock::kSlots ? first.slots[at] : growTo(at);
  }
  const OpenBlock& firstBlock() const noexcept { return first; }
  // Drops the slots from `at` up (the owner's details included) and publishes the new depth.
  void popTo(std::uint32_t at) noexcept {
    std::uint32_t top = depth.load(std::memory_order_relaxed);
    for (std::uint32_t i = at; i < top; ++i) slot(i).details.reset();
    depth.store(at, std::memory_order_release);
  }
  // Pops the slots on top that were closed out of order. The owner only.
  void popClosed() noexcept {
    std::uint32_t top = depth.load(std::memory_order_relaxed);
    std::uint32_t at = top;
    while (at > 0 && slot(at - 1).closed.load(std::memory_order_acquire)) --at;
    if (at != top) popTo(at);
  }

  // --- ids: taken in blocks from a process-wide counter, so no shared cache line per span ---
  std::uint64_t nextId() noexcept {
    if (idNext_ == idEnd_) [[unlikely]]
      refillIds();
    return idNext_++;
  }

  // --- finished spans of the active session ---
  // Appends a closed span to this thread's chunk for `generation`. No lock in the common case.
  void keep(std::uint64_t generation, FinishedSpan&& span) {
    Chunk* chunk = current.get();
    if (chunk == nullptr || chunk->generation != generation || chunk->full()) [[unlikely]]
      chunk = &chunkFor(generation);
    chunk->append(std::move(span));
  }
  std::mutex mutex;  // guards the swap of `current` and the `full` list (not its records)
  std::unique_ptr<Chunk> current;
  std::vector<std::unique_ptr<Chunk>> full;

  // "TypeName: what()" of the last exception thrown or rethrown on this thread while a span was
  // open (filled by the exception hooks), and how many have been noted: an RAII span left by
  // unwinding records it if it was noted after the span opened.
  std::string lastException;
  std::uint64_t exceptionCount = 0;

 private:
  OpenSpan& slotBeyondFirst(std::uint32_t at) {
    return more_[at / OpenBlock::kSlots - 1]->slots[at % OpenBlock::kSlots];
  }
  OpenSpan& growTo(std::uint32_t at);
  void refillIds() noexcept;
  Chunk& chunkFor(std::uint64_t generation);

  OpenBlock first;
  std::vector<std::unique_ptr<OpenBlock>> more_;  // the owner's index of the blocks after `first`
  std::uint64_t idNext_ = 0;
  std::uint64_t idEnd_ = 0;
};

// This thread's state, created on first use; nullptr once the thread's storage is being torn
// down (spans opened then are not recorded).
ThreadState* threadState();
// This thread's state if it already exists; never creates it (safe where the registry lock may
// be held, e.g. inside the throw hook).
ThreadState* existingThreadState() noexcept;

// Copies the open spans of `thread` (markers excluded) that are consistent at the time of
// reading; a slot being rewritten is skipped. Safe from any thread while the registry lock is
// held (the state cannot be destroyed meanwhile).
void readOpenSpans(const ThreadState& thread, std::vector<OpenSpanView>& out);

// ============================================================================================
// The registry: every live thread state, finished chunks of exited threads, spare chunks
// ============================================================================================

// An empty chunk of `capacity` records: a spare one if there is one, else a new one. May throw
// std::bad_alloc.
std::unique_ptr<Chunk> takeChunk(std::uint32_t capacity);
// Keeps emptied chunks for reuse, up to a bound; frees the rest.
void recycleChunks(std::vector<std::unique_ptr<Chunk>>&& chunks) noexcept;

// Everything a session recorded, taken out of the registry at Session::finish.
struct Harvest {
  std::vector<std::unique_ptr<Chunk>> chunks;  // may hold other generations: filter
  std::vector<std::pair<FinishedSpan, int>> loose;  // from chunks that stay with their thread
  std::vector<OpenSpanView> open;                  // still open on other threads
  std::int64_t sessionStartTicks = 0;  // read with the rest: a new session may start right after
};
// Stops the session `generation` and takes its spans. `self` (may be null) is skipped for open
// spans: the caller reads its own stack with the details.
Harvest stopAndHarvest(std::uint64_t generation, const ThreadState* self);
// Starts session `generation` (throws std::logic_error if one is active) and drops old buffers.
void startSessionBuffers(std::uint64_t generation, std::int64_t startTicks);

// Ids of the spans open on every thread, for the exit and terminate lines. Takes the registry
// lock only if it is free within a short wait (a dying process must not hang); nullopt if not.
std::optional<std::vector<std::uint64_t>> openSpanIdsForExit(std::int64_t sinceTicks) noexcept;

std::string spanIdText(std::uint64_t id);

// ============================================================================================
// Sinks
// ============================================================================================

// Read on every span, so inline: the generation of the active session (0: none) and the
// stream's file descriptor (-1: not streaming).
extern std::atomic<std::uint64_t> g_generation;
extern std::atomic<int> g_streamFd;
inline std::uint64_t activeGeneration() noexcept { return g_generation.load(std::memory_order_relaxed); }
inline bool streamingActive() noexcept { return g_streamFd.load(std::memory_order_relaxed) >= 0; }

struct StreamedBegin {
  std::uint64_t id;
  std::uint64_t parent;
  std::string_view name;
  std::int64_t startTicks;
  int thread;
  const SpanDetails* details;
};
void streamBegin(const StreamedBegin& span);
void streamEnd(std::uint64_t id, std::int64_t endTicks, const SpanDetails* details);
// Recomputes g_enabled from the session and stream states.
void refreshEnabled() noexcept;

// Completes a trace whose nodes are in any order, each node's `parent` the index of its parent
// in `trace.nodes` (or none: a root): fills `children` (siblings by start time) and `roots`, and
// reorders the nodes parents first (pre-order). Iterative: nesting may be arbitrarily deep.
void finishTrace(Trace& trace);
// Adds a warning to the trace when spans in it were closed out of order (meta "xray.misnested").
void noteMisnestedSpans(Trace& trace);

// Cuts text longer than maxTextLength() on a UTF-8 character boundary and ends it in "…".
std::string truncateText(std::string text);
// A type's readable name from its mangled one (the mangled name when it cannot be demangled).
std::string demangle(const char* mangledName);

// Text as a span records it (never throws): the value's text or "<TypeName>" when it cannot be
// made, secret keys of JSON redacted at any depth (plus `redact`), normalised when that is on,
// truncated.
std::string recordedText(const ErasedValue& value, std::span<const std::string> redact) noexcept;
// Its parts: the value's untruncated text ("<TypeName>" when it cannot be made), and what is done
// to a text before it is kept.
std::string rawText(const ErasedValue& value) noexcept;
std::string finishText(std::string text, std::span<const std::string> redact) noexcept;
// Model and token counts of an OpenAI- or Anthropic-style response (JSON with "usage"), given as
// JSON or as its text; none for anything else.
struct ResponseUsage {
  std::string model;
  std::int64_t promptTokens = 0;
  std::int64_t completionTokens = 0;
  std::int64_t totalTokens = -1;  // below 0: prompt + completion
};
std::optional<ResponseUsage> usageOfResponse(const nlohmann::json& response) noexcept;
std::optional<ResponseUsage> usageOfResponseText(std::string_view text) noexcept;
// Writes model, prompt_tokens, completion_tokens, total_tokens and estimated_cost_usd into meta
// (an object).
void setUsageMeta(nlohmann::json& meta, std::string_view model, std::int64_t promptTokens,
                  std::int64_t completionTokens, std::int64_t totalTokens);
// Parses JSON text no deeper than maxDepth; none when it is not JSON or too deep.
std::optional<nlohmann::json> parseJsonBounded(std::string_view text, std::size_t maxDepth) noexcept;
// The deepest nesting of a JSON value (iterative).
std::size_t jsonDepth(const nlohmann::json& value) noexcept;

}  // namespace nndna::xray::detail

#pragma GCC visibility pop
