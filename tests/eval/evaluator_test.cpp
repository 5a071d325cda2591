// The evaluator itself: leaf feeding and its errors, coverage of every op kind, parameter
// initialisation, training-step write-back.
#include <cmath>

#include "eval_test_util.hpp"

namespace nndna::eval::testing {
namespace {

TEST(Evaluator, EveryOpKindHasAReferenceEvaluation) {
  for (std::size_t k = 0; k < ir::opKindCount(); ++k) {
    const auto kind = static_cast<ir::OpKind>(k);
    EXPECT_TRUE(isEvaluable(kind)) << ir::opKindName(kind);
  }
}

TEST(Evaluator, MissingInputNamesTheLeafAndWhatWasGiven) {
  const ir::Graph g = traceFunction({{"x", {2}}, {"y", {2}}},
                                    [](const Inputs& in) { return add(in["x"], in["y"]); });
  Leaves leaves;
  leaves.inputs["x"] = f32({2}, {1, 2});
  try {
    evaluate(g, leaves);
    FAIL() << "expected EvalError";
  } catch (const EvalError& e) {
    EXPECT_STREQ(e.what(), "eval: no value for input 'y' ([2] f32); given: x");
  }
}

TEST(Evaluator, WrongShapeOrDtypeIsRejected) {
  const ir::Graph g = traceFunction({{"x", {2, 3}}}, [](const Inputs& in) { return sum(in["x"]); });
  Leaves leaves;
  leaves.inputs["x"] = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  try {
    evaluate(g, leaves);
    FAIL() << "expected EvalError";
  } catch (const EvalError& e) {
    EXPECT_STREQ(e.what(), "eval: input 'x' expects [2, 3] f32, was given [3, 2] f32 (6 values)");
  }
  leaves.inputs["x"] = i32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THROW(evaluate(g, leaves), EvalError);
  EXPECT_THROW(f32({2}, {1, 2, 3}), std::invalid_argument);
  EXPECT_THROW(i32({1}, {0.5}), std::invalid_argument);
}

TEST(Evaluator, OpErrorsNameTheSpecLine) {
  const ir::Graph g = traceFunction({{"t", {2, 2}}, {"i", {1}, DType::i32}},
                                    [](const Inputs& in) { return embedding(in["t"], in["i"]); });
  Leaves leaves;
  leaves.inputs["t"] = f32({2, 2}, {1, 2, 3, 4});
  leaves.inputs["i"] = i32({1}, {5});
  try {
    evaluate(g, leaves);
    FAIL() << "expected EvalError";
  } catch (const EvalError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("evaluator_test.cpp:"), std::string::npos) << what;
    EXPECT_NE(what.find("embedding (op 2): token index 5 is out of range [0, 2)"),
              std::string::npos) << what;
  }
}

TEST(Evaluator, ComputesOnlyWhatTheTargetsNeed) {
  const ir::Graph g = traceFunction({{"x", {2}}, {"y", {2}}}, [&](const Inputs& in) {
    exp(in["y"]);  // traced, never used
    return mul(in["x"], 2.0);
  });
  ir::TensorId unused = ir::kNone;
  for (const ir::Op& op : g.ops) {
    if (op.kind == ir::OpKind::exp) unused = op.out;
  }
  ASSERT_NE(unused, ir::kNone);
  Leaves leaves;
  leaves.inputs["x"] = f32({2}, {1, 2});  // y is not needed, so not fed
  const Results r = evaluate(g, leaves);
  expectF32(r.at(g.outputs[0]), {2}, {2, 4});
  EXPECT_FALSE(r.has(unused));
  EXPECT_THROW(r.at(unused), EvalError);
}

TEST(Initialisation, FollowsPyTorchLayerDefaultsAndIsSeeded) {
  const ir::Graph g = traceLayers({{"x", {2, 3}}}, [](eval_layers::Layers& m, const Inputs& in) {
    Tensor y = m.linear(in["x"]);                                       // [2, 2]
    Tensor e = m.embedding(arange(2));                                  // [2, 3]
    Tensor c = m.conv(reshape(concat({y, y}, 0), {1, 2, 2, 2}));         // [1, 4, 2, 2]
    return add(add(mean(e), mean(c)), mean(m.layerNorm(ones({4}))));
  });
  const Leaves a = initialLeaves(g, 1);
  auto within = [&](const std::string& name, double bound) {
    const Value& v = a.params.at(name);
    double maxAbs = 0;
    for (const double x : v.data) maxAbs = std::max(maxAbs, std::abs(x));
    EXPECT_LE(maxAbs, bound) << name;
    EXPECT_GT(maxAbs, bound * 0.3) << name;  // drawn, not constant
  };
  within("linear.weight", 1 / std::sqrt(3.0));  // Linear(3, 2): fan_in 3
  within("linear.bias", 1 / std::sqrt(3.0));
  within("conv.weight", 1.0 / 3.0);  // 1 channel per group · 3 · 3
  within("conv.bias", 1.0 / 3.0);
  // Embedding: normal(0, 1) draws exceed the linear bounds.
  double maxEmb = 0;
  for (const double x : a.params.at("embedding.weight").data) maxEmb = std::max(maxEmb, std::abs(x));
  EXPECT_GT(maxEmb, 0.8);
  expectF32(a.params.at("layer_norm.weight"), {4}, {1, 1, 1, 1});
  expectF32(a.params.at("layer_norm.bias"), {4}, {0, 0, 0, 0});
  expectF32(a.state.at("batch_norm.running_mean"), {2}, {0, 0});
  expectF32(a.state.at("batch_norm.running_var"), {2}, {1, 1});
  EXPECT_EQ(a.params.at("linear.weight").data, initialLeaves(g, 1).params.at("linear.weight").data);
  EXPECT_NE(a.params.at("linear.weight").data, initialLeaves(g, 2).params.at("linear.weight").data);
}

// The layers write their defaults into the IR, so the graph (and its JSON) says how each
// parameter starts; the evaluator does not have to recognise the layer.
TEST(Initialisation, LayersRecordTheirDefaultsInTheIr) {
  const ir::Graph g = traceLayers({{"x", {2, 3}}}, [](eval_layers::Layers& m, const Inputs& in) {
    return add(mean(m.linear(in["x"])), mean(m.embedding(arange(2))));
  });
  auto initOf = [&](std::string_view name) {
    for (const ir::Param& p : g.params) {
      if (p.name == name) return p.init;
    }
    ADD_FAILURE() << "no parameter " << name;
    return Init{};
  };
  const Init weight = initOf("linear.weight");
  EXPECT_EQ(weight.kind, Init::Kind::uniform);
  EXPECT_DOUBLE_EQ(weight.a, -1 / std::sqrt(3.0));  // Linear(3, 2): fan_in 3
  EXPECT_DOUBLE_EQ(weight.b, 1 / std::sqrt(3.0));
  const Init bias = initOf("linear.bias");
  EXPECT_EQ(bias.kind, Init::Kind::uniform);
  EXPECT_DOUBLE_EQ(bias.b, 1 / std::sqrt(3.0));
  const Init table = initOf("embedding.weight");
  EXPECT_EQ(table.kind, Init::Kind::normal);
  EXPECT_DOUBLE_EQ(table.a, 1.0);
}

TEST(Updates, WriteBackTargetsAfterTheWholeStep) {
  ir::Graph g = traceLayers({{"x", {2, 3}}}, [](eval_layers::Layers& m, const Inputs& in) {
    return mean(m.linear(in["x"]));
  });
  // A hand-made step: weight <- weight · 2, bias <- weight[0, :] (reads the old weight).
  auto paramTensor = [&](std::string_view name) {
    for (const ir::Param& p : g.params) {
      if (p.name == name) return p.tensor;
    }
    throw std::logic_error("no param");
  };
  const ir::TensorId w = paramTensor("linear.weight");
  const ir::TensorId b = paramTensor("linear.bias");
  auto append = [&](ir::OpKind kind, std::vector<ir::TensorId> inputs, ir::OpAttrs attrs,
                    Shape shape) {
    const auto t = static_cast<ir::TensorId>(g.tensors.size());
    g.tensors.push_back({std::move(shape), DType::f32, static_cast<ir::OpId>(g.ops.size())});
    g.ops.push_back({kind, std::move(inputs), t, std::move(attrs), ir::kNone, ir::Phase::optimizer});
    return t;
  };
  ir::OpAttrs twice;
  twice.scalar = 2;
  twice.scalarOperand = true;
  const ir::TensorId w2 = append(ir::OpKind::mul, {w}, twice, {3, 2});
  ir::OpAttrs row;
  row.axis = 0;
  row.count = 1;
  const ir::TensorId r0 = append(ir::OpKind::narrow, {w}, row, {1, 2});
  ir::OpAttrs flat;
  flat.dims = {2};
  const ir::TensorId b2 = append(ir::OpKind::reshape, {r0}, flat, {2});
  g.updates = {{w, w2}, {b, b2}};
  Leaves leaves;
  leaves.inputs["x"] = Value::filled({2, 3}, 1.0);
  leaves.params["linear.weight"] = iota({3, 2});
  leaves.params["linear.bias"] = f32({2}, {9, 9});
  applyUpdates(g, evaluate(g, leaves), leaves);
  expectF32(leaves.params.at("linear.weight"), {3, 2}, {0, 2, 4, 6, 8, 10});
  expectF32(leaves.params.at("linear.bias"), {2}, {0, 1});
}

}  // namespace
}  // namespace nndna::eval::testing
