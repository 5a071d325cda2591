// A hand-built IR for the readers' tests: a training graph whose input x [4, 4] goes through
// `count` ops of one kind with the same attributes, each on the previous one, and the mean of
// the last as the loss. A long chain of small ops that each hold an attribute is the real IR
// dearest to hold per byte of its document (tests/core/ir_json_test, ir_cbor_test).
#pragma once

#include <utility>
#include <vector>

#include "nndna/ir.hpp"

namespace nndna::test {

inline ir::TracedModel chainOf(ir::OpKind kind, const ir::OpAttrs& attrs, int count) {
  ir::TracedModel model;
  model.spec.label = "chain";
  InputDecl x;
  x.name = "x";
  x.shape = {4, 4};
  model.spec.inputs.push_back(x);
  ir::Graph& g = model.train;
  auto add = [&](ir::OpKind k, std::vector<ir::TensorId> inputs, ir::OpAttrs a, Shape shape) {
    const auto id = static_cast<ir::TensorId>(g.tensors.size());
    g.tensors.push_back({.shape = std::move(shape), .source = id});
    g.ops.push_back({.kind = k, .inputs = std::move(inputs), .out = id, .attrs = std::move(a)});
    return id;
  };
  ir::TensorId t = add(ir::OpKind::tensor_input, {}, ir::OpAttrs{.name = "x"}, {4, 4});
  g.inputs.push_back({"x", t});
  for (int i = 0; i < count; ++i) t = add(kind, {t}, attrs, {4, 4});
  g.outputs = {add(ir::OpKind::mean, {t}, ir::OpAttrs{.allAxes = true}, {})};
  return model;
}

}  // namespace nndna::test
