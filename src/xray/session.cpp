// In-process capture: Session start and finish (turning recorded spans into a Trace).
#include <atomic>
#include <stdexcept>
#include <unordered_set>

#include "xray/recorder.hpp"

namespace nndna::xray {
namespace detail {
namespace {

std::atomic<std::uint64_t> g_lastGeneration{0};

double msBetween(std::int64_t fromNs, std::int64_t toNs) { return static_cast<double>(toNs - fromNs) / 1e6; }

struct Converter {
  TickScale scale;
  std::int64_t originNs;
  std::int64_t endTicks;

  FlatSpan node(std::uint64_t id, std::uint64_t parent, std::int64_t startTicks, std::int64_t endTick,
                std::string_view shortName, SpanDetails* details, int thread, bool open) const {
    FlatSpan flat;
    auto& n = flat.node;
    n.id = spanIdText(id);
    std::int64_t startNs = scale.toNs(startTicks);
    n.startMs = msBetween(originNs, startNs);
    n.latencyMs = msBetween(startNs, scale.toNs(endTick));
    n.name = details != nullptr && !details->longName.empty() ? std::move(details->longName) : std::string(shortName);
    if (details != nullptr) {
      details->inputs.forEach([&n](std::string_view name, std::string_view text) { n.inputs.emplace_back(name, text); });
      if (auto* e = details->extras.get()) {
        n.output = std::move(e->output);
        n.error = std::move(e->error);
        n.kind = std::move(e->kind);
        n.tags = std::move(e->tags);
        if (e->meta.is_object()) n.meta = std::move(e->meta);
      }
    }
    n.open = open;
    n.thread = thread;
    if (parent != 0) flat.parentId = spanIdText(parent);
    return flat;
  }
};

}  // namespace
}  // namespace detail

Session::Session() {
  generation_ = detail::g_lastGeneration.fetch_add(1) + 1;
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
  detail::Harvest harvest = detail::stopAndHarvest(generation_, self);
  detail::TickScale scale = detail::currentTickScale();
  const detail::Converter convert{scale, scale.toNs(harvest.sessionStartTicks), endTicks};

  // A span that closed while it was being collected can be both finished and open: finished wins.
  std::unordered_set<std::uint64_t> openElsewhere;
  for (const auto& v : harvest.open) openElsewhere.insert(v.id);

  std::size_t total = harvest.loose.size() + harvest.open.size();
  for (const auto& chunk : harvest.chunks) total += chunk->size();
  std::vector<detail::FlatSpan> flat;
  flat.reserve(total + (self != nullptr ? self->depth.load(std::memory_order_relaxed) : 0));
  auto addFinished = [&](detail::FinishedSpan& s, int thread) {
    if (!openElsewhere.empty()) openElsewhere.erase(s.id);
    flat.push_back(convert.node(s.id, s.parent, s.startTicks, s.endTicks, s.name.view(), s.details.get(), thread, false));
  };
  for (auto& chunk : harvest.chunks) {
    if (chunk->generation != generation_) continue;
    std::uint32_t n = chunk->size();
    for (std::uint32_t i = 0; i < n; ++i) addFinished((*chunk)[i], chunk->thread);
  }
  detail::recycleChunks(std::move(harvest.chunks));
  for (auto& [span, thread] : harvest.loose) addFinished(span, thread);

  // Spans still open on other threads: what their slots show (name, start, parent); their
  // inputs and annotations belong to the running thread and are not read from here.
  for (const auto& v : harvest.open) {
    if (!openElsewhere.contains(v.id)) continue;
    // A long name's rest is with the running thread too: its first bytes and "…".
    std::string name(v.name.view());
    if (v.name.cut()) name += "\u2026";
    flat.push_back(convert.node(v.id, v.parent, v.startTicks, endTicks, name, nullptr, v.thread, true));
  }

  // Spans still open on this thread: everything, details included.
  if (self != nullptr) {
    std::uint32_t depth = self->depth.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < depth; ++i) {
      detail::OpenSpan& s = self->slot(i);
      if (s.marker.load(std::memory_order_relaxed) || s.generation.load(std::memory_order_relaxed) != generation_)
        continue;
      std::unique_ptr<detail::SpanDetails> copy;
      if (s.details) copy = std::make_unique<detail::SpanDetails>(*s.details);
      flat.push_back(convert.node(s.id.load(std::memory_order_relaxed), s.parent.load(std::memory_order_relaxed),
                                  s.startTicks.load(std::memory_order_relaxed), endTicks, s.shortName().view(),
                                  copy.get(), self->index, true));
    }
  }
  return detail::assembleTrace(std::move(flat));
}

}  // namespace nndna::xray
