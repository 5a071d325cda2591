// Reading an event stream (the JSON lines NNDNA_XRAY_OUT produces) back into a Trace. Built to
// read what crashes leave: spans with no closing line are open, a torn last line is ignored.
#include <algorithm>
#include <istream>
#include <stdexcept>
#include <unordered_map>

#include "xray/recorder.hpp"

namespace nndna::xray {

Trace readEventStream(std::istream& lines) {
  using nlohmann::json;
  std::vector<detail::FlatSpan> spans;
  std::vector<bool> closed;
  std::unordered_map<std::string, std::size_t> byId;
  double lastT = 0;
  bool sawHeader = false;
  bool sawExit = false;
  std::string terminateNote;
  std::string line;
  std::size_t lineNo = 0;
  std::string pendingError;  // a bad line is only an error if more lines follow it

  while (std::getline(lines, line)) {
    ++lineNo;
    if (line.empty()) continue;
    if (!pendingError.empty()) throw std::runtime_error(pendingError);
    json event;
    try {
      event = json::parse(line);
    } catch (const json::exception& e) {
      pendingError = "xray event stream, line " + std::to_string(lineNo) + ": " + e.what();
      continue;
    }
    if (!event.is_object()) throw std::runtime_error("xray event stream, line " + std::to_string(lineNo) + ": not an object");
    if (!sawHeader) {
      if (event.value("format", "") != kEventFormat || event.value("version", 0) != kEventFormatVersion)
        throw std::runtime_error("not an xray event stream (expected a \"" + std::string(kEventFormat) +
                                 "\" version " + std::to_string(kEventFormatVersion) + " header)");
      sawHeader = true;
      continue;
    }
    std::string ev = event.value("ev", "");
    double t = event.value("t", 0.0);
    lastT = std::max(lastT, t);
    if (ev == "B") {
      detail::FlatSpan span;
      auto& n = span.node;
      n.id = event.value("id", "");
      n.name = event.value("name", "");
      n.startMs = t;
      n.thread = event.value("thread", 0);
      n.kind = event.value("kind", "");
      if (auto it = event.find("tags"); it != event.end() && it->is_array())
        for (const auto& tag : *it)
          if (tag.is_string()) n.tags.push_back(tag);
      if (auto it = event.find("inputs"); it != event.end() && it->is_object())
        for (const auto& [name, value] : it->items())
          n.inputs.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
      if (auto it = event.find("parent"); it != event.end() && it->is_string()) span.parentId = *it;
      if (n.id.empty()) throw std::runtime_error("xray event stream, line " + std::to_string(lineNo) + ": span without id");
      byId[n.id] = spans.size();
      spans.push_back(std::move(span));
      closed.push_back(false);
    } else if (ev == "E") {
      auto it = byId.find(event.value("id", ""));
      if (it == byId.end()) continue;  // its opening line was lost: nothing to attach it to
      auto& n = spans[it->second].node;
      n.latencyMs = t - n.startMs;
      closed[it->second] = true;
      if (auto o = event.find("output"); o != event.end() && o->is_string()) n.output = o->get<std::string>();
      if (auto e = event.find("error"); e != event.end() && e->is_string()) n.error = e->get<std::string>();
      if (auto m = event.find("meta"); m != event.end() && m->is_object()) n.meta = *m;
      if (auto tags = event.find("tags"); tags != event.end() && tags->is_array()) {
        n.tags.clear();
        for (const auto& tag : *tags)
          if (tag.is_string()) n.tags.push_back(tag);
      }
    } else if (ev == "exit") {
      sawExit = true;
    } else if (ev == "terminate") {
      terminateNote = "terminated";
      if (auto e = event.find("error"); e != event.end() && e->is_string())
        terminateNote += ": " + e->get<std::string>();
    }
  }
  if (!sawHeader) throw std::runtime_error("empty xray event stream");

  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (closed[i]) continue;
    auto& n = spans[i].node;
    n.open = true;
    n.latencyMs = std::max(0.0, lastT - n.startMs);
  }
  Trace trace = detail::assembleTrace(std::move(spans));
  if (!terminateNote.empty()) trace.exitNote = terminateNote;
  else if (!sawExit) trace.exitNote = "no exit record: the process crashed, was killed or is still running";
  return trace;
}

}  // namespace nndna::xray
