// Training end to end on the evaluator: the MLP-fits-sin(x) example (spec "mlp_sin") trained by
// the step buildTrainingStep builds, with Adam and with SGD + momentum.
#include <cmath>
#include <numbers>

#include "gradcheck.hpp"

namespace nndna::eval::testing {
namespace {

constexpr std::int64_t kBatch = 256;  // examples/mlp_sin.cpp

// x uniform in [-π, π], y = sin x; a different batch per seed.
std::pair<Value, Value> sinBatch(std::uint64_t seed) {
  std::vector<double> x = randomValues(kBatch, seed, -std::numbers::pi, std::numbers::pi);
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::sin(x[i]);
  return {f32({kBatch, 1}, std::move(x)), f32({kBatch, 1}, std::move(y))};
}

struct TrainingRun {
  double before = 0;  // held-out loss with the initial parameters
  double after = 0;   // held-out loss after the last step
};

TrainingRun train(const Optimizer& optimizer, int steps) {
  const RegisteredSpec* registered = findSpec("mlp_sin");
  if (registered == nullptr) throw std::logic_error("examples/mlp_sin.cpp is not linked in");
  const ir::Graph forward = trace(loadSpec(*registered));
  const ir::Graph step = training::buildTrainingStep(forward, optimizer);
  Leaves leaves = initialLeaves(step, 1);
  EXPECT_FALSE(leaves.state.empty() && !std::holds_alternative<SGD>(optimizer))
      << "the optimizer keeps no state";

  // Held-out loss, from the forward graph and the current parameters.
  const auto [testX, testY] = sinBatch(999);
  auto heldOut = [&] {
    Leaves l;
    l.params = leaves.params;
    l.inputs["x"] = testX;
    l.inputs["y"] = testY;
    return evaluate(forward, l).at(forward.outputs.at(0)).item();
  };
  TrainingRun run;
  run.before = heldOut();
  for (int t = 0; t < steps; ++t) {
    auto [x, y] = sinBatch(static_cast<std::uint64_t>(t) + 1);
    leaves.inputs["x"] = std::move(x);
    leaves.inputs["y"] = std::move(y);
    for (const auto& [name, value] : training::stepScalars(optimizer, t)) {
      leaves.inputs[name] = Value::scalar(value);
    }
    applyUpdates(step, evaluate(step, leaves, EvalOptions{static_cast<std::uint64_t>(t)}), leaves);
  }
  run.after = heldOut();
  return run;
}

TEST(Training, AdamFitsSinTenfoldIn300Steps) {
  const TrainingRun run = train(Adam{.lr = 5e-3}, 300);  // the spec's optimizer
  std::cout << "Adam: held-out loss " << run.before << " -> " << run.after << "\n";
  EXPECT_LT(run.after * 10, run.before);
}

TEST(Training, SgdWithMomentumFitsSinTenfoldIn300Steps) {
  const TrainingRun run = train(SGD{.lr = 0.05, .momentum = 0.9, .nesterov = false}, 300);
  std::cout << "SGD+momentum: held-out loss " << run.before << " -> " << run.after << "\n";
  EXPECT_LT(run.after * 10, run.before);
}

}  // namespace
}  // namespace nndna::eval::testing

namespace nndna::eval::testing {
namespace {

// One step of `optimizer` on spec eval_layers with L = Σ linear(x), x all ones [2, 3]: every
// weight and bias gradient is 2.
Leaves oneLinearStep(const Optimizer& optimizer) {
  const ir::Graph forward = traceLayers({{"x", {2, 3}}}, [](eval_layers::Layers& m, const Inputs& in) {
    return sum(m.linear(in["x"]));
  });
  const ir::Graph step = training::buildTrainingStep(forward, optimizer);
  Leaves leaves = initialLeaves(step, 0);
  leaves.params["linear.weight"] = iota({3, 2}, 1);
  leaves.params["linear.bias"] = f32({2}, {1, -1});
  leaves.inputs["x"] = Value::filled({2, 3}, 1.0);
  for (const auto& [name, value] : training::stepScalars(optimizer, 0)) {
    leaves.inputs[name] = Value::scalar(value);
  }
  applyUpdates(step, evaluate(step, leaves), leaves);
  return leaves;
}

TEST(OptimizerSteps, FirstAdamStepMovesEachParameterByLr) {
  // m̂ = g, v̂ = g² after bias correction: the step is lr · g / (|g| + eps).
  const double d = 0.1 * 2 / (2 + 1e-8);
  const Leaves l = oneLinearStep(Adam{.lr = 0.1});
  expectF32(l.params.at("linear.weight"), {3, 2}, {1 - d, 2 - d, 3 - d, 4 - d, 5 - d, 6 - d});
  expectF32(l.params.at("linear.bias"), {2}, {1 - d, -1 - d});
  expectF32(l.state.at("optim.exp_avg.linear.weight"), {3, 2}, {0.2, 0.2, 0.2, 0.2, 0.2, 0.2});
}

TEST(OptimizerSteps, AdamWDecaysWeightsButNotBiases) {
  const double d = 0.1 * 2 / (2 + 1e-8);
  const Leaves l = oneLinearStep(AdamW{.lr = 0.1, .weightDecay = 0.5});
  // p · (1 − lr·wd) − step on the weight; the bias has no decay.
  const double k = 1 - 0.1 * 0.5;
  expectF32(l.params.at("linear.weight"), {3, 2},
            {1 * k - d, 2 * k - d, 3 * k - d, 4 * k - d, 5 * k - d, 6 * k - d});
  expectF32(l.params.at("linear.bias"), {2}, {1 - d, -1 - d});
}

TEST(OptimizerSteps, SgdStep) {
  const Leaves l = oneLinearStep(SGD{.lr = 0.25, .momentum = 0.0, .nesterov = false});
  expectF32(l.params.at("linear.weight"), {3, 2}, {0.5, 1.5, 2.5, 3.5, 4.5, 5.5});
  expectF32(l.params.at("linear.bias"), {2}, {0.5, -1.5});
}

TEST(OptimizerSteps, ClipGradNormScalesTheStepByMaxNormOverTheGlobalNorm) {
  // Eight gradients of 2 (six weights, two biases): ‖g‖ = √(8·4) = √32. With maxNorm 1 every
  // gradient becomes 2 / (√32 + 1e-6); SGD lr 0.25 moves each parameter by 0.25 times that.
  const double d = 0.25 * 2 / (std::sqrt(32.0) + 1e-6);
  const Leaves l = oneLinearStep(SGD{.lr = 0.25, .clipGradNorm = 1.0});
  expectF32(l.params.at("linear.weight"), {3, 2}, {1 - d, 2 - d, 3 - d, 4 - d, 5 - d, 6 - d});
  expectF32(l.params.at("linear.bias"), {2}, {1 - d, -1 - d});
  // A bound above the norm leaves the step as it was (min(…, 1) = 1).
  const Leaves loose = oneLinearStep(SGD{.lr = 0.25, .clipGradNorm = 100.0});
  expectF32(loose.params.at("linear.weight"), {3, 2}, {0.5, 1.5, 2.5, 3.5, 4.5, 5.5});
  // Adam's first step is lr · ĝ/|ĝ| whatever the scale: clipped, it still moves by lr.
  const double g = 2 / (std::sqrt(32.0) + 1e-6);
  const double a = 0.1 * g / (g + 1e-8);
  const Leaves adam = oneLinearStep(Adam{.lr = 0.1, .clipGradNorm = 1.0});
  expectF32(adam.params.at("linear.bias"), {2}, {1 - a, -1 - a});
  expectF32(adam.state.at("optim.exp_avg.linear.bias"), {2}, {0.1 * g, 0.1 * g});
}

TEST(OptimizerSteps, SgdWeightDecayDecaysWeightsButNotBiases) {
  // Weight: p − lr·(g + wd·p) = p − 0.25·(2 + 0.5·p) = 0.875·p − 0.5; bias: p − 0.25·2.
  const Leaves l = oneLinearStep(SGD{.lr = 0.25, .weightDecay = 0.5});
  expectF32(l.params.at("linear.weight"), {3, 2}, {0.375, 1.25, 2.125, 3.0, 3.875, 4.75});
  expectF32(l.params.at("linear.bias"), {2}, {0.5, -1.5});
}

TEST(OptimizerSteps, BatchNormRunningStatisticsUseTheUnbiasedVariance) {
  const ir::Graph forward = traceLayers({{"x", {2, 2, 1, 1}}}, [](eval_layers::Layers& m, const Inputs& in) {
    return sum(mul(m.batchNorm(in["x"]), in["x"]));
  });
  const SGD sgd{.lr = 0.1, .momentum = 0.0, .nesterov = false};
  const ir::Graph step = training::buildTrainingStep(forward, sgd);
  Leaves leaves = initialLeaves(step, 0);  // running mean 0, running variance 1
  leaves.inputs["x"] = f32({2, 2, 1, 1}, {1, 2, 3, 6});  // channel 0: 1, 3; channel 1: 2, 6
  for (const auto& [name, value] : training::stepScalars(sgd, 0)) leaves.inputs[name] = Value::scalar(value);
  applyUpdates(step, evaluate(step, leaves), leaves);
  // momentum 0.1: mean 0.9·0 + 0.1·[2, 4]; variance 0.9·1 + 0.1·[2, 8] (unbiased).
  expectF32(leaves.state.at("batch_norm.running_mean"), {2}, {0.2, 0.4});
  expectF32(leaves.state.at("batch_norm.running_var"), {2}, {1.1, 1.7});
}

}  // namespace
}  // namespace nndna::eval::testing
