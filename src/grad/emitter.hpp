// Appends ops to a graph outside tracing (autodiff, optimizer lowering): each helper computes
// its output's shape and dtype (the shape rules of the internal kinds live here), and every op
// it appends takes the emitter's current phase and site.
#pragma once

#include <span>
#include <vector>

#include "nndna/ir.hpp"

namespace nndna::grad {

class Emitter {
 public:
  Emitter(ir::Graph& graph, ir::Phase phase) : graph_(graph), phase_(phase) {}

  ir::Graph& graph() { return graph_; }
  const Shape& shape(ir::TensorId t) const { return graph_.tensor(t).shape; }
  // Ops appended from now on point at this call site (the forward op they come from).
  void setSite(ir::SiteId site) { site_ = site; }
  void setPhase(ir::Phase phase) { phase_ = phase; }

  // Appends one op producing a tensor of `shape` and `dtype`; returns the tensor.
  ir::TensorId emit(ir::OpKind kind, std::vector<ir::TensorId> inputs, ir::OpAttrs attrs,
                    Shape shape, DType dtype = DType::f32);
  // A leaf (tensor_input / state_input) with no site.
  ir::TensorId leaf(ir::OpKind kind, std::string name, Shape shape);

  // Forward kinds, with the tracer's shape rules (inputs are known to be valid).
  ir::TensorId unary(ir::OpKind kind, ir::TensorId x);  // same shape
  ir::TensorId unary(ir::OpKind kind, ir::TensorId x, ir::OpAttrs attrs);
  ir::TensorId binary(ir::OpKind kind, ir::TensorId a, ir::TensorId b);  // broadcasting
  ir::TensorId scalar(ir::OpKind kind, ir::TensorId a, double value, bool scalarLeft = false);
  ir::TensorId reshape(ir::TensorId x, Shape shape);  // returns x when the shape is equal
  ir::TensorId permute(ir::TensorId x, std::vector<std::int64_t> axes);
  ir::TensorId swapLastTwo(ir::TensorId x);
  ir::TensorId matmul(ir::TensorId a, ir::TensorId b);
  ir::TensorId narrow(ir::TensorId x, std::int64_t axis, std::int64_t start, std::int64_t length);
  ir::TensorId ones(Shape shape);

  // Internal layout kinds; both return x unchanged when the shapes are equal.
  ir::TensorId broadcastTo(ir::TensorId x, Shape shape);
  ir::TensorId sumToShape(ir::TensorId x, Shape shape);
  // An internal kind whose output has `shape` (given by the caller from the kind's rule in
  // docs/ir.md, which is also why it lives next to the call).
  ir::TensorId internal(ir::OpKind kind, std::vector<ir::TensorId> inputs, ir::OpAttrs attrs,
                        Shape shape) {
    return emit(kind, std::move(inputs), std::move(attrs), std::move(shape));
  }

 private:
  const Shape& dimsOf(ir::TensorId t) const { return graph_.tensor(t).shape; }

  ir::Graph& graph_;
  ir::Phase phase_;
  ir::SiteId site_ = ir::kNone;
};

// NumPy broadcasting of two shapes known to be compatible.
Shape broadcastShapes(const Shape& a, const Shape& b);

}  // namespace nndna::grad
