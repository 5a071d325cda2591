// Helpers of the evaluator tests: trace a small function or a layer model, feed it, compare.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "nndna/eval.hpp"
#include "nndna/trace.hpp"

namespace nndna::eval::testing {

using Feeds = std::vector<std::pair<std::string, Value>>;
using Fn = std::function<Tensor(const Inputs&)>;

inline Value f32(Shape shape, std::vector<double> data) {
  return Value(std::move(shape), DType::f32, std::move(data));
}
inline Value i32(Shape shape, std::vector<double> data) {
  return Value(std::move(shape), DType::i32, std::move(data));
}

// Input declarations matching the fed values' shapes and dtypes.
inline std::vector<InputDecl> declsOf(const Feeds& feeds) {
  std::vector<InputDecl> decls;
  for (const auto& [name, value] : feeds) decls.emplace_back(name, value.shape, value.dtype);
  return decls;
}

inline Leaves leavesOf(const Feeds& feeds) {
  Leaves leaves;
  for (const auto& [name, value] : feeds) leaves.inputs[name] = value;
  return leaves;
}

// Traces `fn` over inputs shaped like `feeds` and evaluates its output on them.
inline Value run(const Feeds& feeds, const Fn& fn, std::uint64_t seed = 0) {
  const ir::Graph graph = traceFunction(declsOf(feeds), fn);
  return evaluate(graph, leavesOf(feeds), EvalOptions{seed}).at(graph.outputs.at(0));
}

// Exact shape and dtype, values within `tolerance` (an infinity exactly).
inline void expectValue(const Value& actual, const Shape& shape, DType dtype,
                        const std::vector<double>& expected, double tolerance = 1e-12) {
  ASSERT_EQ(actual.shape, shape);
  ASSERT_EQ(actual.dtype, dtype);
  ASSERT_EQ(actual.data.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (std::isinf(expected[i])) {
      EXPECT_EQ(actual.data[i], expected[i]) << "element " << i;
    } else {
      EXPECT_NEAR(actual.data[i], expected[i], tolerance) << "element " << i;
    }
  }
}
inline void expectF32(const Value& actual, const Shape& shape, const std::vector<double>& expected,
                      double tolerance = 1e-12) {
  expectValue(actual, shape, DType::f32, expected, tolerance);
}

// 0, 1, 2, ... as f32 in `shape`.
inline Value iota(Shape shape, double start = 0.0, double step = 1.0) {
  std::vector<double> data(static_cast<std::size_t>(ir::numel(shape)));
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = start + step * static_cast<double>(i);
  return f32(std::move(shape), std::move(data));
}

}  // namespace nndna::eval::testing

#include "specs/eval_layers.hpp"

namespace nndna::eval::testing {

using LayerFn = std::function<Tensor(eval_layers::Layers&, const Inputs&)>;

// Traces `fn` over the layers of spec "eval_layers": as its training loss (rank-0 result, layers
// in training mode) or, with training = false, as its predict function.
inline ir::Graph traceLayers(const std::vector<InputDecl>& inputs, const LayerFn& fn,
                             bool training = true) {
  const RegisteredSpec* registered = findSpec("eval_layers");
  if (registered == nullptr) throw std::logic_error("spec eval_layers is not linked in");
  LoadedSpec spec = loadSpec(*registered);
  ErasedForward forward = [fn](Module& m, const Inputs& in) {
    return fn(static_cast<eval_layers::Layers&>(m), in);
  };
  if (training) {
    spec.spec.loss = std::move(forward);
    spec.spec.inputs = inputs;
    return trace(spec);
  }
  spec.spec.predict = std::move(forward);
  spec.spec.predictInputs = inputs;
  return traceForward(spec);
}

}  // namespace nndna::eval::testing
