// nndna xray's Value: a scalar reverse-mode autodiff engine whose backward pass can be stepped
// through node by node and drawn (DOT, IR JSON, an interactive stepper page). See docs/xray.md.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nndna/export.hpp"

namespace nndna::xray {

// ============================================================================================
// Value: scalar reverse-mode autodiff
// ============================================================================================

namespace detail {
struct ValueNode;
struct ValueNodeAccess;
}

struct BackwardOptions {
  double seed = 1.0;
  // false: every grad is zeroed first; true: grads add to what they hold (flow-xray's
  // zero_first=False, micrograd style), the root's grad is set to the seed.
  bool accumulate = false;
};

class Value;
NNDNA_API Value operator+(const Value& a, const Value& b);
NNDNA_API Value operator-(const Value& a, const Value& b);
NNDNA_API Value operator*(const Value& a, const Value& b);
NNDNA_API Value operator/(const Value& a, const Value& b);
NNDNA_API Value operator-(const Value& a);
NNDNA_API Value pow(const Value& base, double exponent);
NNDNA_API Value pow(const Value& base, const Value& exponent);

// A scalar in a computation graph. Copies share the node (like a Python reference). Every
// algorithm over the graph is iterative, and destruction unlinks chains without recursion, so a
// graph of millions of nodes builds, differentiates and dies without deep stacks.
class NNDNA_API Value {
 public:
  Value(double data = 0.0, std::string label = {});  // NOLINT: implicit from numbers on purpose

  double data() const noexcept;
  double grad() const noexcept;
  void setData(double data) noexcept;
  void setGrad(double grad) noexcept;
  const std::string& label() const noexcept;
  void setLabel(std::string label);
  // "" for leaves; "+", "-", "*", "/", "neg", "**k", "pow", "relu", "tanh", "exp", "log", "sigmoid".
  std::string op() const;
  // Stable for the node's lifetime and unique in the process ("v17").
  std::string id() const;
  std::uint64_t numericId() const noexcept;
  std::vector<Value> parents() const;
  // The label, else the id (as flow-xray shows unlabelled nodes).
  std::string displayName() const;

  // Sets every grad in the graph to zero, seeds this node's grad, and applies each node's local
  // backward rule in reverse topological order.
  void backward(double seed = 1.0);
  void backward(const BackwardOptions& options);

  Value relu() const;
  Value tanh() const;
  Value exp() const;
  Value log() const;
  Value sigmoid() const;

  friend Value operator+(const Value& a, const Value& b);
  friend Value operator-(const Value& a, const Value& b);
  friend Value operator*(const Value& a, const Value& b);
  friend Value operator/(const Value& a, const Value& b);
  friend Value operator-(const Value& a);
  friend Value pow(const Value& base, double exponent);
  friend Value pow(const Value& base, const Value& exponent);

  bool sameNode(const Value& other) const noexcept { return node_ == other.node_; }
  // Applies only this node's local rule (adds to its parents' grads). Used by the stepper.
  void applyLocalBackward() const;

 private:
  explicit Value(std::shared_ptr<detail::ValueNode> node) : node_(std::move(node)) {}
  friend struct detail::ValueNodeAccess;
  std::shared_ptr<detail::ValueNode> node_;
};

inline Value operator+(double a, const Value& b) { return Value(a) + b; }
inline Value operator-(double a, const Value& b) { return Value(a) - b; }
inline Value operator*(double a, const Value& b) { return Value(a) * b; }
inline Value operator/(double a, const Value& b) { return Value(a) / b; }
inline Value operator+(const Value& a, double b) { return a + Value(b); }
inline Value operator-(const Value& a, double b) { return a - Value(b); }
inline Value operator*(const Value& a, double b) { return a * Value(b); }
inline Value operator/(const Value& a, double b) { return a / Value(b); }
NNDNA_API Value relu(const Value& v);
NNDNA_API Value tanh(const Value& v);
NNDNA_API Value exp(const Value& v);
NNDNA_API Value log(const Value& v);
NNDNA_API Value sigmoid(const Value& v);

// Every node reachable from root, each after all of its parents (root last). Iterative.
NNDNA_API std::vector<Value> topologicalOrder(const Value& root);
NNDNA_API void zeroGrad(const Value& root);
NNDNA_API void backwardFrom(const Value& root, double seed = 1.0);
NNDNA_API void backwardFrom(const Value& root, const BackwardOptions& options);

// DOT of the graph (rankdir BT, one box per node: name, op, data[, grad]).
NNDNA_API std::string valueGraphToDot(const Value& root, bool showGrad);
// IR JSON version 1: {version, root_id, nodes[{id, op, label, data, grad?, parents}]}.
NNDNA_API nlohmann::json valueGraphToIr(const Value& root, bool includeGrad = true);

// --- Backward debugger ------------------------------------------------------------------------

// Per-node backward: zeroes the graph, seeds the root, then each step() applies one node's local
// rule in reverse topological order and returns that node.
class NNDNA_API BackwardStepper {
 public:
  explicit BackwardStepper(const Value& root, double seed = 1.0);
  std::optional<Value> step();
  std::size_t size() const noexcept { return order_.size(); }
  std::size_t done() const noexcept { return next_; }

 private:
  std::vector<Value> order_;  // reverse topological order
  std::size_t next_ = 0;
};

struct Snapshot {
  std::string name;  // forward, backward_step_0 … backward_step_{n-1}, after_backward
  std::string dot;
};

class NNDNA_API GraphDebugger {
 public:
  explicit GraphDebugger(Value root) : root_(std::move(root)) {}
  std::string dotForward() const { return valueGraphToDot(root_, false); }
  std::string dotBackward() const { return valueGraphToDot(root_, true); }
  nlohmann::json irForward() const;
  nlohmann::json irBackward() const;
  // Runs backward on the root (mutating grads) and returns the snapshots in order.
  std::vector<Snapshot> namedSnapshots(double seed = 1.0, bool includeStepDots = true) const;
  // The interactive stepper page: one Graphviz layout, the gradients of every step stored as
  // deltas, next / previous / slider; the page title names the step shown. `startAtEnd` opens it
  // after the backward pass.
  std::string stepperHtml(std::string_view title, bool startAtEnd = false, double seed = 1.0) const;

 private:
  Value root_;
};

}  // namespace nndna::xray
