// Internal: where spans live while open, and where they go when they close (the in-process
// session buffers and the event stream). Shared by span.cpp, session.cpp and stream.cpp.
#pragma once

#include <nndna/xray.hpp>

#include <chrono>
#include <memory>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nndna::xray::detail {

inline std::int64_t nowNs() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// What most spans never set, kept out of line so the hot record stays small: a session holds
// one record per span, and memory traffic is most of an enabled span's cost.
struct SpanDetails {
  std::vector<std::pair<std::string, std::string>> inputs;
  std::optional<std::string> output;
  std::optional<std::string> error;
  std::string kind;
  std::vector<std::string> tags;
  nlohmann::json meta;  // null until something is annotated
};

struct SpanRecord {
  std::uint64_t id = 0;
  std::uint64_t parent = 0;  // 0: a root
  std::int64_t startNs = 0;
  std::int64_t endNs = 0;
  std::uint64_t generation = 0;  // the session it was opened in (0: none)
  int thread = 0;
  bool captureOutput = true;
  bool open = false;
  std::string name;
  std::unique_ptr<SpanDetails> details;

  SpanDetails& more() {
    if (!details) details = std::make_unique<SpanDetails>();
    return *details;
  }
  SpanRecord clone() const {
    SpanRecord copy{id, parent, startNs, endNs, generation, thread, captureOutput, open, name, nullptr};
    if (details) copy.details = std::make_unique<SpanDetails>(*details);
    return copy;
  }
};

// An entry of a thread's span stack: a real span, or a marker that a ContextScope pushed to
// parent this thread's next spans under another thread's span.
struct StackEntry {
  SpanRecord record;
  bool marker = false;
};

struct ThreadState {
  ThreadState();
  ~ThreadState();
  ThreadState(const ThreadState&) = delete;
  ThreadState& operator=(const ThreadState&) = delete;

  int index = 0;
  std::vector<StackEntry> stack;
  // Finished spans of the active session, in fixed-capacity chunks (growing one big vector
  // would move every record at each doubling); collected by Session::finish under the mutex.
  std::mutex mutex;
  std::vector<std::vector<SpanRecord>> finished;
  // "TypeName: what()" of the last exception thrown on this thread while a span was open
  // (filled by the __cxa_throw hook); RAII spans left by unwinding record it.
  std::string lastException;
};

ThreadState& threadState();
// This thread's state if it already exists; never creates it (safe where the registry lock may
// be held, e.g. inside the throw hook).
ThreadState* existingThreadState() noexcept;
// Every live ThreadState is registered so a session can collect its finished spans; a thread
// that exits hands its leftovers to the registry.
void registerThread(ThreadState* thread);
void unregisterThread(ThreadState* thread);
std::uint64_t nextSpanId() noexcept;
std::string spanIdText(std::uint64_t id);

// Sinks.
std::uint64_t activeGeneration() noexcept;  // 0 when no session is active
void keepForSession(ThreadState& thread, SpanRecord&& record);
bool streamingActive() noexcept;
void streamBegin(const SpanRecord& record);
void streamEnd(const SpanRecord& record);
// Recomputes g_enabled from the session and stream states.
void refreshEnabled() noexcept;

// Builds a Trace from flat spans whose parents are given by id (missing parents become
// placeholder open spans). Used by sessions and the event-stream reader.
struct FlatSpan {
  TraceNode node;
  std::string parentId;  // "" for a root
};
Trace assembleTrace(std::vector<FlatSpan> spans);

}  // namespace nndna::xray::detail
