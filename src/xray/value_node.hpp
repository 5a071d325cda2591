// Internal: the node behind xray::Value, and the graph walks every Value algorithm uses.
#pragma once

#include <nlohmann/json.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_value.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nndna::xray::detail {

enum class ValueOp : std::uint8_t { Leaf, Add, Sub, Mul, Div, Neg, PowConst, Pow, Relu, Tanh, Exp, Log, Sigmoid };

struct ValueNode : std::enable_shared_from_this<ValueNode> {
  ValueNode(double d, std::string l, ValueOp o);
  // Unlinks chains of sole-owned parents iteratively: a naive shared_ptr chain of a million
  // nodes would recurse a million destructors deep.
  ~ValueNode();
  ValueNode(const ValueNode&) = delete;
  ValueNode& operator=(const ValueNode&) = delete;

  double data;
  double grad = 0;
  double exponent = 0;  // ValueOp::PowConst only
  std::uint64_t id;
  std::uint64_t visited = 0;  // walk epoch; see topologicalNodes
  ValueOp op;
  std::uint8_t parentCount = 0;
  std::string label;
  std::array<std::shared_ptr<ValueNode>, 2> parents;

  // Adds this node's contribution to its parents' grads (chain rule for one node).
  void applyLocalBackward();
};

// Every node reachable from root, parents before children, root last. Iterative DFS. Not safe
// to run concurrently on overlapping graphs (it marks nodes) — nor is anything else on a Value
// graph, whose grads are plain doubles.
std::vector<ValueNode*> topologicalNodes(ValueNode* root);

std::string valueOpName(const ValueNode& node);

// The bridge between Value's private node and the implementation files.
struct ValueNodeAccess {
  static const std::shared_ptr<ValueNode>& node(const Value& v) { return v.node_; }
  static Value wrap(std::shared_ptr<ValueNode> n) { return Value(std::move(n)); }
};
std::string valueNodeId(const ValueNode& node);
std::string valueDisplayName(const ValueNode& node);

}  // namespace nndna::xray::detail
