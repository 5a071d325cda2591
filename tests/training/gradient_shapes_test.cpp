// appendBackward on every registered spec (the examples and this folder's specs): each
// parameter's gradient has the parameter's shape; backward ops point at the spec lines.
#include <gtest/gtest.h>

#include "nndna/training.hpp"
#include "test_util.hpp"

namespace nndna {
namespace {

using ir::OpKind;
using ir::Phase;

TEST(GradientShapes, EveryParameterOfEveryRegisteredSpec) {
  std::size_t specs = 0;
  for (const RegisteredSpec& registered : registeredSpecs()) {
    SCOPED_TRACE(registered.name);
    const LoadedSpec loaded = loadSpec(registered);
    ir::Graph g = trace(loaded);
    std::vector<ir::TensorId> wrt;
    for (const ir::Param& p : g.params) wrt.push_back(p.tensor);
    const std::vector<ir::TensorId> grads = training::appendBackward(g, wrt);
    ASSERT_EQ(grads.size(), wrt.size());
    std::size_t withGradient = 0;
    for (std::size_t i = 0; i < wrt.size(); ++i) {
      if (grads[i] == ir::kNone) continue;
      ++withGradient;
      EXPECT_EQ(g.tensor(grads[i]).shape, g.tensor(wrt[i]).shape) << g.params[i].name;
      EXPECT_EQ(g.tensor(grads[i]).dtype, DType::f32) << g.params[i].name;
    }
    EXPECT_GT(withGradient, 0u);
    // Every tensor is made by the op that names it and reads only earlier tensors.
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
      const ir::Op& op = g.ops[i];
      ASSERT_EQ(g.tensor(op.out).source, static_cast<ir::OpId>(i));
      for (ir::TensorId in : op.inputs) ASSERT_LT(in, op.out) << ir::opKindName(op.kind);
    }
    // The whole step builds too, and updates every parameter that has a gradient.
    const ir::Graph step = training::buildTrainingStep(trace(loaded), loaded.spec.optimizer);
    std::size_t paramUpdates = 0;
    for (const ir::Update& u : step.updates) {
      EXPECT_EQ(step.tensor(u.target).shape, step.tensor(u.value).shape);
      paramUpdates += step.producer(u.target).kind == OpKind::param_input;
    }
    EXPECT_EQ(paramUpdates, withGradient);
    ++specs;
  }
  EXPECT_GE(specs, 8u);  // the examples (at least mlp_sin, diffusion_denoiser, gpt2_small, ...)
}

TEST(GradientShapes, EveryAdjointRuleOfTheApiOnOnePath) {
  testing::TracedSpec spec = testing::traceSpec("train_ops");
  ir::Graph& g = spec.graph;
  const std::size_t forwardOps = g.ops.size();
  std::vector<ir::TensorId> wrt;
  for (const ir::Param& p : g.params) wrt.push_back(p.tensor);
  const std::vector<ir::TensorId> grads = training::appendBackward(g, wrt);
  for (std::size_t i = 0; i < wrt.size(); ++i) {
    ASSERT_NE(grads[i], ir::kNone) << g.params[i].name;
    EXPECT_EQ(g.tensor(grads[i]).shape, g.tensor(wrt[i]).shape) << g.params[i].name;
  }
  // The internal kinds that this path must produce, once or more each.
  for (OpKind kind :
       {OpKind::embedding_grad, OpKind::layer_norm_input_grad, OpKind::layer_norm_weight_grad,
        OpKind::rms_norm_input_grad, OpKind::rms_norm_weight_grad, OpKind::rope_grad,
        OpKind::softmax_grad, OpKind::log_softmax_grad, OpKind::cross_entropy_grad,
        OpKind::nll_loss_grad, OpKind::take_along_axis_grad, OpKind::narrow_grad,
        OpKind::conv2d_input_grad, OpKind::conv2d_weight_grad, OpKind::max_pool2d_grad,
        OpKind::nearest_upsample2d_grad, OpKind::relu_grad, OpKind::gelu_grad, OpKind::silu_grad,
        OpKind::tanh_grad, OpKind::sigmoid_grad, OpKind::leaky_relu_grad, OpKind::softplus_grad,
        OpKind::clamp_grad, OpKind::abs_grad, OpKind::sum_to_shape, OpKind::broadcast_to}) {
    EXPECT_GE(testing::countOps(g, kind, Phase::backward), 1u) << ir::opKindName(kind);
  }
  // Forward kinds reused by the backward.
  for (OpKind kind : {OpKind::merge_heads, OpKind::split_heads, OpKind::where_causal,
                      OpKind::dropout, OpKind::narrow, OpKind::matmul}) {
    EXPECT_GE(testing::countOps(g, kind, Phase::backward), 1u) << ir::opKindName(kind);
  }
  // Every backward op points at a spec line: the site of the forward op it differentiates.
  for (std::size_t i = forwardOps; i < g.ops.size(); ++i) {
    EXPECT_EQ(g.ops[i].phase, Phase::backward);
    EXPECT_NE(g.ops[i].site, ir::kNone) << ir::opKindName(g.ops[i].kind);
  }
  // Shapes of a few gradients, by hand: the conv's input gradient is the upsampled image
  // [B, 2, 2T, 2D] = [2, 2, 8, 16]; the embedding's gradient is the table [V, D] = [11, 8].
  for (std::size_t i = forwardOps; i < g.ops.size(); ++i) {
    if (g.ops[i].kind == OpKind::conv2d_input_grad) {
      EXPECT_EQ(g.tensor(g.ops[i].out).shape, (Shape{2, 2, 8, 16}));
    }
    if (g.ops[i].kind == OpKind::embedding_grad) {
      EXPECT_EQ(g.tensor(g.ops[i].out).shape, (Shape{11, 8}));
      EXPECT_EQ(g.ops[i].attrs->count, 11);
    }
  }
}

TEST(GradientShapes, StopGradientAndIntegerPathsGiveNone) {
  testing::TracedSpec spec = testing::traceSpec("train_tiny");
  ir::Graph& g = spec.graph;
  const ir::TensorId head = testing::leafNamed(g, "head.weight");
  const ir::TensorId y = testing::leafNamed(g, "y");
  const std::vector<ir::TensorId> grads = training::appendBackward(g, std::vector{head, y});
  EXPECT_EQ(grads[0], ir::kNone);  // the loss does not read the head
  ASSERT_NE(grads[1], ir::kNone);  // y is an input, but asked for
  EXPECT_EQ(g.producer(grads[1]).kind, OpKind::neg);
  EXPECT_EQ(g.tensor(grads[1]).shape, (Shape{4, 2}));
}

TEST(GradientShapes, AnOpWithoutAdjointNamesTheSpecLine) {
  // Every forward kind has an adjoint; the kinds without one (Grad::unsupported) are the backward
  // kinds: differentiating through one would be second-order autodiff. Turn the second
  // batch_norm2d (line 15) into its input-gradient kind (dy = x, x, weight), a backward op, and
  // differentiate the loss through it.
  testing::TracedSpec spec = testing::traceSpec("train_convbn");
  ir::Graph& g = spec.graph;
  ir::Op* second = nullptr;
  for (ir::Op& op : g.ops) {
    if (op.kind == OpKind::batch_norm2d) second = &op;
  }
  ASSERT_NE(second, nullptr);
  second->kind = OpKind::batch_norm2d_input_grad;
  second->attrs.edit().scalar2 = 0.0;  // the momentum of the training form
  second->inputs = {second->inputs[0], second->inputs[0], second->inputs[1]};
  second->phase = ir::Phase::backward;
  const ir::TensorId w = testing::leafNamed(g, "conv.weight");
  try {
    training::appendBackward(g, std::vector{w});
    FAIL() << "expected a TraceError";
  } catch (const TraceError& e) {
    EXPECT_NE(e.file().find("train_convbn.cpp"), std::string::npos) << e.what();
    EXPECT_EQ(e.line(), 15) << e.what();
    EXPECT_EQ(e.op(), "batch_norm2d_input_grad");
  }
}

TEST(GradientShapes, RejectsANonScalarLoss) {
  testing::TracedSpec spec = testing::traceSpec("train_tiny");
  spec.graph.outputs[0] = testing::leafNamed(spec.graph, "x");
  EXPECT_THROW(training::appendBackward(spec.graph, std::vector<ir::TensorId>{}),
               Error);
}

}  // namespace
}  // namespace nndna
