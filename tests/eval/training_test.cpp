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
