// Reading an event stream (the JSON lines NNDNA_XRAY_OUT produces) back into a Trace. Built to
// read what crashes leave: spans with no closing line are open, a torn last line is ignored. The
// file is untrusted: every line is bounded in depth, errors name the line.
#include <algorithm>
#include <cstdint>
#include <istream>
#include <stdexcept>
#include <unordered_map>

#include "xray/recorder.hpp"

namespace nndna::xray {
namespace {

using nlohmann::json;

[[noreturn]] void badLine(std::size_t lineNo, const std::string& what) {
  throw std::runtime_error("xray event stream, line " + std::to_string(lineNo) + ": " + what);
}

// One line as JSON; nullopt (with the reason) when it does not parse.
std::optional<json> parseLine(const std::string& line, std::size_t maxDepth, std::string& error) {
  bool tooDeep = false;
  auto callback = [&](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        static_cast<std::size_t>(depth) >= maxDepth)
      tooDeep = true;
    return !tooDeep;
  };
  try {
    json event = json::parse(line, callback);
    if (tooDeep) {
      error = "nested deeper than " + std::to_string(maxDepth) + " levels";
      return std::nullopt;
    }
    return event;
  } catch (const json::exception& e) {
    error = tooDeep ? "nested deeper than " + std::to_string(maxDepth) + " levels" : e.what();
    return std::nullopt;
  }
}

// A string field: "" when absent or null; an error when of another type.
std::string stringField(const json& event, const char* key, std::size_t lineNo) {
  auto it = event.find(key);
  if (it == event.end() || it->is_null()) return {};
  if (!it->is_string()) badLine(lineNo, "\"" + std::string(key) + "\" must be a string");
  return it->get<std::string>();
}

std::vector<std::string> stringsOf(const json& list) {
  std::vector<std::string> out;
  if (list.is_array())
    for (const auto& item : list)
      if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

}  // namespace

Trace readEventStream(std::istream& lines, const ReadLimits& limits) {
  Trace trace;
  std::vector<bool> closed;
  std::vector<std::string> parentIds;
  std::unordered_map<std::string, std::size_t> byId;
  double lastT = 0;
  bool sawHeader = false;
  bool sawExit = false;
  std::string terminateNote;
  std::string line;
  std::size_t lineNo = 0;
  std::string pendingError;  // a bad line is only an error if more lines follow it
  // The line object and its "inputs" or "meta" object around a span's values.
  const std::size_t maxDepth = limits.maxValueDepth + 2;

  while (std::getline(lines, line)) {
    ++lineNo;
    if (line.empty()) continue;
    if (!pendingError.empty()) throw std::runtime_error(pendingError);
    std::string error;
    std::optional<json> parsed = parseLine(line, maxDepth, error);
    if (!parsed) {
      pendingError = "xray event stream, line " + std::to_string(lineNo) + ": " + error;
      continue;
    }
    const json& event = *parsed;
    if (!event.is_object()) badLine(lineNo, "not an object");
    if (!sawHeader) {
      auto format = event.find("format");
      auto version = event.find("version");
      if (format == event.end() || *format != kEventFormat || version == event.end() || *version != kEventFormatVersion)
        throw std::runtime_error("not an xray event stream (expected a \"" + std::string(kEventFormat) +
                                 "\" version " + std::to_string(kEventFormatVersion) + " header)");
      if (auto start = event.find("start_unix_ms"); start != event.end() && start->is_number_integer())
        trace.startUnixMs = start->get<std::int64_t>();
      sawHeader = true;
      continue;
    }
    std::string ev = stringField(event, "ev", lineNo);
    double t = 0;
    if (auto it = event.find("t"); it != event.end()) {
      if (!it->is_number()) badLine(lineNo, "\"t\" must be a number");
      t = it->get<double>();
    }
    lastT = std::max(lastT, t);
    if (ev == "B") {
      std::string id = stringField(event, "id", lineNo);
      if (id.empty()) badLine(lineNo, "span without id");
      TraceNode& n = trace.nodes.emplace_back();
      n.id = id;
      n.name = stringField(event, "name", lineNo);
      n.startMs = t;
      if (auto thread = event.find("thread"); thread != event.end() && thread->is_number_integer())
        n.thread = static_cast<int>(std::clamp<std::int64_t>(thread->get<std::int64_t>(), 0, INT32_MAX));
      n.setKind(stringField(event, "kind", lineNo));
      if (auto it = event.find("tags"); it != event.end()) n.setTags(stringsOf(*it));
      if (auto it = event.find("inputs"); it != event.end() && it->is_object())
        for (const auto& [name, value] : it->items())
          n.addInput(name, value.is_string() ? value.get<std::string>() : value.dump(-1, ' ', false, json::error_handler_t::replace));
      parentIds.push_back(stringField(event, "parent", lineNo));
      byId[id] = trace.nodes.size() - 1;
      closed.push_back(false);
    } else if (ev == "E") {
      auto it = byId.find(stringField(event, "id", lineNo));
      if (it == byId.end()) continue;  // its opening line was lost: nothing to attach it to
      auto& n = trace.nodes[it->second];
      n.latencyMs = std::max(0.0, t - n.startMs);
      closed[it->second] = true;
      if (auto o = event.find("output"); o != event.end() && o->is_string()) n.setOutput(o->get<std::string>());
      if (auto e = event.find("error"); e != event.end() && e->is_string()) n.setError(e->get<std::string>());
      if (auto m = event.find("meta"); m != event.end() && m->is_object() && !m->empty()) n.mutableMeta() = *m;
      if (auto tags = event.find("tags"); tags != event.end()) n.setTags(stringsOf(*tags));
    } else if (ev == "exit") {
      sawExit = true;
    } else if (ev == "terminate") {
      terminateNote = "terminated";
      if (auto e = event.find("error"); e != event.end() && e->is_string()) terminateNote += ": " + e->get<std::string>();
    }
  }
  if (!sawHeader) throw std::runtime_error("empty xray event stream");

  for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
    auto& n = trace.nodes[i];
    if (!closed[i]) {
      n.open = true;
      n.latencyMs = std::max(0.0, lastT - n.startMs);
    }
    // A parent whose opening line is not in the stream (the stream started inside it, or the
    // line was lost) leaves its child a root.
    if (!parentIds[i].empty())
      if (auto p = byId.find(parentIds[i]); p != byId.end() && p->second != i) n.parent = p->second;
  }
  detail::finishTrace(trace);
  detail::noteMisnestedSpans(trace);
  if (!terminateNote.empty()) trace.exitNote = terminateNote;
  else if (!sawExit) trace.exitNote = "no exit record: the process crashed, was killed or is still running";
  return trace;
}

}  // namespace nndna::xray
