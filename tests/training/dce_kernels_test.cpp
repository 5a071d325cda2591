// Dead-code elimination and kernel counts on small graphs, against hand counts (docs/ir.md
// "Kernels" gives the rule).
#include <gtest/gtest.h>

#include <array>

#include "nndna/training.hpp"
#include "test_util.hpp"

namespace nndna {
namespace {

using ir::OpKind;
using ir::Phase;
using testing::countOps;
using testing::countPhase;
using testing::traceSpec;

// train_tiny: h = fc(x); head(x) unused; loss = mean(square(h - y)); SGD without momentum.
TEST(DeadCode, TrainingStepOfTinyDropsTheUnusedHead) {
  const testing::TracedSpec tiny = traceSpec("train_tiny");
  // Forward: 4 param leaves (fc.weight, fc.bias, head.weight, head.bias) + 2 inputs (x, y)
  //   + matmul, add (fc) + matmul, add (head) + sub, square, mean = 13.
  ASSERT_EQ(tiny.graph.ops.size(), 13u);

  ir::Graph step = training::buildTrainingStep(tiny.graph, tiny.optimizer);
  // Backward (8): ones (seed); mean -> mul(1/8), broadcast_to; square -> mul(x, 2), mul(dy, .);
  //   sub -> nothing for h (same shape), nothing for y (no gradient); add -> sum_to_shape [2]
  //   for the bias, nothing for h; matmul -> permute(x), matmul for the weight (x needs none).
  // Optimizer (3): the optim.lr leaf, sgd_update x2. The head gets no gradient, so no update.
  // Before DCE 13 + 8 + 3 = 24; DCE removes the head's matmul and add: 22. The head's
  // parameter leaves stay (they are the step's interface).
  EXPECT_EQ(countPhase(step, Phase::forward), 11u);
  EXPECT_EQ(countPhase(step, Phase::backward), 8u);
  EXPECT_EQ(countPhase(step, Phase::optimizer), 3u);
  EXPECT_EQ(step.ops.size(), 22u);
  EXPECT_EQ(countOps(step, OpKind::matmul), 2u);  // fc forward + its weight gradient
  EXPECT_EQ(countOps(step, OpKind::sgd_update), 2u);
  EXPECT_EQ(countOps(step, OpKind::param_input), 4u);
  // Kernels: 22 ops - 7 leaves (4 params, x, y, optim.lr) - permute - broadcast_to = 13.
  EXPECT_EQ(training::kernelOps(step).size(), 13u);
  ASSERT_EQ(step.updates.size(), 2u);
  EXPECT_EQ(step.producer(step.updates[0].target).attrs->name, "fc.weight");
  EXPECT_EQ(step.producer(step.updates[1].target).attrs->name, "fc.bias");
}

TEST(DeadCode, CaptureKeepsTheHeadAlive) {
  const testing::TracedSpec captured = traceSpec("train_capture");
  ir::Graph step = training::buildTrainingStep(captured.graph, captured.optimizer);
  // As train_tiny (22) + the head's matmul, add and the capture op = 25.
  EXPECT_EQ(step.ops.size(), 25u);
  ASSERT_EQ(step.captures.size(), 1u);
  EXPECT_EQ(step.producer(step.captures[0].tensor).kind, OpKind::capture);
  // Kernels: 13 + matmul + add (the capture is an identity) = 15.
  EXPECT_EQ(training::kernelOps(step).size(), 15u);
}

TEST(DeadCode, GradientOfAnInputIsDead) {
  testing::TracedSpec tiny = traceSpec("train_tiny");
  ir::Graph& g = tiny.graph;
  const ir::TensorId x = testing::leafNamed(g, "x");
  const ir::TensorId w = testing::leafNamed(g, "fc.weight");
  const std::vector<ir::TensorId> grads = training::appendBackward(g, std::vector{x, w});
  ASSERT_NE(grads[0], ir::kNone);
  ASSERT_NE(grads[1], ir::kNone);
  EXPECT_EQ(g.tensor(grads[0]).shape, (Shape{4, 3}));
  // 13 forward + 7 (the 8 above minus the bias's sum_to_shape: fc.bias is not asked for)
  // + permute(W) and matmul for x's gradient = 22.
  EXPECT_EQ(g.ops.size(), 22u);
  g.updates.push_back({w, grads[1]});
  training::eliminateDeadCode(g);
  // x's gradient (2 ops) and the head (2 ops) go: 18.
  EXPECT_EQ(g.ops.size(), 18u);
  EXPECT_EQ(countOps(g, OpKind::matmul), 2u);
}

TEST(DeadCode, RenumbersDenselyAndRemapsEveryId) {
  const testing::TracedSpec tiny = traceSpec("train_tiny");
  ir::Graph step = training::buildTrainingStep(tiny.graph, tiny.optimizer);
  ASSERT_EQ(step.tensors.size(), step.ops.size());
  for (std::size_t i = 0; i < step.ops.size(); ++i) {
    const ir::Op& op = step.ops[i];
    EXPECT_EQ(op.out, static_cast<ir::TensorId>(i));
    EXPECT_EQ(step.tensor(op.out).source, static_cast<ir::OpId>(i));
    for (ir::TensorId in : op.inputs) EXPECT_LT(in, op.out);  // still topological
  }
  EXPECT_EQ(step.producer(step.outputs[0]).kind, OpKind::mean);
  for (const ir::Param& p : step.params) EXPECT_EQ(step.producer(p.tensor).attrs->name, p.name);
  for (const ir::NamedTensor& in : step.inputs) {
    EXPECT_EQ(step.producer(in.tensor).attrs->name, in.name);
  }
  for (const ir::Update& u : step.updates) {
    EXPECT_EQ(step.producer(u.value).kind, OpKind::sgd_update);
    EXPECT_EQ(step.producer(u.value).inputs[0], u.target);
  }
}

// Graphs from a file need not number tensors in op order: their survivors are renumbered the
// same way (tensors cannot then be moved down in place, as they are for traced graphs).
TEST(DeadCode, TensorsOutOfOpOrderAreRenumberedAlike) {
  using Outs = std::array<ir::TensorId, 4>;  // the tensor each op makes
  auto graphWithOuts = [](const Outs& outs) {
    ir::Graph g;
    g.tensors.resize(4);
    // Each op's tensor has a shape of its own, so a survivor given another op's tensor shows.
    auto add = [&](OpKind kind, std::vector<ir::TensorId> inputs, ir::TensorId out) {
      const Shape s{static_cast<std::int64_t>(g.ops.size()) + 1};
      ir::Op op;
      op.kind = kind;
      op.inputs = std::move(inputs);
      op.out = out;
      const auto source = static_cast<ir::OpId>(g.ops.size());
      g.tensors[static_cast<std::size_t>(out)] = {s, DType::f32, source};
      g.ops.push_back(std::move(op));
    };
    add(OpKind::tensor_input, {}, outs[0]);  // x
    add(OpKind::relu, {outs[0]}, outs[1]);   // h = relu(x)
    add(OpKind::tanh, {outs[0]}, outs[2]);   // dead
    add(OpKind::exp, {outs[1]}, outs[3]);    // y = exp(h)
    g.inputs = {{"x", outs[0]}};
    g.outputs = {outs[3]};
    return g;
  };
  for (const Outs& outs : {Outs{0, 1, 2, 3}, Outs{2, 0, 3, 1}}) {
    ir::Graph g = graphWithOuts(outs);
    training::eliminateDeadCode(g);
    ASSERT_EQ(g.ops.size(), 3u);
    ASSERT_EQ(g.tensors.size(), 3u);
    EXPECT_EQ(g.ops[0].kind, OpKind::tensor_input);
    EXPECT_EQ(g.ops[1].kind, OpKind::relu);
    EXPECT_EQ(g.ops[2].kind, OpKind::exp);
    const std::array<Shape, 3> shapes = {Shape{1}, Shape{2}, Shape{4}};  // the dead tanh's was {3}
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(g.ops[i].out, static_cast<ir::TensorId>(i));
      EXPECT_EQ(g.tensors[i].source, static_cast<ir::OpId>(i));
      EXPECT_EQ(g.tensors[i].shape, shapes[i]);
    }
    EXPECT_EQ(g.ops[1].inputs, (std::vector<ir::TensorId>{0}));
    EXPECT_EQ(g.ops[2].inputs, (std::vector<ir::TensorId>{1}));
    EXPECT_EQ(g.inputs[0].tensor, 0);
    EXPECT_EQ(g.outputs, (std::vector<ir::TensorId>{2}));
  }
}

TEST(DeadCode, RunningTwiceChangesNothing) {
  const testing::TracedSpec tiny = traceSpec("train_convbn");
  ir::Graph step = training::buildTrainingStep(tiny.graph, tiny.optimizer);
  const std::size_t ops = step.ops.size();
  training::eliminateDeadCode(step);
  EXPECT_EQ(step.ops.size(), ops);
}

TEST(Kernels, LeavesViewsAndIdentitiesAreNotKernels) {
  for (OpKind kind : {OpKind::param_input, OpKind::tensor_input, OpKind::state_input,
                      OpKind::reshape, OpKind::permute, OpKind::broadcast_to,
                      OpKind::split_heads, OpKind::stop_gradient, OpKind::capture}) {
    EXPECT_FALSE(training::isKernelKind(kind)) << ir::opKindName(kind);
  }
  for (OpKind kind : {OpKind::matmul, OpKind::add, OpKind::ones, OpKind::merge_heads,
                      OpKind::narrow, OpKind::sum_to_shape, OpKind::conv2d_input_grad,
                      OpKind::adam_update, OpKind::batch_norm2d_running_var}) {
    EXPECT_TRUE(training::isKernelKind(kind)) << ir::opKindName(kind);
  }
}

TEST(Kernels, AttentionForwardCountsByHand) {
  // train_ops' forward, counted for the attention part only: split = 3 narrows (kernels),
  // 3 split_heads (views), 2 rope (kernels), swapAxes (a permute: view).
  const testing::TracedSpec spec = traceSpec("train_ops");
  const std::vector<ir::OpId> kernels = training::kernelOps(spec.graph);
  std::size_t narrows = 0, heads = 0, ropes = 0;
  for (ir::OpId id : kernels) {
    const OpKind k = spec.graph.op(id).kind;
    narrows += k == OpKind::narrow;
    heads += k == OpKind::split_heads || k == OpKind::merge_heads;
    ropes += k == OpKind::rope;
  }
  EXPECT_EQ(narrows, 3u + 2u);  // split's three + the two narrows of the tail
  EXPECT_EQ(heads, 1u);         // mergeHeads only
  EXPECT_EQ(ropes, 2u);
  std::size_t leaves = 0, views = 0;
  for (const ir::Op& op : spec.graph.ops) {
    leaves += ir::isLeafKind(op.kind);
    views += !ir::isLeafKind(op.kind) && !training::isKernelKind(op.kind);
  }
  EXPECT_EQ(kernels.size() + leaves + views, spec.graph.ops.size());
}

}  // namespace
}  // namespace nndna
