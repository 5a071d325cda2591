// In-process capture: the thread registry, session generations, Session::finish.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>

#include "xray/recorder.hpp"

namespace nndna::xray {
namespace detail {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<ThreadState*> threads;
  std::vector<std::vector<SpanRecord>> orphans;  // finished spans of threads that have exited
  std::int64_t sessionStartNs = 0;
};

Registry& registry() {
  // Leaked on purpose: threads may exit (and unregister) after static destruction began.
  static auto* r = new Registry();
  return *r;
}

std::atomic<std::uint64_t> g_generation{0};  // of the active session; 0 = none
std::atomic<std::uint64_t> g_lastGeneration{0};

}  // namespace

void registerThread(ThreadState* thread) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.threads.push_back(thread);
}

void unregisterThread(ThreadState* thread) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  std::erase(r.threads, thread);
  std::lock_guard threadLock(thread->mutex);
  for (auto& chunk : thread->finished) r.orphans.push_back(std::move(chunk));
  thread->finished.clear();
}

std::uint64_t activeGeneration() noexcept { return g_generation.load(std::memory_order_relaxed); }

void keepForSession(ThreadState& thread, SpanRecord&& record) {
  constexpr std::size_t kChunk = 1024;
  std::lock_guard lock(thread.mutex);
  auto& chunks = thread.finished;
  if (chunks.empty() || chunks.back().size() == kChunk) {
    chunks.emplace_back();
    chunks.back().reserve(kChunk);
  }
  chunks.back().push_back(std::move(record));
}

namespace {
FlatSpan toFlat(SpanRecord&& r, std::int64_t originNs) {
  FlatSpan flat;
  auto& n = flat.node;
  n.id = spanIdText(r.id);
  n.name = std::move(r.name);
  n.startMs = static_cast<double>(r.startNs - originNs) / 1e6;
  n.latencyMs = static_cast<double>(r.endNs - r.startNs) / 1e6;
  if (auto& d = r.details) {
    n.inputs = std::move(d->inputs);
    n.output = std::move(d->output);
    n.error = std::move(d->error);
    n.kind = std::move(d->kind);
    n.tags = std::move(d->tags);
    if (d->meta.is_object()) n.meta = std::move(d->meta);
  }
  n.open = r.open;
  n.thread = r.thread;
  if (r.parent != 0) flat.parentId = spanIdText(r.parent);
  return flat;
}
}  // namespace

}  // namespace detail

Session::Session() {
  auto& r = detail::registry();
  std::unique_lock lock(r.mutex);
  if (detail::g_generation.load() != 0) {
    lock.unlock();
    throw std::logic_error("nndna::xray::Session: another session is already active");
  }
  r.orphans.clear();
  for (auto* thread : r.threads) {
    std::lock_guard threadLock(thread->mutex);
    thread->finished.clear();
  }
  generation_ = detail::g_lastGeneration.fetch_add(1) + 1;
  r.sessionStartNs = detail::nowNs();
  detail::g_generation.store(generation_);
  detail::refreshEnabled();
}

Session::~Session() {
  if (!finished_) {
    try {
      finish();
    } catch (...) {
      // Out of memory while collecting: nothing more to do in a destructor.
    }
  }
}

Trace Session::finish() {
  if (finished_) throw std::logic_error("nndna::xray::Session::finish called twice");
  finished_ = true;
  std::int64_t endNs = detail::nowNs();
  std::vector<std::vector<detail::SpanRecord>> chunks;
  auto& r = detail::registry();
  {
    std::lock_guard lock(r.mutex);
    detail::g_generation.store(0);
    detail::refreshEnabled();
    chunks = std::move(r.orphans);
    r.orphans.clear();
    for (auto* thread : r.threads) {
      std::lock_guard threadLock(thread->mutex);
      for (auto& chunk : thread->finished) chunks.push_back(std::move(chunk));
      thread->finished.clear();
    }
  }
  std::size_t total = 0;
  for (const auto& chunk : chunks) total += chunk.size();
  std::vector<detail::FlatSpan> flat;
  flat.reserve(total + detail::threadState().stack.size());
  for (auto& chunk : chunks) {
    for (auto& record : chunk)
      if (record.generation == generation_) flat.push_back(detail::toFlat(std::move(record), r.sessionStartNs));
    std::vector<detail::SpanRecord>().swap(chunk);  // release as we go
  }
  // Spans still open on this thread: recorded as open, lasting until now.
  for (const auto& entry : detail::threadState().stack) {
    if (entry.marker || entry.record.generation != generation_) continue;
    detail::SpanRecord copy = entry.record.clone();
    copy.open = true;
    copy.endNs = endNs;
    flat.push_back(detail::toFlat(std::move(copy), r.sessionStartNs));
  }
  return detail::assembleTrace(std::move(flat));
}

}  // namespace nndna::xray
