// In-process capture: Session start and finish (turning recorded spans into a Trace).
//
// finish() is built for traces of millions of spans: each record becomes a TraceNode in one pass
// (a chunk is handed back as soon as it is converted), parents are found by numeric id in one
// sorted table, and the nodes are put in pre-order in place (bench/xray measures time and memory).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>

#include "xray/recorder.hpp"

namespace nndna::xray {
namespace detail {
namespace {

std::atomic<std::uint64_t> g_lastGeneration{0};

double msBetween(std::int64_t fromNs, std::int64_t toNs) { return static_cast<double>(toNs - fromNs) / 1e6; }

// Collects nodes and the numeric ids of each node and its parent.
struct Collector {
  const TickScale& scale;
  std::int64_t originNs;
  std::vector<TraceNode> nodes;
  std::vector<std::uint64_t> ids;
  std::vector<std::uint64_t> parentIds;
  std::vector<bool> open;

  void add(std::uint64_t id, std::uint64_t parent, std::int64_t startTicks, std::int64_t endTicks,
           std::string_view shortName, SpanDetails* details, int thread, bool isOpen) {
    TraceNode& n = nodes.emplace_back();
    n.id = spanIdText(id);
    std::int64_t startNs = scale.toNs(startTicks);
    n.startMs = msBetween(originNs, startNs);
    n.latencyMs = std::max(0.0, msBetween(startNs, scale.toNs(endTicks)));
    n.name = details != nullptr && !details->longName.empty() ? std::move(details->longName) : std::string(shortName);
    if (details != nullptr) {
      details->inputs.forEach([&n](std::string_view name, std::string_view text) { n.addInput(std::string(name), std::string(text)); });
      if (auto* e = details->extras.get()) {
        n.setOutput(std::move(e->output));
        n.setError(std::move(e->error));
        n.setKind(std::move(e->kind));
        n.setTags(std::move(e->tags));
        if (e->meta.is_object() && !e->meta.empty()) n.mutableMeta() = std::move(e->meta);
      }
    }
    n.open = isOpen;
    n.thread = thread;
    ids.push_back(id);
    parentIds.push_back(parent);
    open.push_back(isOpen);
  }
};

}  // namespace
}  // namespace detail

Session::Session() {
  generation_ = detail::g_lastGeneration.fetch_add(1) + 1;
  startUnixMs_ = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                     .count();
  detail::startSessionBuffers(generation_, detail::ticks());
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
  std::int64_t endTicks = detail::ticks();
  detail::ThreadState* self = detail::existingThreadState();
  if (self != nullptr) self->popClosed();
  detail::Harvest harvest = detail::stopAndHarvest(generation_, self);
  const detail::TickScale& scale = detail::processTickScale();
  detail::Collector collect{scale, scale.toNs(harvest.sessionStartTicks), {}, {}, {}, {}};

  std::size_t total = harvest.loose.size() + harvest.open.size();
  for (const auto& chunk : harvest.chunks)
    if (chunk->generation == generation_) total += chunk->size();
  if (self != nullptr) total += self->depth.load(std::memory_order_relaxed);
  collect.nodes.reserve(total);
  collect.ids.reserve(total);
  collect.parentIds.reserve(total);
  collect.open.reserve(total);

  for (auto& chunk : harvest.chunks) {
    if (chunk->generation == generation_) {
      std::uint32_t n = chunk->size();
      for (std::uint32_t i = 0; i < n; ++i) {
        detail::FinishedSpan& s = (*chunk)[i];
        collect.add(s.id, s.parent, s.startTicks, s.endTicks, s.name.view(), s.details.get(), chunk->thread, false);
      }
    }
    std::vector<std::unique_ptr<detail::Chunk>> done;
    done.push_back(std::move(chunk));
    detail::recycleChunks(std::move(done));  // its memory goes back before the next is read
  }
  harvest.chunks.clear();
  for (auto& [s, thread] : harvest.loose)
    collect.add(s.id, s.parent, s.startTicks, s.endTicks, s.name.view(), s.details.get(), thread, false);
  harvest.loose.clear();

  // Spans still open on other threads: what their slots show (name, start, parent); their
  // inputs and annotations belong to the running thread and are not read from here. A long
  // name's rest is with the running thread too: its first bytes and "…".
  for (const auto& v : harvest.open) {
    std::string name(v.name.view());
    if (v.name.cut()) name += "\u2026";
    collect.add(v.id, v.parent, v.startTicks, endTicks, name, nullptr, v.thread, true);
  }

  // Spans still open on this thread: everything, details included.
  if (self != nullptr) {
    std::uint32_t depth = self->depth.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < depth; ++i) {
      detail::OpenSpan& s = self->slot(i);
      if (s.marker.load(std::memory_order_relaxed) || s.closed.load(std::memory_order_relaxed) ||
          s.generation.load(std::memory_order_relaxed) != generation_)
        continue;
      std::unique_ptr<detail::SpanDetails> copy;
      if (s.details) copy = std::make_unique<detail::SpanDetails>(*s.details);
      collect.add(s.id.load(std::memory_order_relaxed), s.parent.load(std::memory_order_relaxed),
                  s.startTicks.load(std::memory_order_relaxed), endTicks, s.shortName().view(), copy.get(), self->index,
                  true);
    }
  }

  // Parents by numeric id. A span that closed while it was being collected can be both finished
  // and open: the finished record wins. A parent outside the session (a span opened before it
  // started) makes its child a root.
  Trace trace;
  trace.startUnixMs = startUnixMs_;
  {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> byId;
    byId.reserve(collect.ids.size());
    for (std::uint32_t i = 0; i < collect.ids.size(); ++i) byId.emplace_back(collect.ids[i], i);
    std::sort(byId.begin(), byId.end(), [&](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : collect.open[a.second] < collect.open[b.second];
    });
    std::vector<bool> duplicate(collect.nodes.size(), false);
    for (std::size_t k = 1; k < byId.size(); ++k)
      if (byId[k].first == byId[k - 1].first) duplicate[byId[k].second] = true;
    auto find = [&](std::uint64_t id) -> std::optional<std::size_t> {
      auto it = std::lower_bound(byId.begin(), byId.end(), id, [](const auto& e, std::uint64_t v) { return e.first < v; });
      if (it == byId.end() || it->first != id) return std::nullopt;
      return it->second;
    };
    // Parents as indices before duplicates are dropped, then renumbered.
    std::vector<std::uint32_t> kept(collect.nodes.size());
    std::uint32_t next = 0;
    for (std::size_t i = 0; i < collect.nodes.size(); ++i) kept[i] = duplicate[i] ? UINT32_MAX : next++;
    for (std::size_t i = 0; i < collect.nodes.size(); ++i) {
      if (collect.parentIds[i] == 0) continue;
      if (auto p = find(collect.parentIds[i]); p && kept[*p] != UINT32_MAX) collect.nodes[i].parent = kept[*p];
    }
    if (next != collect.nodes.size()) {
      std::size_t write = 0;
      for (std::size_t i = 0; i < collect.nodes.size(); ++i)
        if (!duplicate[i]) collect.nodes[write++] = std::move(collect.nodes[i]);
      collect.nodes.resize(write);
    }
  }
  collect.ids = {};
  collect.parentIds = {};
  collect.open = {};
  trace.nodes = std::move(collect.nodes);
  detail::finishTrace(trace);
  detail::noteMisnestedSpans(trace);
  return trace;
}

}  // namespace nndna::xray
