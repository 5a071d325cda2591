// The backward stepper page: the graph is laid out once (with the final gradients, so every box
// is wide enough), and each backward step is stored as the few gradients it changed.
#include <fmt/format.h>

#include <unordered_map>

#include "render/svg_render.hpp"
#include "xray/html_util.hpp"
#include "xray/value_node.hpp"
#include "xray/viewer_assets.hpp"

namespace nndna::xray {

std::string GraphDebugger::stepperHtml(std::string_view title, bool startAtEnd, double seed) const {
  using nlohmann::json;
  using detail::ValueNode;
  ValueNode* rootNode = detail::ValueNodeAccess::node(root_).get();

  backwardFrom(root_, seed);
  std::string svg = render::renderInlineSvg(dotBackward());

  auto order = detail::topologicalNodes(rootNode);
  std::unordered_map<const ValueNode*, std::size_t> index;
  json nodes = json::array();
  for (std::size_t i = 0; i < order.size(); ++i) {
    index.emplace(order[i], i);
    nodes.push_back({{"id", detail::valueNodeId(*order[i])},
                     {"name", detail::valueDisplayName(*order[i])},
                     {"op", detail::valueOpName(*order[i])}});
  }
  // Replay the backward pass one node at a time, keeping only what each step changed.
  for (ValueNode* n : order) n->grad = 0;
  rootNode->grad = seed;
  json steps = json::array();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    ValueNode* n = *it;
    n->applyLocalBackward();
    json changes = json::array();
    for (std::uint8_t p = 0; p < n->parentCount; ++p) {
      if (p == 1 && n->parents[1] == n->parents[0]) break;
      changes.push_back({index.at(n->parents[p].get()), n->parents[p]->grad});
    }
    steps.push_back({{"node", index.at(n)}, {"changes", std::move(changes)}});
  }
  std::size_t stepCount = steps.size();
  json data{{"title", std::string(title)},
            {"nodes", std::move(nodes)},
            {"root", index.at(rootNode)},
            {"seed", seed},
            {"start", startAtEnd ? stepCount : 0},
            {"steps", std::move(steps)}};

  std::string t = detail::escapeHtml(title);
  std::string html;
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"generator\" content=\"nndna xray\">\n<title>";
  html += t;
  html += "</title>\n<style>";
  html += detail::stepperCss();
  html += "</style>\n</head>\n<body>\n<header><h1>";
  html += t;
  html += "</h1></header>\n<div id=\"controls\"><button id=\"prev\">\u25c0 Previous</button>"
          "<input id=\"slider\" type=\"range\" min=\"0\" value=\"0\" aria-label=\"step\">"
          "<button id=\"next\">Next \u25b6</button><span id=\"state\"></span></div>\n"
          "<div id=\"explain\"></div>\n<div id=\"graph\">";
  html += svg;
  html += "</div>\n<script type=\"application/json\" id=\"stepper-data\">";
  html += detail::jsonForScript(data);
  html += "</script>\n<script>";
  html += detail::stepperJs();
  html += "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace nndna::xray
