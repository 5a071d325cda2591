// Trace JSON ("nndna-xray-trace" v1): writing, and reading back with validation.
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "xray/recorder.hpp"

namespace nndna::xray {
namespace {

using nlohmann::json;

json optionalText(const std::optional<std::string>& text) { return text ? json(*text) : json(); }

struct Rollup {
  std::int64_t tokens = 0;
  double cost = 0;
};

json nodeJson(const TraceNode& n, const Rollup& rollup) {
  json inputs = json::object();
  for (const auto& [name, text] : n.inputs) inputs[name] = text;
  json j{{"id", n.id},
         {"name", n.name},
         {"inputs", std::move(inputs)},
         {"output", optionalText(n.output)},
         {"error", optionalText(n.error)},
         {"start_ms", n.startMs},
         {"latency_ms", n.latencyMs},
         {"children", json::array()},
         {"meta", n.meta.is_object() ? n.meta : json::object()},
         {"kind", n.kind.empty() ? json() : json(n.kind)},
         {"tags", n.tags},
         {"open", n.open},
         {"thread", n.thread}};
  if (rollup.tokens != 0 || rollup.cost != 0)
    j["rollup"] = {{"total_tokens", rollup.tokens}, {"estimated_cost_usd", rollup.cost}};
  return j;
}

[[noreturn]] void invalid(const std::string& where, const std::string& what) {
  throw std::runtime_error("invalid xray trace JSON at " + where + ": " + what);
}

std::string requireString(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) invalid(where, std::string("\"") + key + "\" must be a string");
  return it->get<std::string>();
}

double requireNumber(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) invalid(where, std::string("\"") + key + "\" must be a number");
  return it->get<double>();
}

std::optional<std::string> optionalString(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) invalid(where, std::string("\"") + key + "\" must be a string or null");
  return it->get<std::string>();
}

TraceNode nodeFromJson(const json& j, const std::string& where) {
  if (!j.is_object()) invalid(where, "a node must be an object");
  TraceNode n;
  n.id = requireString(j, "id", where);
  n.name = requireString(j, "name", where);
  n.startMs = requireNumber(j, "start_ms", where);
  n.latencyMs = requireNumber(j, "latency_ms", where);
  if (auto it = j.find("inputs"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) invalid(where, "\"inputs\" must be an object");
    for (const auto& [name, value] : it->items())
      n.inputs.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
  }
  n.output = optionalString(j, "output", where);
  n.error = optionalString(j, "error", where);
  n.kind = optionalString(j, "kind", where).value_or("");
  if (auto it = j.find("meta"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) invalid(where, "\"meta\" must be an object");
    n.meta = *it;
  }
  if (auto it = j.find("tags"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) invalid(where, "\"tags\" must be an array");
    for (const auto& t : *it) {
      if (!t.is_string()) invalid(where, "tags must be strings");
      n.tags.push_back(t.get<std::string>());
    }
  }
  if (auto it = j.find("open"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) invalid(where, "\"open\" must be a boolean");
    n.open = it->get<bool>();
  }
  if (auto it = j.find("thread"); it != j.end() && it->is_number_integer()) n.thread = it->get<int>();
  return n;
}

}  // namespace

json toJson(const Trace& trace) {
  const auto& nodes = trace.nodes;
  // Children come after their parent, so walking backwards builds every subtree (and its token
  // and cost rollup) before the node that holds it.
  std::vector<Rollup> rollups(nodes.size());
  for (std::size_t i = nodes.size(); i-- > 0;) {
    const auto& m = nodes[i].meta;
    if (auto it = m.find("total_tokens"); it != m.end() && it->is_number())
      rollups[i].tokens += it->get<std::int64_t>();
    if (auto it = m.find("estimated_cost_usd"); it != m.end() && it->is_number())
      rollups[i].cost += it->get<double>();
    if (nodes[i].parent) {
      rollups[*nodes[i].parent].tokens += rollups[i].tokens;
      rollups[*nodes[i].parent].cost += rollups[i].cost;
    }
  }
  std::vector<json> built(nodes.size());
  for (std::size_t i = nodes.size(); i-- > 0;) {
    json j = nodeJson(nodes[i], rollups[i]);
    auto& children = j["children"];
    for (std::size_t c : nodes[i].children) children.push_back(std::move(built[c]));
    built[i] = std::move(j);
  }
  json roots = json::array();
  for (std::size_t r : trace.roots) roots.push_back(std::move(built[r]));
  TraceSummary s = summarize(trace);
  json doc{{"format", kTraceFormat},
           {"version", kTraceFormatVersion},
           {"title", trace.title},
           {"summary",
            {{"nodes", s.nodes},
             {"errors", s.errors},
             {"open", s.open},
             {"total_ms", s.totalMs},
             {"total_tokens", s.totalTokens},
             {"estimated_cost_usd", s.costUsd}}},
           {"nodes", std::move(roots)}};
  if (!trace.exitNote.empty()) doc["exit_note"] = trace.exitNote;
  return doc;
}

Trace traceFromJson(const json& doc) {
  if (!doc.is_object()) invalid("$", "the document must be an object");
  if (auto it = doc.find("format"); it != doc.end()) {
    if (*it != kTraceFormat) invalid("$.format", "expected \"" + std::string(kTraceFormat) + "\"");
    auto version = doc.find("version");
    if (version == doc.end() || !version->is_number_integer() || *version != kTraceFormatVersion)
      invalid("$.version", "expected " + std::to_string(kTraceFormatVersion));
  }
  auto roots = doc.find("nodes");
  if (roots == doc.end() || !roots->is_array()) invalid("$", "\"nodes\" must be an array");

  std::vector<detail::FlatSpan> flat;
  // (node JSON, parent id, path) — explicit stack, no recursion.
  struct Pending {
    const json* node;
    std::string parentId;
    std::string where;
  };
  std::vector<Pending> stack;
  for (std::size_t i = roots->size(); i-- > 0;)
    stack.push_back({&(*roots)[i], "", "$.nodes[" + std::to_string(i) + "]"});
  while (!stack.empty()) {
    Pending p = std::move(stack.back());
    stack.pop_back();
    detail::FlatSpan span{nodeFromJson(*p.node, p.where), p.parentId};
    if (auto it = p.node->find("children"); it != p.node->end() && !it->is_null()) {
      if (!it->is_array()) invalid(p.where, "\"children\" must be an array");
      for (std::size_t i = it->size(); i-- > 0;)
        stack.push_back({&(*it)[i], span.node.id, p.where + ".children[" + std::to_string(i) + "]"});
    }
    flat.push_back(std::move(span));
  }
  Trace trace = detail::assembleTrace(std::move(flat));
  if (auto it = doc.find("title"); it != doc.end() && it->is_string()) trace.title = *it;
  if (auto it = doc.find("exit_note"); it != doc.end() && it->is_string()) trace.exitNote = *it;
  return trace;
}

Trace readTraceFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string firstLine;
  std::getline(in, firstLine);
  bool isEvents = false;
  try {
    auto header = json::parse(firstLine);
    isEvents = header.is_object() && header.value("format", "") == kEventFormat;
  } catch (const json::exception&) {
    // Not a one-line JSON value: an indented trace document.
  }
  in.clear();
  in.seekg(0);
  if (isEvents) return readEventStream(in);
  std::stringstream text;
  text << in.rdbuf();
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": not trace JSON or an xray event stream: " + e.what());
  }
  return traceFromJson(doc);
}

}  // namespace nndna::xray
