// Appends ops to a graph outside tracing (autodiff, optimizer lowering). Every op gets its output
// type from its kind's one shape rule (src/ir/shape_rules), the same rule the tracer and the JSON
// reader apply, and takes the emitter's current phase and site. A broken rule here is a bug in
// a gradient or optimizer rule (or an input graph that was not valid): it is reported with the
// spec line of the forward op being differentiated.
#pragma once

#include <vector>

#include "ir/attrs_interner.hpp"
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

  // Appends one op of `kind` over `inputs` with `attrs`; returns its output tensor.
  ir::TensorId emit(ir::OpKind kind, std::vector<ir::TensorId> inputs, ir::OpAttrs attrs = {});
  // A leaf (tensor_input / state_input) of `shape`, f32, with no site.
  ir::TensorId leaf(ir::OpKind kind, std::string name, Shape shape);

  // Conveniences over emit() for the forward kinds autodiff reuses.
  ir::TensorId unary(ir::OpKind kind, ir::TensorId x) { return emit(kind, {x}); }
  ir::TensorId binary(ir::OpKind kind, ir::TensorId a, ir::TensorId b) { return emit(kind, {a, b}); }
  ir::TensorId scalar(ir::OpKind kind, ir::TensorId a, double value, bool scalarLeft = false);
  ir::TensorId reshape(ir::TensorId x, Shape shape);  // returns x when the shape is equal
  ir::TensorId permute(ir::TensorId x, std::vector<std::int64_t> axes);
  ir::TensorId swapLastTwo(ir::TensorId x);
  ir::TensorId narrow(ir::TensorId x, std::int64_t axis, std::int64_t start, std::int64_t length);
  ir::TensorId ones(Shape shape);
  // Internal layout kinds; both return x unchanged when the shapes are equal.
  ir::TensorId broadcastTo(ir::TensorId x, Shape shape);
  ir::TensorId sumToShape(ir::TensorId x, Shape shape);

 private:
  ir::Graph& graph_;
  ir::Phase phase_;
  ir::SiteId site_ = ir::kNone;
  ir::OpAttrsInterner attrs_;  // a loop's gradient `mul(g, 0.5)`s hold one block
};

}  // namespace nndna::grad
