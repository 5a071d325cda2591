// What `nndna xray view` and `nndna xray diff` do with a trace a reader accepted, for the xray fuzz
// targets: every export, the overview, the diff, and the trace JSON written and read back (what
// nndna writes, it must read). None of it may throw: a trace that was read is a valid trace.
#pragma once

#include <nlohmann/json.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>
#include <sstream>
#include <stdexcept>

namespace nndna::fuzz {

// Graphviz lays out the folded call graph of toHtml; larger traces take seconds each (every
// seed is smaller).
inline constexpr std::size_t kMaxLaidOutSpans = 300;

inline void useTrace(const xray::Trace& trace) {
  (void)xray::summarize(trace);
  (void)xray::overview(trace);
  (void)xray::toChromeTrace(trace).dump();
  (void)xray::toOtlpJson(trace).dump();
  (void)xray::toJson(trace).dump();
  const std::string text = xray::toJsonText(trace);
  std::istringstream in(text);
  const xray::Trace again = xray::readTraceJson(in);
  if (again.nodes.size() != trace.nodes.size()) {
    throw std::logic_error("the trace JSON written for a trace read back with another span count");
  }
  const xray::TraceDiff diff = xray::diffTraces(trace, again);
  if (diff.added != 0 || diff.removed != 0) {
    throw std::logic_error("a trace differs from its own trace JSON read back");
  }
  if (trace.nodes.size() <= kMaxLaidOutSpans) {
    (void)xray::toDot(trace);
    (void)xray::toHtml(trace);
    (void)xray::diffHtml(trace, again, diff);
  }
}

}  // namespace nndna::fuzz
