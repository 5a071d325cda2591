// Trace JSON ("nndna-xray-trace" v1): writing it (as a JSON value, or as text in one linear
// pass), and reading it back — nndna's and flow-xray's (0.2, 0.3.x) — from a JSON value or, for
// files, from a stream through nlohmann's SAX interface, without recursion and with the values
// inside a span bounded in depth (ReadLimits).
#include <algorithm>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "xray/recorder.hpp"
#include "xray/token_count.hpp"

namespace nndna::xray {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

struct Rollup {
  std::int64_t tokens = 0;
  double cost = 0;
};

// Subtree token and cost totals, children first (they follow their parents in a trace).
std::vector<Rollup> rollups(const Trace& trace) {
  std::vector<Rollup> out(trace.nodes.size());
  for (std::size_t i = trace.nodes.size(); i-- > 0;) {
    const auto& m = trace.nodes[i].meta();
    if (auto it = m.find("total_tokens"); it != m.end()) out[i].tokens = addTokens(out[i].tokens, tokenCount(*it));
    if (auto it = m.find("estimated_cost_usd"); it != m.end() && it->is_number()) out[i].cost += it->get<double>();
    if (auto p = trace.nodes[i].parent) {
      out[*p].tokens = addTokens(out[*p].tokens, out[i].tokens);
      out[*p].cost += out[i].cost;
    }
  }
  return out;
}

json inputsJson(const TraceNode& n) {
  json inputs = json::object();
  for (const auto& [name, text] : n.inputs()) inputs[name] = text;
  return inputs;
}

json optionalText(const std::optional<std::string>& text) { return text ? json(*text) : json(); }

json summaryJson(const Trace& trace) {
  TraceSummary s = summarize(trace);
  return {{"nodes", s.nodes},
          {"errors", s.errors},
          {"open", s.open},
          {"total_ms", s.totalMs},
          {"total_tokens", s.totalTokens},
          {"estimated_cost_usd", s.costUsd}};
}

// A node's fields other than its children, in the order the text writer prints them.
std::vector<std::pair<const char*, json>> nodeFields(const TraceNode& n, const Rollup& rollup) {
  std::vector<std::pair<const char*, json>> fields{
      {"id", n.id},
      {"name", n.name},
      {"inputs", inputsJson(n)},
      {"output", optionalText(n.output())},
      {"error", optionalText(n.error())},
      {"start_ms", n.startMs},
      {"latency_ms", n.latencyMs},
      {"meta", n.meta()},
      {"kind", n.kind().empty() ? json() : json(n.kind())},
      {"tags", n.tags()},
      {"open", n.open},
      {"thread", n.thread}};
  if (rollup.tokens != 0 || rollup.cost != 0)
    fields.emplace_back("rollup", json{{"total_tokens", rollup.tokens}, {"estimated_cost_usd", rollup.cost}});
  return fields;
}

std::vector<std::pair<const char*, json>> documentFields(const Trace& trace) {
  std::vector<std::pair<const char*, json>> fields{{"format", kTraceFormat},
                                                   {"version", kTraceFormatVersion},
                                                   {"title", trace.title},
                                                   {"summary", summaryJson(trace)}};
  if (trace.startUnixMs != 0) fields.emplace_back("start_unix_ms", trace.startUnixMs);
  if (!trace.warnings.empty()) fields.emplace_back("warnings", trace.warnings);
  if (!trace.exitNote.empty()) fields.emplace_back("exit_note", trace.exitNote);
  return fields;
}

std::string dumpValue(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

// Text in one pass. Pretty: the document's fields one per line, each node on one line with its
// fields, its children on the lines below, indented one step per level up to kMaxIndentLevels —
// so the size stays linear in the trace however deep the nesting.
class TextWriter {
 public:
  explicit TextWriter(bool pretty) : pretty_(pretty) {}
  std::string out;

  void open(char bracket) {
    out += bracket;
    ++level_;
  }
  void close(char bracket, bool onNewLine) {
    --level_;
    if (onNewLine) newline();
    out += bracket;
  }
  // A key: on its own line (`onNewLine`) or after the previous field of the same line.
  void key(const char* name, bool first, bool onNewLine) {
    if (!first) out += pretty_ && !onNewLine ? ", " : ",";
    if (onNewLine) newline();
    out += '"';
    out += name;
    out += pretty_ ? "\": " : "\":";
  }
  void element(bool first) {
    if (!first) out += ',';
    newline();
  }

 private:
  static constexpr int kMaxIndentLevels = 32;
  void newline() {
    if (!pretty_) return;
    out += '\n';
    out.append(static_cast<std::size_t>(std::min(level_, kMaxIndentLevels)) * 2, ' ');
  }
  bool pretty_;
  int level_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Reading: one field at a time, shared by the JSON-value reader and the streaming (SAX) reader
// ---------------------------------------------------------------------------------------------

[[noreturn]] void invalid(const std::string& where, const std::string& what) {
  throw std::runtime_error("invalid xray trace JSON at " + where + ": " + what);
}

// `where()` makes the JSON path of the node or document: called only for an error.
template <class Where>
void checkDepth(const json& value, const ReadLimits& limits, const Where& where, std::string_view key) {
  if (value.is_structured() && detail::jsonDepth(value) > limits.maxValueDepth)
    invalid(where(), "\"" + std::string(key) + "\" is nested deeper than " + std::to_string(limits.maxValueDepth) +
                       " levels");
}

std::string textOf(const json& value) { return value.is_string() ? value.get<std::string>() : dumpValue(value); }

enum NodeField : unsigned { kId = 1, kName = 2, kStart = 4, kLatency = 8 };

// Applies one key of a node object; returns the NodeField it provides (0 for the others).
template <class Where>
unsigned applyNodeField(TraceNode& n, std::string_view key, const json& v, const Where& where) {
  if (key == "id") {
    // flow-xray and hand-made files sometimes number their ids.
    if (v.is_string()) n.id = v.get<std::string>();
    else if (v.is_number_integer()) n.id = v.dump();
    else invalid(where(), "\"id\" must be a string");
    return kId;
  }
  if (key == "name") {
    if (!v.is_string()) invalid(where(), "\"name\" must be a string");
    n.name = v.get<std::string>();
    return kName;
  }
  if (key == "start_ms" || key == "latency_ms") {
    if (!v.is_number()) invalid(where(), "\"" + std::string(key) + "\" must be a number");
    (key == "start_ms" ? n.startMs : n.latencyMs) = v.get<double>();
    return key == "start_ms" ? kStart : kLatency;
  }
  if (key == "inputs") {
    if (v.is_null()) return 0;
    if (!v.is_object()) invalid(where(), "\"inputs\" must be an object");
    for (const auto& [name, value] : v.items()) n.addInput(name, textOf(value));
  } else if (key == "output" || key == "error") {
    if (v.is_null()) return 0;
    if (!v.is_string()) invalid(where(), "\"" + std::string(key) + "\" must be a string or null");
    if (key == "output") n.setOutput(v.get<std::string>());
    else n.setError(v.get<std::string>());
  } else if (key == "kind") {
    if (v.is_null()) return 0;
    if (!v.is_string()) invalid(where(), "\"kind\" must be a string or null");
    n.setKind(v.get<std::string>());
  } else if (key == "meta") {
    if (v.is_null()) return 0;
    if (!v.is_object()) invalid(where(), "\"meta\" must be an object");
    if (!v.empty()) n.mutableMeta() = v;
  } else if (key == "tags") {
    // nndna and flow-xray 0.2: a list of strings; flow-xray 0.3: an object whose keys are labels
    // (value true) or names with a value ("env": "prod" becomes the tag "env=prod").
    std::vector<std::string> tags;
    if (v.is_array()) {
      for (const auto& t : v) {
        if (!t.is_string()) invalid(where(), "tags must be strings");
        tags.push_back(t.get<std::string>());
      }
    } else if (v.is_object()) {
      for (const auto& [label, value] : v.items())
        tags.push_back(value == true ? label : label + "=" + textOf(value));
    } else if (!v.is_null()) {
      invalid(where(), "\"tags\" must be an array or an object");
    }
    n.setTags(std::move(tags));
  } else if (key == "open") {
    if (v.is_null()) return 0;
    if (!v.is_boolean()) invalid(where(), "\"open\" must be a boolean");
    n.open = v.get<bool>();
  } else if (key == "thread") {
    // A thread number past int's range (a hand-edited file) is not read rather than wrapped.
    constexpr std::int64_t kLow = std::numeric_limits<int>::min(), kHigh = std::numeric_limits<int>::max();
    if (v.is_number_unsigned()) {
      if (v.get<std::uint64_t>() <= static_cast<std::uint64_t>(kHigh)) n.thread = static_cast<int>(v.get<std::uint64_t>());
    } else if (v.is_number_integer()) {
      const std::int64_t t = v.get<std::int64_t>();
      if (t >= kLow && t <= kHigh) n.thread = static_cast<int>(t);
    }
  }
  // Anything else (rollup, fields of newer versions) is not read.
  return 0;
}

template <class Where>
void checkNode(unsigned seen, const Where& where) {
  if (!(seen & kId)) invalid(where(), "\"id\" must be a string");
  if (!(seen & kName)) invalid(where(), "\"name\" must be a string");
  if (!(seen & kStart)) invalid(where(), "\"start_ms\" must be a number");
  if (!(seen & kLatency)) invalid(where(), "\"latency_ms\" must be a number");
}

struct DocumentState {
  std::optional<json> format;
  std::optional<json> version;
  bool sawNodes = false;
};

void applyDocumentField(Trace& trace, DocumentState& doc, std::string_view key, const json& v) {
  if (key == "format") doc.format = v;
  else if (key == "version") doc.version = v;
  else if (key == "title" && v.is_string()) trace.title = v.get<std::string>();
  else if (key == "exit_note" && v.is_string()) trace.exitNote = v.get<std::string>();
  else if (key == "start_unix_ms" && v.is_number_integer()) trace.startUnixMs = v.get<std::int64_t>();
  else if (key == "warnings" && v.is_array())
    for (const auto& w : v)
      if (w.is_string()) trace.warnings.push_back(w.get<std::string>());
}

void checkDocument(const DocumentState& doc) {
  if (doc.format) {
    if (*doc.format != kTraceFormat) invalid("$.format", "expected \"" + std::string(kTraceFormat) + "\"");
    if (!doc.version || !doc.version->is_number_integer() || *doc.version != kTraceFormatVersion)
      invalid("$.version", "expected " + std::to_string(kTraceFormatVersion));
  }
  if (!doc.sawNodes) invalid("$", "\"nodes\" must be an array");
}

// ---------------------------------------------------------------------------------------------
// The streaming reader: nlohmann's SAX events, an explicit stack of levels, values inside a span
// built as JSON (bounded in depth) and applied with the functions above.
// ---------------------------------------------------------------------------------------------

class TraceSax {
 public:
  TraceSax(Trace& trace, const ReadLimits& limits) : trace_(trace), limits_(limits) {}

  bool null() { return value(json()); }
  bool boolean(bool v) { return value(json(v)); }
  bool number_integer(json::number_integer_t v) { return value(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value(json(v)); }
  bool number_float(json::number_float_t v, const std::string&) { return value(json(v)); }
  bool string(std::string& v) { return value(json(std::move(v))); }
  bool binary(json::binary_t&) { return value(json()); }

  bool start_object(std::size_t) {
    if (capturing()) return captureOpen(json::object());
    if (levels_.empty()) {
      levels_.push_back({Level::document, "$"});
      return true;
    }
    Level& top = levels_.back();
    if (top.kind == Level::nodeList) {
      std::size_t index = top.count++;
      std::optional<std::size_t> parent = top.parentNode;
      trace_.nodes.emplace_back().parent = parent;
      levels_.push_back({Level::nodeObject, "[" + std::to_string(index) + "]", trace_.nodes.size() - 1});
      return true;
    }
    return startCapture(json::object());
  }
  bool start_array(std::size_t) {
    if (capturing()) return captureOpen(json::array());
    if (levels_.empty()) invalid("$", "the document must be an object");
    Level& top = levels_.back();
    if (top.kind == Level::document && top.key == "nodes") {
      doc_.sawNodes = true;
      levels_.push_back({Level::nodeList, ".nodes"});
      return true;
    }
    if (top.kind == Level::nodeObject && top.key == "children") {
      levels_.push_back({Level::nodeList, ".children", 0, top.node});
      return true;
    }
    if (top.kind == Level::nodeList) invalid(path() + "[" + std::to_string(top.count) + "]", "a node must be an object");
    return startCapture(json::array());
  }
  bool key(std::string& k) {
    if (capturing()) {
      capture_.key = std::move(k);
      return true;
    }
    levels_.back().key = std::move(k);
    return true;
  }
  bool end_object() {
    if (capturing()) return captureClose();
    if (levels_.back().kind == Level::nodeObject) checkNode(levels_.back().seen, [this] { return path(); });
    levels_.pop_back();
    return true;
  }
  bool end_array() {
    if (capturing()) return captureClose();
    levels_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    throw std::runtime_error("invalid xray trace JSON at byte " + std::to_string(position) + ": " + e.what());
  }

  void finish() { checkDocument(doc_); }

 private:
  struct Level {
    enum Kind { document, nodeList, nodeObject } kind;
    std::string segment;                    // "$", ".nodes", "[3]", ".children"
    std::size_t node = 0;                   // nodeObject: its index in trace_.nodes
    std::optional<std::size_t> parentNode;  // nodeList: the node whose children it holds
    std::string key;                        // objects: the key whose value comes next
    std::size_t count = 0;                  // nodeList: elements so far
    unsigned seen = 0;                      // node: NodeField bits
  };
  // A value being built (metadata, inputs, a scalar field), bounded in depth.
  struct Capture {
    json root;
    std::vector<json*> open;  // containers not yet closed, innermost last
    std::string key;          // the key inside the innermost object
    bool active = false;
  };

  bool capturing() const { return capture_.active; }

  // The JSON path of the innermost level ("$.nodes[0].children[2]"), made only for an error.
  std::string path() const {
    std::string out;
    for (const Level& level : levels_) out += level.segment;
    return out;
  }

  // A scalar: a field's whole value, or part of a value being built.
  bool value(json&& v) {
    if (capturing()) {
      place(std::move(v));
      return true;
    }
    if (levels_.empty()) invalid("$", "the document must be an object");
    if (levels_.back().kind == Level::nodeList)
      invalid(path() + "[" + std::to_string(levels_.back().count) + "]", "a node must be an object");
    deliver(v);
    return true;
  }

  json* place(json&& v) {
    json* container = capture_.open.back();
    if (container->is_object()) return &((*container)[capture_.key] = std::move(v));
    container->push_back(std::move(v));
    return &container->back();
  }

  bool startCapture(json container) {
    if (levels_.empty()) invalid("$", "the document must be an object");
    capture_.root = std::move(container);
    capture_.open.assign(1, &capture_.root);
    capture_.active = true;
    checkCaptureDepth();
    return true;
  }
  bool captureOpen(json container) {
    capture_.open.push_back(place(std::move(container)));
    checkCaptureDepth();
    return true;
  }
  bool captureClose() {
    capture_.open.pop_back();
    if (capture_.open.empty()) {
      capture_.active = false;
      json done = std::move(capture_.root);
      deliver(done);
    }
    return true;
  }
  void checkCaptureDepth() {
    if (capture_.open.size() > limits_.maxValueDepth) {
      invalid(path(), "\"" + levels_.back().key + "\" is nested deeper than " + std::to_string(limits_.maxValueDepth) +
                          " levels");
    }
  }

  void deliver(const json& v) {
    Level& top = levels_.back();
    if (top.kind == Level::document) {
      if (top.key == "nodes") invalid("$", "\"nodes\" must be an array");
      applyDocumentField(trace_, doc_, top.key, v);
    } else if (top.kind == Level::nodeObject) {
      if (top.key == "children") {
        if (!v.is_null()) invalid(path(), "\"children\" must be an array");
        return;
      }
      top.seen |= applyNodeField(trace_.nodes[top.node], top.key, v, [this] { return path(); });
    }
  }

  Trace& trace_;
  const ReadLimits& limits_;
  std::vector<Level> levels_;
  Capture capture_;
  DocumentState doc_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------

json toJson(const Trace& trace) {
  const auto& nodes = trace.nodes;
  std::vector<Rollup> totals = rollups(trace);
  // Children come after their parent, so walking backwards builds every subtree before the node
  // that holds it.
  std::vector<json> built(nodes.size());
  for (std::size_t i = nodes.size(); i-- > 0;) {
    json j = json::object();
    for (auto& [key, value] : nodeFields(nodes[i], totals[i])) j[key] = std::move(value);
    json children = json::array();
    for (std::size_t c : nodes[i].children) children.push_back(std::move(built[c]));
    j["children"] = std::move(children);
    built[i] = std::move(j);
  }
  json roots = json::array();
  for (std::size_t r : trace.roots) roots.push_back(std::move(built[r]));
  json doc = json::object();
  for (auto& [key, value] : documentFields(trace)) doc[key] = std::move(value);
  doc["nodes"] = std::move(roots);
  return doc;
}

std::string toJsonText(const Trace& trace, bool pretty) {
  TextWriter w(pretty);
  w.out.reserve(256 + trace.nodes.size() * 256);
  std::vector<Rollup> totals = rollups(trace);
  auto writeFields = [&w](const std::vector<std::pair<const char*, json>>& fields, bool onNewLines) {
    bool first = true;
    for (const auto& [key, value] : fields) {
      w.key(key, first, onNewLines);
      first = false;
      w.out += dumpValue(value);
    }
  };
  w.open('{');
  writeFields(documentFields(trace), true);
  w.key("nodes", false, true);
  w.open('[');
  // A walk with an explicit stack: a frame per open node, with the next child to write.
  struct Frame {
    const std::vector<std::size_t>* list;
    std::size_t next;
  };
  std::vector<Frame> stack{{&trace.roots, 0}};
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.next == frame.list->size()) {
      bool empty = frame.list->empty();
      stack.pop_back();
      w.close(']', !empty);
      if (!stack.empty()) w.close('}', false);
      continue;
    }
    std::size_t i = (*frame.list)[frame.next];
    w.element(frame.next == 0);
    ++frame.next;
    w.open('{');
    writeFields(nodeFields(trace.nodes[i], totals[i]), false);
    w.key("children", false, false);
    w.open('[');
    stack.push_back({&trace.nodes[i].children, 0});
  }
  w.close('}', true);
  w.out += '\n';
  return std::move(w.out);
}

Trace traceFromJson(const json& document, const ReadLimits& limits) {
  if (!document.is_object()) invalid("$", "the document must be an object");
  Trace trace;
  DocumentState doc;
  auto documentPath = [] { return std::string("$"); };
  for (const auto& [key, value] : document.items()) {
    if (key == "nodes") continue;
    checkDepth(value, limits, documentPath, key);
    applyDocumentField(trace, doc, key, value);
  }
  auto roots = document.find("nodes");
  doc.sawNodes = roots != document.end() && roots->is_array();
  checkDocument(doc);

  // (node JSON, parent index, position among its siblings) — an explicit stack, no recursion.
  // Paths are made only for an error, from each node's parent and position.
  struct Pending {
    const json* node;
    std::optional<std::size_t> parent;
    std::size_t position;
  };
  std::vector<std::size_t> positions;
  auto where = [&](std::optional<std::size_t> parent, std::size_t position) {
    std::vector<std::size_t> chain{position};
    for (auto at = parent; at; at = trace.nodes[*at].parent) chain.push_back(positions[*at]);
    std::string out = "$.nodes";
    for (std::size_t k = chain.size(); k-- > 0;)
      out += "[" + std::to_string(chain[k]) + "]" + (k > 0 ? ".children" : "");
    return out;
  };
  std::vector<Pending> stack;
  for (std::size_t i = roots->size(); i-- > 0;) stack.push_back({&(*roots)[i], std::nullopt, i});
  while (!stack.empty()) {
    Pending p = stack.back();
    stack.pop_back();
    if (!p.node->is_object()) invalid(where(p.parent, p.position), "a node must be an object");
    std::size_t index = trace.nodes.size();
    TraceNode& n = trace.nodes.emplace_back();
    n.parent = p.parent;
    positions.push_back(p.position);
    auto path = [&] { return where(p.parent, p.position); };
    unsigned seen = 0;
    for (const auto& [key, value] : p.node->items()) {
      if (key == "children") continue;
      checkDepth(value, limits, path, key);
      seen |= applyNodeField(n, key, value, path);
    }
    checkNode(seen, path);
    if (auto it = p.node->find("children"); it != p.node->end() && !it->is_null() && !it->is_array())
      invalid(path(), "\"children\" must be an array");
    if (auto it = p.node->find("children"); it != p.node->end() && it->is_array())
      for (std::size_t i = it->size(); i-- > 0;) stack.push_back({&(*it)[i], index, i});
  }
  detail::finishTrace(trace);
  return trace;
}

Trace readTraceJson(std::istream& in, const ReadLimits& limits) {
  Trace trace;
  TraceSax sax(trace, limits);
  json::sax_parse(in, &sax);
  sax.finish();
  detail::finishTrace(trace);
  return trace;
}

Trace readTraceFile(const std::string& path, const ReadLimits& limits) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  // An event stream's first line is its header, a one-line JSON object naming the format.
  std::string firstLine;
  std::getline(in, firstLine);
  bool isEvents = firstLine.find(kEventFormat) != std::string::npos &&
                  detail::parseJsonBounded(firstLine, 2).value_or(json()).value("format", "") == kEventFormat;
  in.clear();
  in.seekg(0);
  try {
    return isEvents ? readEventStream(in, limits) : readTraceJson(in, limits);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace nndna::xray
