// A training step (with every internal kind the specs produce) survives the IR's JSON form:
// the reader's arity table and attribute validation know the internal kinds.
#include <gtest/gtest.h>

#include "nndna/ir_json.hpp"
#include "nndna/training.hpp"
#include "test_util.hpp"

namespace nndna {
namespace {

void expectRoundTrip(const ir::Graph& step) {
  ir::TracedModel model;
  model.train = step;
  const ir::TracedModel back = ir::tracedModelFromJson(ir::toJson(model));
  ASSERT_EQ(back.train.ops.size(), step.ops.size());
  for (std::size_t i = 0; i < step.ops.size(); ++i) {
    const ir::Op& a = step.ops[i];
    const ir::Op& b = back.train.ops[i];
    ASSERT_EQ(a.kind, b.kind) << i;
    EXPECT_EQ(a.inputs, b.inputs) << ir::opKindName(a.kind);
    EXPECT_EQ(a.phase, b.phase) << ir::opKindName(a.kind);
    EXPECT_EQ(a.attrs->dims, b.attrs->dims) << ir::opKindName(a.kind);
    EXPECT_EQ(a.attrs->scalar, b.attrs->scalar) << ir::opKindName(a.kind);
    EXPECT_EQ(a.attrs->scalar2, b.attrs->scalar2) << ir::opKindName(a.kind);
    EXPECT_EQ(a.attrs->seed, b.attrs->seed) << ir::opKindName(a.kind);
    EXPECT_EQ(back.train.tensor(b.out).shape, step.tensor(a.out).shape);
  }
  ASSERT_EQ(back.train.updates.size(), step.updates.size());
  for (std::size_t i = 0; i < step.updates.size(); ++i) {
    EXPECT_EQ(back.train.updates[i].target, step.updates[i].target);
    EXPECT_EQ(back.train.updates[i].value, step.updates[i].value);
  }
  EXPECT_EQ(back.train.state.size(), step.state.size());
  EXPECT_EQ(back.train.inputs.size(), step.inputs.size());
}

TEST(TrainingStepJson, EveryInternalKindOfTheTestSpecsRoundTrips) {
  for (const char* name : {"train_ops", "train_convbn", "train_tiny"}) {
    SCOPED_TRACE(name);
    const testing::TracedSpec spec = testing::traceSpec(name);
    expectRoundTrip(training::buildTrainingStep(spec.graph, spec.optimizer));
  }
  // SGD with momentum and Adam on the same graph: sgd_momentum, adam_* kinds.
  const testing::TracedSpec tiny = testing::traceSpec("train_tiny");
  expectRoundTrip(training::buildTrainingStep(tiny.graph, SGD{.lr = 0.1, .momentum = 0.9}));
  expectRoundTrip(training::buildTrainingStep(tiny.graph, Adam{}));
}

}  // namespace
}  // namespace nndna
