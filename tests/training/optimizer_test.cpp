// Optimizer lowering: Adam/AdamW/SGD ops, their state leaves, per-step scalars, weight decay
// flags, the order of the updates, BatchNorm running statistics.
#include <gtest/gtest.h>

#include <cmath>

#include "nndna/training.hpp"
#include "test_util.hpp"

namespace nndna {
namespace {

using ir::OpKind;
using ir::Phase;
using testing::countOps;
using testing::traceSpec;

const ir::Param* stateNamed(const ir::Graph& g, std::string_view name) {
  for (const ir::Param& s : g.state) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

TEST(Optimizer, AdamWLowersToThreeOpsPerParameterWithDecayFlags) {
  const testing::TracedSpec tiny = traceSpec("train_tiny");
  const AdamW adamw{.lr = lr::cosineAnnealing(1e-3, 1e-5, 100), .weightDecay = 0.1};
  ir::Graph step = training::buildTrainingStep(tiny.graph, adamw);
  // fc.weight and fc.bias have gradients; the head does not.
  EXPECT_EQ(countOps(step, OpKind::adam_moment1, Phase::optimizer), 2u);
  EXPECT_EQ(countOps(step, OpKind::adam_moment2, Phase::optimizer), 2u);
  EXPECT_EQ(countOps(step, OpKind::adam_update, Phase::optimizer), 2u);
  // State: m and v for each updated parameter, zero-initialised, never decayed.
  ASSERT_EQ(step.state.size(), 4u);
  for (const char* name : {"optim.exp_avg.fc.weight", "optim.exp_avg_sq.fc.weight",
                           "optim.exp_avg.fc.bias", "optim.exp_avg_sq.fc.bias"}) {
    const ir::Param* s = stateNamed(step, name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(step.producer(s->tensor).kind, OpKind::state_input);
    EXPECT_EQ(s->init.kind, Init::Kind::zeros);
  }
  EXPECT_EQ(step.tensor(stateNamed(step, "optim.exp_avg.fc.weight")->tensor).shape, (Shape{3, 2}));
  // Per-step scalars: lr and the two bias corrections, rank 0.
  for (const char* name : {training::kLearningRate, training::kBiasCorrection1,
                           training::kBiasCorrection2}) {
    const ir::TensorId t = testing::leafNamed(step, name);
    ASSERT_NE(t, ir::kNone) << name;
    EXPECT_TRUE(step.tensor(t).shape.empty());
  }
  // Updates: parameters first (params order), then their m, v.
  ASSERT_EQ(step.updates.size(), 6u);
  const ir::Op& weightUpdate = step.producer(step.updates[0].value);
  const ir::Op& biasUpdate = step.producer(step.updates[1].value);
  ASSERT_EQ(weightUpdate.kind, OpKind::adam_update);
  EXPECT_EQ(weightUpdate.attrs->scalar2, 0.1);  // weight matrix: decayed
  EXPECT_EQ(biasUpdate.attrs->scalar2, 0.0);    // bias: not decayed
  EXPECT_EQ(weightUpdate.attrs->scalar, 1e-8);  // eps
  EXPECT_EQ(step.producer(weightUpdate.inputs[1]).kind, OpKind::adam_moment1);
  EXPECT_EQ(step.producer(weightUpdate.inputs[2]).kind, OpKind::adam_moment2);
  EXPECT_EQ(step.producer(step.updates[2].target).attrs->name, "optim.exp_avg.fc.weight");
  EXPECT_EQ(step.producer(step.updates[3].target).attrs->name, "optim.exp_avg_sq.fc.weight");
  EXPECT_EQ(step.producer(step.updates[2].value).attrs->scalar, 0.9);
  EXPECT_EQ(step.producer(step.updates[3].value).attrs->scalar, 0.999);
}

TEST(Optimizer, AdamNeverDecays) {
  const testing::TracedSpec tiny = traceSpec("train_tiny");
  ir::Graph step = training::buildTrainingStep(tiny.graph, Adam{});
  for (const ir::Op& op : step.ops) {
    if (op.kind == OpKind::adam_update) {
      EXPECT_EQ(op.attrs->scalar2, 0.0);
    }
  }
}

TEST(Optimizer, SgdMomentumAndNesterov) {
  const testing::TracedSpec tiny = traceSpec("train_tiny");
  ir::Graph plain = training::buildTrainingStep(tiny.graph, SGD{.lr = 0.1});
  EXPECT_TRUE(plain.state.empty());
  EXPECT_EQ(countOps(plain, OpKind::sgd_momentum), 0u);

  ir::Graph momentum = training::buildTrainingStep(tiny.graph, SGD{.lr = 0.1, .momentum = 0.9});
  EXPECT_EQ(momentum.state.size(), 2u);
  EXPECT_NE(stateNamed(momentum, "optim.momentum_buffer.fc.bias"), nullptr);
  EXPECT_EQ(countOps(momentum, OpKind::sgd_momentum), 2u);
  // 22 (plain step) + 2 buffer leaves + 2 sgd_momentum.
  EXPECT_EQ(momentum.ops.size(), 26u);
  // The update steps along the new buffer.
  const ir::Op& update = momentum.producer(momentum.updates[0].value);
  EXPECT_EQ(momentum.producer(update.inputs[1]).kind, OpKind::sgd_momentum);

  ir::Graph nesterov =
      training::buildTrainingStep(tiny.graph, SGD{.lr = 0.1, .momentum = 0.9, .nesterov = true});
  // Nesterov adds g + momentum * buf: a mul and an add per parameter.
  EXPECT_EQ(nesterov.ops.size(), 30u);
  const ir::Op& nUpdate = nesterov.producer(nesterov.updates[0].value);
  EXPECT_EQ(nesterov.producer(nUpdate.inputs[1]).kind, OpKind::add);

  EXPECT_THROW(training::buildTrainingStep(tiny.graph, SGD{.lr = 0.1, .nesterov = true}),
               Error);
}

TEST(Optimizer, ClipGradNormScalesEveryGradientByOneFactor) {
  const testing::TracedSpec tiny = traceSpec("train_tiny");
  const ir::Graph plain = training::buildTrainingStep(tiny.graph, SGD{.lr = 0.1});
  const ir::Graph clipped = training::buildTrainingStep(tiny.graph, SGD{.lr = 0.1, .clipGradNorm = 1.0});
  // Two gradients: square + sum each (4), one add joining them, sqrt, + 1e-6, 1.0 / norm, min
  // with 1, and one mul per gradient (2): 11 ops more than the plain step's 22.
  EXPECT_EQ(plain.ops.size(), 22u);
  EXPECT_EQ(clipped.ops.size(), 33u);
  EXPECT_EQ(countOps(clipped, OpKind::square, Phase::optimizer), 2u);
  EXPECT_EQ(countOps(clipped, OpKind::sqrt, Phase::optimizer), 1u);
  // Both updates step along g · coef, with one coef: min(maxNorm / (norm + 1e-6), 1).
  const ir::Op& wUpdate = clipped.producer(clipped.updates[0].value);
  const ir::Op& bUpdate = clipped.producer(clipped.updates[1].value);
  const ir::Op& wScaled = clipped.producer(wUpdate.inputs[1]);
  const ir::Op& bScaled = clipped.producer(bUpdate.inputs[1]);
  ASSERT_EQ(wScaled.kind, OpKind::mul);
  ASSERT_EQ(bScaled.kind, OpKind::mul);
  EXPECT_EQ(wScaled.inputs[1], bScaled.inputs[1]);
  const ir::Op& coef = clipped.producer(wScaled.inputs[1]);
  EXPECT_EQ(coef.kind, OpKind::min);
  EXPECT_EQ(coef.attrs->scalar, 1.0);
  EXPECT_TRUE(clipped.tensor(coef.out).shape.empty());
  const ir::Op& ratio = clipped.producer(coef.inputs[0]);
  EXPECT_EQ(ratio.kind, OpKind::div);
  EXPECT_TRUE(ratio.attrs->scalarLeft);
  EXPECT_EQ(ratio.attrs->scalar, 1.0);
  // Adam clips the same way, before its moments.
  const ir::Graph adam = training::buildTrainingStep(tiny.graph, Adam{.clipGradNorm = 0.5});
  for (const ir::Op& op : adam.ops) {
    if (op.kind == OpKind::adam_moment1) {
      EXPECT_EQ(adam.producer(op.inputs[1]).kind, OpKind::mul);
    }
  }
  EXPECT_THROW(training::buildTrainingStep(tiny.graph, AdamW{.clipGradNorm = -1.0}), Error);
  EXPECT_EQ(training::optimizerProblem(AdamW{.clipGradNorm = -1.0}),
            "AdamW: clipGradNorm must be finite and >= 0 (0 = no clipping), got -1");
}

TEST(Optimizer, SgdWeightDecayAddsToTheGradientOfDecayedParameters) {
  const testing::TracedSpec tiny = traceSpec("train_tiny");
  const ir::Graph step = training::buildTrainingStep(tiny.graph, SGD{.lr = 0.1, .weightDecay = 0.01});
  // fc.weight decays (mul by 0.01, add to g: 2 ops); fc.bias does not.
  EXPECT_EQ(step.ops.size(), 24u);
  const ir::Op& wUpdate = step.producer(step.updates[0].value);
  const ir::Op& decayed = step.producer(wUpdate.inputs[1]);
  ASSERT_EQ(decayed.kind, OpKind::add);
  const ir::Op& penalty = step.producer(decayed.inputs[1]);
  EXPECT_EQ(penalty.kind, OpKind::mul);
  EXPECT_EQ(penalty.attrs->scalar, 0.01);
  EXPECT_EQ(penalty.inputs[0], wUpdate.inputs[0]);  // the parameter itself
  const ir::Op& bUpdate = step.producer(step.updates[1].value);
  EXPECT_NE(step.producer(bUpdate.inputs[1]).kind, OpKind::add);
  EXPECT_EQ(training::optimizerProblem(SGD{.weightDecay = -0.1}),
            "SGD: weightDecay must be finite and >= 0, got -0.1");
}

TEST(Optimizer, StepScalarsFollowTheScheduleAndBiasCorrections) {
  const AdamW adamw{.lr = lr::staircase(0.1, 2, 0.5), .beta1 = 0.8, .beta2 = 0.9};
  const auto at3 = training::stepScalars(adamw, 3);
  ASSERT_EQ(at3.size(), 3u);
  EXPECT_EQ(at3[0].first, training::kLearningRate);
  EXPECT_DOUBLE_EQ(at3[0].second, 0.05);
  EXPECT_EQ(at3[1].first, training::kBiasCorrection1);
  EXPECT_DOUBLE_EQ(at3[1].second, 1.0 - std::pow(0.8, 4));
  EXPECT_DOUBLE_EQ(at3[2].second, 1.0 - std::pow(0.9, 4));
  const auto sgd = training::stepScalars(SGD{.lr = 0.25}, 0);
  ASSERT_EQ(sgd.size(), 1u);
  EXPECT_EQ(sgd[0].second, 0.25);
}

TEST(Optimizer, BatchNormRunningStatisticsAreUpdatedAndChained) {
  const testing::TracedSpec spec = traceSpec("train_convbn");
  ir::Graph step = training::buildTrainingStep(spec.graph, spec.optimizer);
  // The layer runs twice: two chained updates of each statistic.
  EXPECT_EQ(countOps(step, OpKind::batch_norm2d_running_mean, Phase::optimizer), 2u);
  EXPECT_EQ(countOps(step, OpKind::batch_norm2d_running_var, Phase::optimizer), 2u);
  const ir::TensorId mean = testing::leafNamed(step, "bn.running_mean");
  const ir::TensorId var = testing::leafNamed(step, "bn.running_var");
  ASSERT_NE(mean, ir::kNone);
  // The last two updates are the statistics; each value is the second (chained) update.
  const std::size_t n = step.updates.size();
  ASSERT_GE(n, 2u);
  EXPECT_EQ(step.updates[n - 2].target, mean);
  EXPECT_EQ(step.updates[n - 1].target, var);
  const ir::Op& last = step.producer(step.updates[n - 2].value);
  EXPECT_EQ(last.kind, OpKind::batch_norm2d_running_mean);
  EXPECT_EQ(last.attrs->scalar, 0.1);  // momentum
  EXPECT_EQ(step.producer(last.inputs[1]).kind, OpKind::batch_norm2d_running_mean);
  EXPECT_EQ(step.producer(step.producer(last.inputs[1]).inputs[1]).out, mean);
  // Parameters: conv weight/bias, bn weight/bias, fc weight/bias = 6 updates, 12 Adam states.
  EXPECT_EQ(n, 6u + 12u + 2u);
}

TEST(Optimizer, DropoutBackwardReusesTheForwardSeed) {
  const testing::TracedSpec spec = traceSpec("train_convbn");
  ir::Graph step = training::buildTrainingStep(spec.graph, spec.optimizer);
  std::vector<const ir::Op*> forward, backward;
  for (const ir::Op& op : step.ops) {
    if (op.kind != OpKind::dropout) continue;
    (op.phase == Phase::forward ? forward : backward).push_back(&op);
  }
  ASSERT_EQ(forward.size(), 1u);
  ASSERT_EQ(backward.size(), 1u);
  EXPECT_EQ(backward[0]->attrs->seed, forward[0]->attrs->seed);
  EXPECT_EQ(backward[0]->attrs->scalar, 0.25);
  EXPECT_EQ(backward[0]->site, forward[0]->site);
}

TEST(Optimizer, ReservedNamesAreRejected) {
  testing::TracedSpec tiny = traceSpec("train_tiny");
  tiny.graph.inputs[0].name = training::kLearningRate;  // pretend the user declared it
  tiny.graph.ops[static_cast<std::size_t>(tiny.graph.inputs[0].tensor)].attrs.edit().name =
      training::kLearningRate;
  EXPECT_THROW(training::buildTrainingStep(tiny.graph, SGD{}), Error);
}

}  // namespace
}  // namespace nndna
