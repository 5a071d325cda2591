// xray::Value: scalar reverse-mode autodiff on graph nodes owned by shared_ptr, with iterative
// walks and teardown.
#include <fmt/format.h>

#include <atomic>
#include <cmath>

#include "xray/value_node.hpp"

namespace nndna::xray {
namespace detail {
namespace {
std::atomic<std::uint64_t> g_nextValueId{1};
std::atomic<std::uint64_t> g_walkEpoch{0};

bool soleOwner(const std::shared_ptr<ValueNode>& p) { return p && p.use_count() == 1; }
}  // namespace

ValueNode::ValueNode(double d, std::string l, ValueOp o)
    : data(d), id(g_nextValueId.fetch_add(1, std::memory_order_relaxed)), op(o), label(std::move(l)) {}

ValueNode::~ValueNode() {
  // Take over every parent this node is the last owner of, and theirs, and so on; each one then
  // dies with no sole-owned parents left, so no destructor recurses.
  auto dedupe = [](ValueNode& n) {
    if (n.parents[1] && n.parents[1] == n.parents[0]) n.parents[1].reset();
  };
  dedupe(*this);
  if (!soleOwner(parents[0]) && !soleOwner(parents[1])) return;
  std::vector<std::shared_ptr<ValueNode>> pending;
  for (auto& p : parents)
    if (soleOwner(p)) pending.push_back(std::move(p));
  while (!pending.empty()) {
    std::shared_ptr<ValueNode> node = std::move(pending.back());
    pending.pop_back();
    dedupe(*node);
    for (auto& p : node->parents)
      if (soleOwner(p)) pending.push_back(std::move(p));
  }
}

void ValueNode::applyLocalBackward() {
  ValueNode* a = parents[0].get();
  ValueNode* b = parents[1].get();
  const double g = grad;
  switch (op) {
    case ValueOp::Leaf: break;
    case ValueOp::Add: a->grad += g; b->grad += g; break;
    case ValueOp::Sub: a->grad += g; b->grad -= g; break;
    case ValueOp::Mul: {
      double ad = a->data, bd = b->data;  // read both first: a and b may be the same node
      a->grad += bd * g;
      b->grad += ad * g;
      break;
    }
    case ValueOp::Div: {
      double ad = a->data, bd = b->data;
      a->grad += g / bd;
      b->grad -= ad / (bd * bd) * g;
      break;
    }
    case ValueOp::Neg: a->grad -= g; break;
    case ValueOp::PowConst: a->grad += exponent * std::pow(a->data, exponent - 1) * g; break;
    case ValueOp::Pow: {
      double ad = a->data, bd = b->data;
      a->grad += bd * std::pow(ad, bd - 1) * g;
      // d(a^b)/db = a^b ln a, defined for a > 0 only.
      if (ad > 0) b->grad += data * std::log(ad) * g;
      break;
    }
    case ValueOp::Relu: a->grad += (data > 0 ? g : 0.0); break;
    case ValueOp::Tanh: a->grad += (1 - data * data) * g; break;
    case ValueOp::Exp: a->grad += data * g; break;
    case ValueOp::Log: a->grad += g / a->data; break;
    case ValueOp::Sigmoid: a->grad += data * (1 - data) * g; break;
  }
}

std::vector<ValueNode*> topologicalNodes(ValueNode* root) {
  const std::uint64_t epoch = g_walkEpoch.fetch_add(1, std::memory_order_relaxed) + 1;
  std::vector<ValueNode*> order;
  struct Frame {
    ValueNode* node;
    std::uint8_t next;
  };
  std::vector<Frame> stack;
  root->visited = epoch;
  stack.push_back({root, 0});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next < top.node->parentCount) {
      ValueNode* p = top.node->parents[top.next++].get();
      if (p->visited != epoch) {
        p->visited = epoch;
        stack.push_back({p, 0});
      }
    } else {
      order.push_back(top.node);
      stack.pop_back();
    }
  }
  return order;
}

std::string valueOpName(const ValueNode& n) {
  switch (n.op) {
    case ValueOp::Leaf: return "";
    case ValueOp::Add: return "+";
    case ValueOp::Sub: return "-";
    case ValueOp::Mul: return "*";
    case ValueOp::Div: return "/";
    case ValueOp::Neg: return "neg";
    case ValueOp::PowConst: return fmt::format("**{:g}", n.exponent);
    case ValueOp::Pow: return "pow";
    case ValueOp::Relu: return "relu";
    case ValueOp::Tanh: return "tanh";
    case ValueOp::Exp: return "exp";
    case ValueOp::Log: return "log";
    case ValueOp::Sigmoid: return "sigmoid";
  }
  return "?";
}

std::string valueNodeId(const ValueNode& n) { return "v" + std::to_string(n.id); }

std::string valueDisplayName(const ValueNode& n) { return n.label.empty() ? valueNodeId(n) : n.label; }

}  // namespace detail

using detail::ValueNode;
using detail::ValueOp;

namespace {
std::shared_ptr<ValueNode> makeNode(double data, ValueOp op, std::shared_ptr<ValueNode> a,
                                    std::shared_ptr<ValueNode> b = nullptr) {
  auto node = std::make_shared<ValueNode>(data, std::string(), op);
  node->parents[0] = std::move(a);
  node->parents[1] = std::move(b);
  node->parentCount = node->parents[1] ? 2 : 1;
  return node;
}
}  // namespace

using Access = detail::ValueNodeAccess;

Value::Value(double data, std::string label)
    : node_(std::make_shared<ValueNode>(data, std::move(label), ValueOp::Leaf)) {}

double Value::data() const noexcept { return node_->data; }
double Value::grad() const noexcept { return node_->grad; }
void Value::setData(double data) noexcept { node_->data = data; }
void Value::setGrad(double grad) noexcept { node_->grad = grad; }
const std::string& Value::label() const noexcept { return node_->label; }
void Value::setLabel(std::string label) { node_->label = std::move(label); }
std::string Value::op() const { return detail::valueOpName(*node_); }
std::string Value::id() const { return detail::valueNodeId(*node_); }
std::uint64_t Value::numericId() const noexcept { return node_->id; }
std::string Value::displayName() const { return detail::valueDisplayName(*node_); }

std::vector<Value> Value::parents() const {
  std::vector<Value> out;
  for (std::uint8_t i = 0; i < node_->parentCount; ++i) out.push_back(Value(node_->parents[i]));
  return out;
}

void Value::backward(double seed) { backwardFrom(*this, seed); }
void Value::backward(const BackwardOptions& options) { backwardFrom(*this, options); }
void Value::applyLocalBackward() const { node_->applyLocalBackward(); }

Value operator+(const Value& a, const Value& b) {
  return Value(makeNode(a.data() + b.data(), ValueOp::Add, a.node_, b.node_));
}
Value operator-(const Value& a, const Value& b) {
  return Value(makeNode(a.data() - b.data(), ValueOp::Sub, a.node_, b.node_));
}
Value operator*(const Value& a, const Value& b) {
  return Value(makeNode(a.data() * b.data(), ValueOp::Mul, a.node_, b.node_));
}
Value operator/(const Value& a, const Value& b) {
  return Value(makeNode(a.data() / b.data(), ValueOp::Div, a.node_, b.node_));
}
Value operator-(const Value& a) { return Value(makeNode(-a.data(), ValueOp::Neg, a.node_)); }
Value pow(const Value& base, double exponent) {
  auto node = makeNode(std::pow(base.data(), exponent), ValueOp::PowConst, base.node_);
  node->exponent = exponent;
  return Value(std::move(node));
}
Value pow(const Value& base, const Value& exponent) {
  return Value(makeNode(std::pow(base.data(), exponent.data()), ValueOp::Pow, base.node_, exponent.node_));
}

Value Value::relu() const { return Value(makeNode(data() > 0 ? data() : 0.0, ValueOp::Relu, node_)); }
Value Value::tanh() const { return Value(makeNode(std::tanh(data()), ValueOp::Tanh, node_)); }
Value Value::exp() const { return Value(makeNode(std::exp(data()), ValueOp::Exp, node_)); }
Value Value::log() const { return Value(makeNode(std::log(data()), ValueOp::Log, node_)); }
Value Value::sigmoid() const {
  return Value(makeNode(1.0 / (1.0 + std::exp(-data())), ValueOp::Sigmoid, node_));
}

Value relu(const Value& v) { return v.relu(); }
Value tanh(const Value& v) { return v.tanh(); }
Value exp(const Value& v) { return v.exp(); }
Value log(const Value& v) { return v.log(); }
Value sigmoid(const Value& v) { return v.sigmoid(); }

std::vector<Value> topologicalOrder(const Value& root) {
  std::vector<Value> out;
  const auto& rootNode = Access::node(root);
  auto nodes = detail::topologicalNodes(rootNode.get());
  out.reserve(nodes.size());
  for (ValueNode* n : nodes) out.push_back(Access::wrap(n->shared_from_this()));
  return out;
}

}  // namespace nndna::xray
