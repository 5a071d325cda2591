// The evaluator on the small example models: three training steps with each spec's own optimizer
// and its inference graph run, every value finite, every trained parameter moved.
#include <cmath>

#include "gradcheck.hpp"

namespace nndna::eval::testing {
namespace {

// Data inputs: f32 uniform in [-1, 1], i32 zeros (a valid index and class for every model).
void feedInputs(const std::vector<InputDecl>& decls, Leaves& leaves, std::uint64_t seed) {
  for (const InputDecl& d : decls) {
    leaves.inputs[std::string(d.name)] = d.dtype == DType::f32 ? randomF32(d.shape, ++seed)
                                                  : Value::filled(d.shape, 0.0, d.dtype);
  }
}

bool allFinite(const Value& v) {
  for (const double x : v.data) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

class SmallExample : public ::testing::TestWithParam<const char*> {};

TEST_P(SmallExample, TrainsThreeStepsAndPredicts) {
  const RegisteredSpec* registered = findSpec(GetParam());
  ASSERT_NE(registered, nullptr) << GetParam();
  const LoadedSpec spec = loadSpec(*registered);
  const ir::TracedModel model = traceModel(spec);
  const Optimizer& optimizer = spec.spec.optimizer;
  const ir::Graph step = training::buildTrainingStep(model.train, optimizer);
  Leaves leaves = initialLeaves(step, 3);
  const Leaves initial = leaves;
  for (int t = 0; t < 3; ++t) {
    feedInputs(spec.spec.inputs, leaves, 10 * static_cast<std::uint64_t>(t));
    for (const auto& [name, value] : training::stepScalars(optimizer, t)) {
      leaves.inputs[name] = Value::scalar(value);
    }
    const Results r = evaluate(step, leaves, EvalOptions{static_cast<std::uint64_t>(t)});
    const Value& loss = r.at(step.outputs.at(0));
    ASSERT_TRUE(allFinite(loss)) << GetParam() << " step " << t;
    applyUpdates(step, r, leaves);
  }
  for (const ir::Update& u : step.updates) {
    const ir::Op& target = step.producer(u.target);
    if (target.kind != ir::OpKind::param_input) continue;
    const Value& now = leaves.params.at(target.attrs->name);
    EXPECT_TRUE(allFinite(now)) << target.attrs->name;
    EXPECT_NE(now.data, initial.params.at(target.attrs->name).data) << target.attrs->name;
  }
  if (!model.hasInfer) return;
  Leaves inferLeaves;
  inferLeaves.params = leaves.params;
  inferLeaves.state = leaves.state;
  feedInputs(spec.spec.predictInputs, inferLeaves, 99);
  const Value out = evaluate(model.infer, inferLeaves).at(model.infer.outputs.at(0));
  EXPECT_EQ(out.shape, model.infer.tensor(model.infer.outputs.at(0)).shape);
  EXPECT_TRUE(allFinite(out)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Examples, SmallExample,
                         ::testing::Values("mlp_sin", "diffusion_denoiser", "flow_matching", "kan",
                                           "rnn_unrolled"));

}  // namespace
}  // namespace nndna::eval::testing
