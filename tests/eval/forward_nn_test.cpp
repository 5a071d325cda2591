// Forward values of the fused ML ops, losses, rope, dropout, categorical and the normalisation
// layers against hand-computed values.
#include <cmath>
#include <limits>

#include "eval_test_util.hpp"
#include "nndna/training.hpp"

namespace nndna::eval::testing {
namespace {

constexpr double kLog3 = 1.0986122886681098;
constexpr double kLse123 = 3.40760596444438;  // log(e + e^2 + e^3)

TEST(EvalSoftmax, LastAndLeadingAxis) {
  const Feeds row = {{"x", f32({3}, {1, 2, 3})}};
  expectF32(run(row, [](const Inputs& in) { return softmax(in["x"]); }), {3},
            {0.09003057317038046, 0.24472847105479767, 0.6652409557748219});
  expectF32(run(row, [](const Inputs& in) { return logSoftmax(in["x"], -1); }), {3},
            {1 - kLse123, 2 - kLse123, 3 - kLse123});
  const Feeds cols = {{"x", f32({2, 2}, {0, 0, kLog3, 0})}};
  expectF32(run(cols, [](const Inputs& in) { return softmax(in["x"], 0); }), {2, 2},
            {0.25, 0.5, 0.75, 0.5});
  expectF32(run(cols, [](const Inputs& in) { return logSoftmax(in["x"], -2); }), {2, 2},
            {std::log(0.25), std::log(0.5), std::log(0.75), std::log(0.5)});
  // Stable for large logits.
  const Feeds big = {{"x", f32({2}, {1000, 1000})}};
  expectF32(run(big, [](const Inputs& in) { return softmax(in["x"]); }), {2}, {0.5, 0.5});
}

TEST(EvalSoftmax, CausalMasksTheFuture) {
  const Feeds feeds = {{"x", f32({1, 3, 3}, {5, 1, 1, 0, kLog3, 9, 0, 0, 0})}};
  expectF32(run(feeds, [](const Inputs& in) { return softmaxCausal(in["x"]); }), {1, 3, 3},
            {1, 0, 0, 0.25, 0.75, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3});
  const Feeds sq = {{"x", f32({2, 2}, {1, 2, 3, 4})}};
  expectF32(run(sq, [](const Inputs& in) { return whereCausal(in["x"], -1.0); }), {2, 2},
            {1, -1, 3, 4});
  const Value inf = run(sq, [](const Inputs& in) { return whereCausal(in["x"]); });
  EXPECT_EQ(inf.data[1], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(inf.data[2], 3.0);
}

TEST(EvalLosses, CrossEntropyAndNllWithEachReduction) {
  // Row 0: log(e + e^2 + e^3) - 3; row 1 (uniform logits): log 3.
  const double r0 = kLse123 - 3, r1 = kLog3;
  const Feeds feeds = {{"logits", f32({2, 3}, {1, 2, 3, 1, 1, 1})}, {"t", i32({2}, {2, 0})}};
  expectF32(run(feeds, [](const Inputs& in) { return crossEntropy(in["logits"], in["t"]); }), {},
            {(r0 + r1) / 2});
  expectF32(run(feeds, [](const Inputs& in) {
              return crossEntropy(in["logits"], in["t"], {.reduction = Reduction::sum});
            }),
            {}, {r0 + r1});
  expectF32(run(feeds, [](const Inputs& in) {
              return crossEntropy(in["logits"], in["t"], {.reduction = Reduction::none});
            }),
            {2}, {r0, r1});
  const Feeds lp = {{"lp", f32({2, 2}, {-0.5, -1.5, -2, -0.25})}, {"t", i32({2}, {1, 0})}};
  expectF32(run(lp, [](const Inputs& in) { return nllLoss(in["lp"], in["t"]); }), {}, {1.75});
  expectF32(run(lp, [](const Inputs& in) {
              return nllLoss(in["lp"], in["t"], {.reduction = Reduction::sum});
            }),
            {}, {3.5});
  expectF32(run(lp, [](const Inputs& in) {
              return nllLoss(in["lp"], in["t"], {.reduction = Reduction::none});
            }),
            {2}, {1.5, 2});
  const Feeds bad = {{"logits", f32({1, 2}, {0, 0})}, {"t", i32({1}, {2})}};
  EXPECT_THROW(run(bad, [](const Inputs& in) { return crossEntropy(in["logits"], in["t"]); }),
               EvalError);
}

TEST(EvalRope, RotatesHalvesByPositionTimesFrequency) {
  // T = 2, Dh = 2: position 0 is unchanged, position 1 rotates (x0, x1) by 1 radian.
  const Feeds feeds = {{"q", f32({1, 2, 2}, {1, 2, 1, 0})}, {"k", f32({1, 2, 2}, {3, 4, 0, 1})}};
  expectF32(run(feeds, [](const Inputs& in) { return rope(in["q"], in["k"]).first; }), {1, 2, 2},
            {1, 2, 0.5403023058681398, 0.8414709848078965});
  expectF32(run(feeds, [](const Inputs& in) { return rope(in["q"], in["k"]).second; }), {1, 2, 2},
            {3, 4, -0.8414709848078965, 0.5403023058681398});
  // Dh = 4: pair (x1, x3) has frequency base^(-2/4) = 1/100 at base 10000.
  const Feeds wide = {{"q", f32({2, 4}, {0, 0, 0, 0, 0, 1, 0, 0})},
                      {"k", f32({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0})}};
  expectF32(run(wide, [](const Inputs& in) { return rope(in["q"], in["k"]).first; }), {2, 4},
            {0, 0, 0, 0, 0, 0.9999500004166653, 0, 0.009999833334166664});
}

TEST(EvalDropout, InvertedScalingAndSeededMask) {
  const Feeds feeds = {{"x", Value::filled({20000}, 1.0)}};
  auto drop = [&](std::uint64_t seed) {
    return run(feeds, [](const Inputs& in) { return dropout(in["x"], 0.25); }, seed);
  };
  const Value a = drop(7);
  std::int64_t zeros = 0;
  for (const double v : a.data) {
    if (v == 0.0) {
      ++zeros;
    } else {
      ASSERT_DOUBLE_EQ(v, 4.0 / 3.0);
    }
  }
  // 5000 expected, standard deviation ≈ 61.
  EXPECT_NEAR(static_cast<double>(zeros), 5000.0, 300.0);
  EXPECT_EQ(a.data, drop(7).data);
  EXPECT_NE(a.data, drop(8).data);
}

TEST(EvalCategorical, SamplesFollowTheLogits) {
  const Feeds sure = {{"l", f32({3, 4}, {0, 100, 0, 0, 100, 0, 0, 0, 0, 0, 0, 100})}};
  expectValue(run(sure, [](const Inputs& in) { return categorical(in["l"]); }), {3}, DType::i32,
              {1, 0, 3});
  std::vector<double> logits;
  for (int i = 0; i < 20000; ++i) {
    logits.push_back(std::log(0.2));
    logits.push_back(std::log(0.8));
  }
  const Feeds mix = {{"l", f32({20000, 2}, logits)}};
  const Value s = run(mix, [](const Inputs& in) { return categorical(in["l"], -1); }, 3);
  double ones = 0;
  for (const double v : s.data) ones += v;
  // 16000 expected, standard deviation ≈ 57.
  EXPECT_NEAR(ones, 16000.0, 300.0);
}

// Norm layers: parameters fed by name, next to the input.
Leaves layerLeaves(Value x) {
  Leaves leaves;
  leaves.inputs["x"] = std::move(x);
  leaves.params["layer_norm.weight"] = f32({4}, {1, 2, 1, 1});
  leaves.params["layer_norm.bias"] = f32({4}, {0, 0, 0, 1});
  leaves.params["rms_norm.weight"] = f32({4}, {1, 2, 1, 1});
  leaves.params["layer_norm_axes.weight"] = f32({2, 1, 2}, {1, 2, 1, 1});
  leaves.params["layer_norm_axes.bias"] = f32({2, 1, 2}, {0, 0, 0, 1});
  leaves.params["batch_norm.weight"] = f32({2}, {2, 1});
  leaves.params["batch_norm.bias"] = f32({2}, {0, 1});
  leaves.state["batch_norm.running_mean"] = f32({2}, {1, 0});
  leaves.state["batch_norm.running_var"] = f32({2}, {4, 1});
  leaves.params["frozen_batch_norm.weight"] = f32({2}, {2, 1});
  leaves.params["frozen_batch_norm.bias"] = f32({2}, {0, 1});
  leaves.state["frozen_batch_norm.running_mean"] = f32({2}, {1, 0});
  leaves.state["frozen_batch_norm.running_var"] = f32({2}, {4, 1});
  leaves.params["batch_norm1d.weight"] = f32({2}, {2, 1});
  leaves.params["batch_norm1d.bias"] = f32({2}, {0, 1});
  leaves.state["batch_norm1d.running_mean"] = f32({2}, {1, 0});
  leaves.state["batch_norm1d.running_var"] = f32({2}, {4, 1});
  leaves.params["group_norm.weight"] = f32({4}, {1, 2, 1, 1});
  leaves.params["group_norm.bias"] = f32({4}, {0, 0, 0, 1});
  return leaves;
}

Value predict(const Value& x, const LayerFn& fn) {
  const ir::Graph g = traceLayers({{"x", x.shape}}, fn, /*training=*/false);
  return evaluate(g, layerLeaves(x)).at(g.outputs.at(0));
}

TEST(EvalNorms, LayerNormAndRmsNormOverTheLastAxis) {
  const Value x = f32({1, 4}, {1, 2, 3, 4});  // mean 2.5, variance 1.25, mean square 7.5
  expectF32(predict(x, [](eval_layers::Layers& m, const Inputs& in) { return m.layerNorm(in["x"]); }),
            {1, 4}, {-1.3416354199689269, -0.894423613312618, 0.447211806656309, 2.341635419968927});
  expectF32(predict(x, [](eval_layers::Layers& m, const Inputs& in) { return m.rmsNorm(in["x"]); }),
            {1, 4}, {0.3651483473268884, 1.4605933893075536, 1.0954450419806652, 1.4605933893075536});
}

// PyTorch's LayerNorm([2, 1, 2]): one mean and variance per sample over its last three axes. The
// first sample is the one above; the second is constant, so it normalizes to 0 and gives the bias.
TEST(EvalNorms, LayerNormOverSeveralAxes) {
  const Value x = f32({2, 2, 1, 2}, {1, 2, 3, 4, 5, 5, 5, 5});
  expectF32(predict(x, [](eval_layers::Layers& m, const Inputs& in) { return m.layerNormOverAxes(in["x"]); }),
            {2, 2, 1, 2},
            {-1.3416354199689269, -0.894423613312618, 0.447211806656309, 2.341635419968927, 0, 0, 0, 1});
  const ir::Graph g = traceLayers(
      {{"x", x.shape}}, [](eval_layers::Layers& m, const Inputs& in) { return m.layerNormOverAxes(in["x"]); },
      /*training=*/false);
  std::vector<std::pair<std::string, Shape>> params;
  for (const ir::Param& p : g.params) {
    if (p.name.starts_with("layer_norm_axes.")) params.emplace_back(p.name, g.tensor(p.tensor).shape);
  }
  EXPECT_EQ(params, (std::vector<std::pair<std::string, Shape>>{{"layer_norm_axes.weight", {2, 1, 2}},
                                                                {"layer_norm_axes.bias", {2, 1, 2}}}));
  // The axes flattened inside keep their names outside: the picture shows [B, C, H, W].
  static constexpr Dim kB{"B", 2, "batch"}, kC{"C", 2, "channels"}, kH{"H", 1, "height"}, kW{"W", 2, "width"};
  const ir::Graph named = traceLayers(
      {{"x", {kB, kC, kH, kW}}}, [](eval_layers::Layers& m, const Inputs& in) { return m.layerNormOverAxes(in["x"]); },
      /*training=*/false);
  EXPECT_EQ(named.tensor(named.outputs.at(0)).names, (ir::DimNames{"B", "C", "H", "W"}));
}

TEST(EvalNorms, BatchNormBatchAndRunningStatistics) {
  // Channel 0 holds 1, 3 (mean 2, variance 1); channel 1 holds 2, 6 (mean 4, variance 4).
  const Value x = f32({2, 2, 1, 1}, {1, 2, 3, 6});
  const ir::Graph train = traceLayers({{"x", x.shape}}, [](eval_layers::Layers& m, const Inputs& in) {
    return mean(capture("y", m.batchNorm(in["x"])));
  });
  const Results r = evaluate(train, layerLeaves(x));
  const double a = 0.9999950000374997, b = 0.9999987500023437;  // 1/sqrt(1+eps), 2/sqrt(4+eps)
  expectF32(r.at(train.captures.at(0).tensor), {2, 2, 1, 1}, {-2 * a, -b + 1, 2 * a, b + 1});
  // Inference: running mean [1, 0], variance [4, 1].
  expectF32(predict(x, [](eval_layers::Layers& m, const Inputs& in) { return m.batchNorm(in["x"]); }),
            {2, 2, 1, 1}, {0, 2.9999900000749995, 1.9999975000046875, 6.999970000224998});
}

// BatchNorm1d on [N, C] and [N, C, L]: BatchNorm2d's numbers (the same values laid out as
// [N, C] and as [N, C, L] with the batch split in two) and PyTorch's parameter and state names.
TEST(EvalNorms, BatchNorm1dOnFeaturesAndSequences) {
  const double a = 0.9999950000374997, b = 0.9999987500023437;  // 1/sqrt(1+eps), 2/sqrt(4+eps)
  const Value features = f32({2, 2}, {1, 2, 3, 6});  // channel 0: 1, 3; channel 1: 2, 6
  const ir::Graph train = traceLayers({{"x", features.shape}}, [](eval_layers::Layers& m, const Inputs& in) {
    return mean(capture("y", m.batchNorm1d(in["x"])));
  });
  expectF32(evaluate(train, layerLeaves(features)).at(train.captures.at(0).tensor), {2, 2},
            {-2 * a, -b + 1, 2 * a, b + 1});
  // One sequence of two steps per channel: channel 0 holds 1, 3 and channel 1 holds 2, 6.
  const Value sequence = f32({1, 2, 2}, {1, 3, 2, 6});
  const ir::Graph seqTrain = traceLayers({{"x", sequence.shape}}, [](eval_layers::Layers& m, const Inputs& in) {
    return mean(capture("y", m.batchNorm1d(in["x"])));
  });
  expectF32(evaluate(seqTrain, layerLeaves(sequence)).at(seqTrain.captures.at(0).tensor), {1, 2, 2},
            {-2 * a, 2 * a, -b + 1, b + 1});
  // Inference: running mean [1, 0], variance [4, 1], as BatchNorm2d's test.
  expectF32(predict(features, [](eval_layers::Layers& m, const Inputs& in) { return m.batchNorm1d(in["x"]); }),
            {2, 2}, {0, 2.9999900000749995, 1.9999975000046875, 6.999970000224998});
  std::vector<std::string> names;
  for (const ir::Param& p : train.params) {
    if (p.name.starts_with("batch_norm1d.")) names.push_back(p.name);
  }
  for (const ir::Param& p : train.state) {
    if (p.name.starts_with("batch_norm1d.")) names.push_back(p.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"batch_norm1d.weight", "batch_norm1d.bias", "batch_norm1d.running_mean",
                                             "batch_norm1d.running_var"}));
}

// torch.flatten: the merged axes, the default over every axis, negative axes and a 0-d tensor.
TEST(EvalShapes, FlattenMergesTheAxesItIsGiven) {
  const Value x = iota({2, 3, 2, 2});
  auto shapeOf = [&](auto fn) {
    return traceLayers({{"x", x.shape}}, [fn](eval_layers::Layers&, const Inputs& in) { return fn(in["x"]); },
                       /*training=*/false);
  };
  const ir::Graph g = shapeOf([](Tensor t) { return flatten(t, 1); });
  EXPECT_EQ(g.tensor(g.outputs.at(0)).shape, (Shape{2, 12}));
  Leaves leaves;
  leaves.inputs["x"] = x;
  expectF32(evaluate(g, leaves).at(g.outputs.at(0)), {2, 12}, x.data);
  const ir::Graph all = shapeOf([](Tensor t) { return flatten(t); });
  EXPECT_EQ(all.tensor(all.outputs.at(0)).shape, (Shape{24}));
  const ir::Graph middle = shapeOf([](Tensor t) { return flatten(t, 1, -2); });
  EXPECT_EQ(middle.tensor(middle.outputs.at(0)).shape, (Shape{2, 6, 2}));
  const ir::Graph scalar = shapeOf([](Tensor t) { return flatten(sum(t)); });
  EXPECT_EQ(scalar.tensor(scalar.outputs.at(0)).shape, (Shape{1}));
}

// A frozen BatchNorm2d normalises with the running statistics while training too, and its
// training step updates neither of them.
TEST(EvalNorms, FrozenBatchNormUsesRunningStatisticsInTraining) {
  const Value x = f32({2, 2, 1, 1}, {1, 2, 3, 6});
  const ir::Graph train = traceLayers({{"x", x.shape}}, [](eval_layers::Layers& m, const Inputs& in) {
    return mean(capture("y", m.frozenBatchNorm(in["x"])));
  });
  // Running mean [1, 0], variance [4, 1], weight [2, 1], bias [0, 1]: channel 0 gives
  // 2·(x - 1)/sqrt(4 + eps), channel 1 (x - 0)/sqrt(1 + eps) + 1 — as at inference.
  expectF32(evaluate(train, layerLeaves(x)).at(train.captures.at(0).tensor), {2, 2, 1, 1},
            {0, 2.9999900000749995, 1.9999975000046875, 6.999970000224998});
  const ir::Graph step = training::buildTrainingStep(train, Adam{});
  for (const ir::Op& op : step.ops) {
    EXPECT_NE(op.kind, ir::OpKind::batch_norm2d) << "the training batch statistics";
    EXPECT_NE(op.kind, ir::OpKind::batch_norm2d_running_mean);
    EXPECT_NE(op.kind, ir::OpKind::batch_norm2d_running_var);
  }
  // The updates: the two parameters (weight, bias) and their Adam moments, no running statistic.
  std::vector<std::string> updated;
  for (const ir::Update& u : step.updates) updated.push_back(step.producer(u.target).attrs->name);
  EXPECT_EQ(updated, (std::vector<std::string>{
                         "frozen_batch_norm.weight", "frozen_batch_norm.bias",
                         "optim.exp_avg.frozen_batch_norm.weight", "optim.exp_avg_sq.frozen_batch_norm.weight",
                         "optim.exp_avg.frozen_batch_norm.bias", "optim.exp_avg_sq.frozen_batch_norm.bias"}));
}

TEST(EvalNorms, GroupNormPerSampleAndGroup) {
  // [1, 2, 2]: channel 0 holds 1, 3; channel 1 holds 5, 7. eps 0 keeps the figures exact.
  const Feeds feeds = {{"x", f32({1, 2, 2}, {1, 3, 5, 7})},
                       {"w", f32({2}, {2, 3})},
                       {"b", f32({2}, {0, 1})}};
  // One group: mean 4, variance (9 + 1 + 1 + 9)/4 = 5.
  const double r5 = std::sqrt(5.0);
  expectF32(run(feeds, [](const Inputs& in) { return groupNorm(in["x"], 1, {}, {}, 0.0); }), {1, 2, 2},
            {-3 / r5, -1 / r5, 1 / r5, 3 / r5});
  // Two groups (one channel each): mean 2 and 6, variance 1; then weight [2, 3], bias [0, 1].
  expectF32(run(feeds, [](const Inputs& in) { return groupNorm(in["x"], 2, in["w"], in["b"], 0.0); }),
            {1, 2, 2}, {-2, 2, -2, 4});
  // Samples are normalised apart: the second sample (x + 10) gives the same result.
  const Feeds two = {{"x", f32({2, 2, 1}, {1, 3, 11, 13})}};
  expectF32(run(two, [](const Inputs& in) { return groupNorm(in["x"], 1, {}, {}, 0.0); }), {2, 2, 1},
            {-1, 1, -1, 1});
}

}  // namespace
}  // namespace nndna::eval::testing
