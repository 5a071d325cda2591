// Axis names on a traced graph, for tests and fuzz seeds, until specs declare named dims: names
// set on leaves and attributes, then every other tensor's computed by its op's shape rule in
// trace order (what the tracer does as it records).
#pragma once

#include <string>
#include <vector>

#include "ir/dim_names.hpp"
#include "ir/shape_rules.hpp"
#include "nndna/ir.hpp"

namespace nndna::test {

// Recomputes every non-leaf tensor's names by its op's rule, in order.
inline void propagateNames(ir::Graph& g) {
  std::vector<const ir::TensorInfo*> inputs;
  for (const ir::Op& op : g.ops) {
    if (ir::isLeafKind(op.kind)) continue;
    inputs.clear();
    for (ir::TensorId t : op.inputs) inputs.push_back(&g.tensor(t));
    g.tensors[static_cast<std::size_t>(op.out)].names = ir::inferOutput(op.kind, op.attrs, inputs).names;
  }
}

// "S64": a name for a size, so that axes of equal size share one.
inline std::string sizeName(std::int64_t size) { return "S" + std::to_string(size); }

// Names every axis of every leaf, and the sizes of the kinds that take names, after its size
// (sizeName; size-1 axes stay unknown), then propagates them.
inline void nameBySize(ir::Graph& g) {
  auto named = [](const std::vector<std::int64_t>& sizes) {
    ir::DimNames names;
    for (std::int64_t s : sizes) names.push_back(s == 1 ? "" : sizeName(s));
    return ir::normalizedDimNames(std::move(names));
  };
  for (ir::Op& op : g.ops) {
    switch (op.kind) {
      case ir::OpKind::param_input: case ir::OpKind::tensor_input: case ir::OpKind::state_input:
        g.tensors[static_cast<std::size_t>(op.out)].names = named(g.tensor(op.out).shape);
        break;
      case ir::OpKind::zeros: case ir::OpKind::ones: case ir::OpKind::randn: case ir::OpKind::broadcast_to:
        op.attrs.edit().names = named(op.attrs->dims);
        break;
      case ir::OpKind::split_heads: case ir::OpKind::one_hot: case ir::OpKind::arange:
      case ir::OpKind::narrow: case ir::OpKind::topk:
        op.attrs.edit().names = {sizeName(op.attrs->count)};
        break;
      default:
        break;
    }
  }
  propagateNames(g);
}

}  // namespace nndna::test
