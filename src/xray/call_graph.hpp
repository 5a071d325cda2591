// Internal: the folded call graph of a trace (calls with one name under one parent group become
// one box "×N"), shared by the DOT export and the HTML viewer.
#pragma once

#include <nlohmann/json.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>

#include <optional>
#include <string>
#include <vector>

namespace nndna::xray::detail {

struct CallGroup {
  std::string id;  // "g0", "g1", … (DOT node id and SVG element id)
  std::optional<std::size_t> parent;
  std::string name;
  std::string kind;                  // the first call's kind ("" when none)
  std::vector<std::size_t> members;  // indices into Trace::nodes
  std::size_t errors = 0;
  std::size_t open = 0;
  double totalMs = 0;
  double maxMs = 0;
  std::int64_t tokens = 0;
};

std::vector<CallGroup> groupCalls(const Trace& trace);
std::string callGraphDot(const Trace& trace, const std::vector<CallGroup>& groups,
                         const GraphOptions& options);
// The fill colour of boxes of a kind (llm, tool, agent, …; "" for spans without a kind). Status
// shows in the border: red error, amber slow, dashed purple unfinished.
std::string kindColor(std::string_view kind);
// "0.42 ms", "12.5 ms", "340 ms", "12.3 s".
std::string formatMs(double ms);
// Text for a double-quoted DOT string: backslashes and quotes escaped (so Graphviz's \N, \G
// escapes cannot be triggered by user text), control characters replaced by spaces.
std::string dotQuoted(std::string_view text);
// Shortens a name for a box label on a UTF-8 boundary, ending in "…".
std::string truncateLabel(const std::string& name);

}  // namespace nndna::xray::detail
