// Per-thread recording state: the open-span stack, span ids, appending finished spans, and the
// state's lifetime (created on a thread's first span, retired when the thread ends).
#include <atomic>

#include "xray/recorder.hpp"

namespace nndna::xray::detail {

// Defined in registry.cpp.
void registerThread(ThreadState* thread);
bool retireThread(ThreadState* thread) noexcept;

namespace {

std::atomic<std::uint64_t> g_nextId{1};
std::atomic<int> g_nextThread{0};
constexpr std::uint64_t kIdBlock = 4096;

// The hot path reads these on every span: initial-exec TLS is one %fs-relative load, where the
// default model of a shared library calls __tls_get_addr. (They are a few bytes, well within the
// static TLS space glibc reserves even for a library loaded with dlopen.)
[[gnu::tls_model("initial-exec")]] thread_local ThreadState* t_state = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local bool t_retired = false;

// Owns the state and retires it when the thread ends. A thread_local with a destructor costs a
// guard and a registration, so it is touched only when the state is created.
struct ThreadStateOwner {
  std::unique_ptr<ThreadState> state;
  ~ThreadStateOwner() {
    t_state = nullptr;
    t_retired = true;
    if (!state) return;
    state->popClosed();
    // A thread that ends with spans still open (std::exit from inside spans, or spans kept in
    // heap objects) keeps its state registered: the exit handler marks those spans open, and a
    // late ~Span still finds its slot. Reachable from the registry, so not a leak.
    if (!retireThread(state.get())) (void)state.release();
  }
};
thread_local ThreadStateOwner t_owner;

ThreadState* createThreadState() {
  if (t_retired) return nullptr;
  auto state = std::make_unique<ThreadState>(g_nextThread.fetch_add(1, std::memory_order_relaxed));
  registerThread(state.get());
  t_owner.state = std::move(state);
  t_state = t_owner.state.get();
  return t_state;
}

}  // namespace

ThreadState* threadState() {
  ThreadState* state = t_state;
  if (state == nullptr) [[unlikely]]
    state = createThreadState();
  return state;
}

ThreadState* existingThreadState() noexcept { return t_state; }

ThreadState::ThreadState(int threadIndex) : index(threadIndex) {}

void ThreadState::refillIds() noexcept {
  idNext_ = g_nextId.fetch_add(kIdBlock, std::memory_order_relaxed);
  idEnd_ = idNext_ + kIdBlock;
}

OpenSpan& ThreadState::growTo(std::uint32_t at) {
  std::size_t block = at / OpenBlock::kSlots;  // >= 1
  while (more_.size() < block) {
    auto next = std::make_unique<OpenBlock>();
    OpenBlock* previous = more_.empty() ? &first : more_.back().get();
    more_.push_back(std::move(next));
    previous->next.store(more_.back().get(), std::memory_order_release);
  }
  return slotBeyondFirst(at);
}

Chunk& ThreadState::chunkFor(std::uint64_t generation) {
  std::vector<std::unique_ptr<Chunk>> stale;
  std::lock_guard lock(mutex);
  std::uint32_t capacity = Chunk::kSmall;
  if (current && current->generation == generation) {
    full.push_back(std::move(current));  // it is full: this thread records many spans
    capacity = Chunk::kLarge;
  } else if (current) {
    stale.push_back(std::move(current));  // left over from an earlier session (already collected)
    recycleChunks(std::move(stale));
  }
  current = takeChunk(capacity);
  current->generation = generation;
  current->thread = index;
  return *current;
}

void readOpenSpans(const ThreadState& thread, std::vector<OpenSpanView>& out) {
  std::uint32_t depth = thread.depth.load(std::memory_order_acquire);
  std::uint32_t at = 0;
  for (const OpenBlock* block = &thread.firstBlock(); block != nullptr && at < depth;
       block = block->next.load(std::memory_order_acquire)) {
    for (const OpenSpan& s : block->slots) {
      if (at++ >= depth) break;
      // The seqlock: the owner zeroes the id before rewriting a slot and stores the new id last.
      std::uint64_t id = s.id.load(std::memory_order_acquire);
      if (id == 0) continue;
      OpenSpanView view{id,
                        s.parent.load(std::memory_order_relaxed),
                        s.startTicks.load(std::memory_order_relaxed),
                        s.generation.load(std::memory_order_relaxed),
                        s.shortName(),
                        thread.index};
      bool marker = s.marker.load(std::memory_order_relaxed);
      bool closed = s.closed.load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (marker || closed || s.id.load(std::memory_order_relaxed) != id) continue;
      out.push_back(view);
    }
  }
}

}  // namespace nndna::xray::detail
