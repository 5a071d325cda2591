// Chrome trace-event JSON: complete ("X") events per span, one track per thread. Opens in
// Perfetto (ui.perfetto.dev) and chrome://tracing.
#include <set>

#include "xray/recorder.hpp"

namespace nndna::xray {

nlohmann::json toChromeTrace(const Trace& trace) {
  using nlohmann::json;
  json events = json::array();
  std::set<int> threads;
  for (const auto& n : trace.nodes) {
    threads.insert(n.thread);
    json args = json::object();
    args["id"] = n.id;
    for (const auto& [name, text] : n.inputs()) args["input." + name] = text;
    if (n.output()) args["output"] = *n.output();
    if (n.error()) args["error"] = *n.error();
    if (n.open) args["open"] = true;
    if (!n.tags().empty()) args["tags"] = n.tags();
    for (const auto& [key, value] : n.meta().items()) args["meta." + key] = value;
    events.push_back({{"name", n.name},
                      {"cat", n.kind().empty() ? std::string("span") : n.kind()},
                      {"ph", "X"},
                      {"ts", n.startMs * 1000.0},
                      {"dur", n.latencyMs * 1000.0},
                      {"pid", 1},
                      {"tid", n.thread},
                      {"args", std::move(args)}});
  }
  for (int t : threads)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", t},
                      {"args", {{"name", "thread " + std::to_string(t)}}}});
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"args", {{"name", trace.title.empty() ? std::string("xray trace") : trace.title}}}});
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
}

}  // namespace nndna::xray
