// Value graph exports: zero_grad / backward_from, DOT and IR JSON v1, the backward stepper.
#include <fmt/format.h>

#include <algorithm>

#include "xray/call_graph.hpp"
#include "xray/value_node.hpp"

namespace nndna::xray {

using detail::ValueNode;
using Access = detail::ValueNodeAccess;

void zeroGrad(const Value& root) {
  for (ValueNode* n : detail::topologicalNodes(Access::node(root).get())) n->grad = 0;
}

void backwardFrom(const Value& root, const BackwardOptions& options) {
  auto order = detail::topologicalNodes(Access::node(root).get());
  if (!options.accumulate)
    for (ValueNode* n : order) n->grad = 0;
  Access::node(root)->grad = options.seed;
  for (auto it = order.rbegin(); it != order.rend(); ++it) (*it)->applyLocalBackward();
}

void backwardFrom(const Value& root, double seed) { backwardFrom(root, BackwardOptions{.seed = seed}); }

nlohmann::json GraphDebugger::irForward() const { return valueGraphToIr(root_, false); }
nlohmann::json GraphDebugger::irBackward() const { return valueGraphToIr(root_, true); }

std::string valueGraphToDot(const Value& root, bool showGrad) {
  auto order = detail::topologicalNodes(Access::node(root).get());
  std::string dot =
      "digraph G {\n"
      "  rankdir=\"BT\";\n"
      "  node [shape=box, fontname=Helvetica];\n"
      "  edge [fontname=Helvetica, fontsize=10];\n";
  for (ValueNode* n : order) {
    std::string id = detail::valueNodeId(*n);
    std::string label = detail::dotQuoted(detail::valueDisplayName(*n));
    if (n->op != detail::ValueOp::Leaf) label += "\\nop: " + detail::dotQuoted(detail::valueOpName(*n));
    label += fmt::format("\\ndata: {:g}", n->data);
    if (showGrad) label += fmt::format("\\ngrad: {:g}", n->grad);
    dot += fmt::format("  {} [id=\"{}\", label=\"{}\"];\n", id, id, label);
  }
  for (ValueNode* n : order)
    for (std::uint8_t i = 0; i < n->parentCount; ++i)
      dot += fmt::format("  {} -> {} [label=\"{}\"];\n", detail::valueNodeId(*n->parents[i]),
                         detail::valueNodeId(*n), detail::dotQuoted(detail::valueOpName(*n)));
  dot += "}\n";
  return dot;
}

nlohmann::json valueGraphToIr(const Value& root, bool includeGrad) {
  using nlohmann::json;
  const auto& rootNode = Access::node(root);
  json nodes = json::array();
  for (ValueNode* n : detail::topologicalNodes(rootNode.get())) {
    json parents = json::array();
    for (std::uint8_t i = 0; i < n->parentCount; ++i) parents.push_back(detail::valueNodeId(*n->parents[i]));
    json entry{{"id", detail::valueNodeId(*n)},
               {"op", detail::valueOpName(*n)},
               {"label", n->label},
               {"data", n->data},
               {"parents", std::move(parents)}};
    if (includeGrad) entry["grad"] = n->grad;
    nodes.push_back(std::move(entry));
  }
  return {{"version", 1}, {"root_id", detail::valueNodeId(*rootNode)}, {"nodes", std::move(nodes)}};
}

BackwardStepper::BackwardStepper(const Value& root, double seed) {
  order_ = topologicalOrder(root);
  std::reverse(order_.begin(), order_.end());
  for (auto& v : order_) v.setGrad(0);
  if (!order_.empty()) order_.front().setGrad(seed);
}

std::optional<Value> BackwardStepper::step() {
  if (next_ >= order_.size()) return std::nullopt;
  const Value& v = order_[next_++];
  v.applyLocalBackward();
  return v;
}

std::vector<Snapshot> GraphDebugger::namedSnapshots(double seed, bool includeStepDots) const {
  std::vector<Snapshot> out;
  out.push_back({"forward", dotForward()});
  BackwardStepper stepper(root_, seed);
  std::size_t k = 0;
  while (stepper.step()) {
    if (includeStepDots) out.push_back({fmt::format("backward_step_{}", k), dotBackward()});
    ++k;
  }
  out.push_back({"after_backward", dotBackward()});
  return out;
}

}  // namespace nndna::xray
