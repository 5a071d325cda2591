// The registry of thread states: registration and retirement, session start and harvest, spare
// chunks, and the open spans of every thread for the exit handlers.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "xray/recorder.hpp"

namespace nndna::xray::detail {
namespace {

// Spare chunks kept after a session for the next one: reusing them saves the page faults of
// fresh memory. Bounded by bytes (64 B per span).
constexpr std::size_t kMaxSpareBytes = std::size_t{16} << 20;

struct Registry {
  std::mutex mutex;
  std::vector<ThreadState*> threads;
  std::vector<std::unique_ptr<Chunk>> orphans;  // finished spans of threads that have exited
  std::mutex spareMutex;
  std::vector<std::unique_ptr<Chunk>> spare;
  std::size_t spareBytes = 0;
};

std::size_t bytesOf(const Chunk& chunk) { return std::size_t{chunk.capacity()} * sizeof(FinishedSpan); }

Registry& registry() {
  // Leaked on purpose: threads may exit (and retire) after static destruction began.
  static auto* r = new Registry();
  return *r;
}

std::atomic<std::int64_t> g_sessionStartTicks{0};

// Set while this thread holds the registry lock, so an exit handler running on it (std::exit
// or std::terminate from inside the registry) does not try to take the lock again.
[[gnu::tls_model("initial-exec")]] thread_local bool t_holdsRegistry = false;

class RegistryLock {
 public:
  RegistryLock() : lock_(registry().mutex) { t_holdsRegistry = true; }
  explicit RegistryLock(std::unique_lock<std::mutex>&& locked) : lock_(std::move(locked)) { t_holdsRegistry = true; }
  ~RegistryLock() { t_holdsRegistry = false; }
  RegistryLock(const RegistryLock&) = delete;
  RegistryLock& operator=(const RegistryLock&) = delete;

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace

void registerThread(ThreadState* thread) {
  RegistryLock lock;
  registry().threads.push_back(thread);
}

bool retireThread(ThreadState* thread) noexcept {
  std::vector<std::unique_ptr<Chunk>> unused;
  {
    RegistryLock lock;
    if (thread->depth.load(std::memory_order_relaxed) != 0) return false;
    auto& r = registry();
    std::erase(r.threads, thread);
    std::lock_guard threadLock(thread->mutex);
    if (thread->current) thread->full.push_back(std::move(thread->current));
    std::uint64_t active = g_generation.load(std::memory_order_relaxed);
    for (auto& chunk : thread->full) {
      bool wanted = active != 0 && chunk->generation == active && chunk->size() > 0;
      try {
        (wanted ? r.orphans : unused).push_back(std::move(chunk));
      } catch (...) {
        // No memory to keep the chunk: its spans are lost (it is freed with the thread).
      }
    }
    thread->full.clear();
  }
  recycleChunks(std::move(unused));
  return true;
}

std::unique_ptr<Chunk> takeChunk(std::uint32_t capacity) {
  auto& r = registry();
  {
    std::lock_guard lock(r.spareMutex);
    auto it = std::find_if(r.spare.begin(), r.spare.end(), [&](const auto& c) { return c->capacity() == capacity; });
    if (it != r.spare.end()) {
      auto chunk = std::move(*it);
      r.spare.erase(it);
      r.spareBytes -= bytesOf(*chunk);
      return chunk;
    }
  }
  return std::make_unique<Chunk>(capacity);
}

void recycleChunks(std::vector<std::unique_ptr<Chunk>>&& chunks) noexcept {
  for (auto& chunk : chunks)
    if (chunk) chunk->clear();
  auto& r = registry();
  {
    std::lock_guard lock(r.spareMutex);
    for (auto& chunk : chunks) {
      if (!chunk || r.spareBytes + bytesOf(*chunk) > kMaxSpareBytes) continue;
      try {
        r.spare.push_back(std::move(chunk));
        r.spareBytes += bytesOf(*r.spare.back());
      } catch (...) {
        break;
      }
    }
  }
  chunks.clear();  // the rest are freed here, outside the lock
}

std::atomic<std::uint64_t> g_generation{0};

void startSessionBuffers(std::uint64_t generation, std::int64_t startTicks) {
  std::vector<std::unique_ptr<Chunk>> old;
  {
    RegistryLock lock;
    if (g_generation.load() != 0) throw std::logic_error("nndna::xray::Session: another session is already active");
    auto& r = registry();
    old = std::move(r.orphans);
    r.orphans.clear();
    for (ThreadState* thread : r.threads) {
      std::lock_guard threadLock(thread->mutex);
      for (auto& chunk : thread->full) old.push_back(std::move(chunk));
      thread->full.clear();
      // `current` stays with its thread, which empties it when it sees the new generation.
    }
    g_sessionStartTicks.store(startTicks, std::memory_order_relaxed);
    g_generation.store(generation);
    refreshEnabled();
  }
  recycleChunks(std::move(old));
}

Harvest stopAndHarvest(std::uint64_t generation, const ThreadState* self) {
  Harvest harvest;
  RegistryLock lock;
  harvest.sessionStartTicks = g_sessionStartTicks.load(std::memory_order_relaxed);
  g_generation.store(0);
  refreshEnabled();
  auto& r = registry();
  harvest.chunks = std::move(r.orphans);
  r.orphans.clear();
  for (ThreadState* thread : r.threads) {
    // Open spans first, then finished ones: a span closing meanwhile is published as finished
    // before it leaves the open stack, so it is seen at least once (finish drops the duplicate).
    if (thread != self) readOpenSpans(*thread, harvest.open);
    std::lock_guard threadLock(thread->mutex);
    for (auto& chunk : thread->full) harvest.chunks.push_back(std::move(chunk));
    thread->full.clear();
    Chunk* current = thread->current.get();
    if (current == nullptr || current->generation != generation) continue;
    // The chunk stays with its thread (which may be appending to it): take the published
    // records' contents, leave the records.
    std::uint32_t n = current->size();
    for (std::uint32_t i = 0; i < n; ++i) {
      FinishedSpan& s = (*current)[i];
      harvest.loose.emplace_back(FinishedSpan{s.id, s.parent, s.startTicks, s.endTicks, std::move(s.details), s.name},
                                 thread->index);
    }
  }
  std::erase_if(harvest.open, [&](const OpenSpanView& v) { return v.generation != generation; });
  return harvest;
}

std::optional<std::vector<std::uint64_t>> openSpanIdsForExit(std::int64_t sinceTicks) noexcept {
  if (t_holdsRegistry) return std::nullopt;
  try {
    // Another thread may hold the lock for a moment (starting, ending, collecting); a thread
    // stopped with it held (a crash elsewhere) must not hang the exit: wait ~50 ms at most.
    std::unique_lock<std::mutex> locked(registry().mutex, std::try_to_lock);
    for (int attempt = 0; !locked.owns_lock() && attempt < 50; ++attempt) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      locked.try_lock();
    }
    if (!locked.owns_lock()) return std::nullopt;
    RegistryLock lock(std::move(locked));
    std::vector<OpenSpanView> open;
    for (ThreadState* thread : registry().threads) readOpenSpans(*thread, open);
    std::vector<std::uint64_t> ids;
    for (const auto& span : open)
      if (span.startTicks >= sinceTicks) ids.push_back(span.id);
    return ids;
  } catch (...) {
    return std::nullopt;
  }
}

std::string spanIdText(std::uint64_t id) { return "s" + std::to_string(id); }

}  // namespace nndna::xray::detail
