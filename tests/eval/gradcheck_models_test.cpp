// Finite-difference checks of whole models: an MLP, a conv net with pooling and BatchNorm, a
// transformer block with RoPE and causal softmax, an unrolled RNN. Gradients w.r.t. every
// parameter (and the f32 data inputs).
#include "gradcheck.hpp"

namespace nndna::eval::testing {
namespace {

GradProblem modelProblem(std::string_view specName, const Feeds& feeds) {
  const RegisteredSpec* registered = findSpec(specName);
  if (registered == nullptr) throw std::logic_error("spec not linked in: " + std::string(specName));
  const LoadedSpec spec = loadSpec(*registered);
  GradProblem p;
  p.graph = trace(spec);
  // Layer-default initial values (as training starts), inputs as given.
  p.leaves = initialLeaves(p.graph, 5);
  for (const auto& [name, value] : feeds) p.leaves.inputs[name] = value;
  for (const ir::Param& param : p.graph.params) p.wrt.push_back(param.tensor);
  for (const ir::NamedTensor& input : p.graph.inputs) {
    if (p.graph.tensor(input.tensor).dtype == DType::f32) p.wrt.push_back(input.tensor);
  }
  return p;
}

TEST(GradCheckModels, Mlp) {
  checkGradients(modelProblem("grad_mlp", {{"x", randomF32({4, 3}, 40, -2, 2)},
                                           {"label", i32({4}, {0, 2, 1, 2})}}));
}

TEST(GradCheckModels, ConvNetWithPoolingAndBatchNorm) {
  checkGradients(modelProblem("grad_convnet", {{"x", randomF32({2, 1, 6, 6}, 41, -2, 2)},
                                               {"label", i32({2}, {1, 0})}}));
}

TEST(GradCheckModels, TransformerBlockWithRopeAndCausalSoftmax) {
  checkGradients(modelProblem("grad_transformer",
                              {{"tokens", i32({2, 4}, {1, 5, 2, 6, 0, 3, 3, 4})},
                               {"targets", i32({2, 4}, {5, 2, 6, 1, 3, 3, 4, 0})}}));
}

TEST(GradCheckModels, UnrolledRnn) {
  checkGradients(modelProblem("grad_rnn", {{"x", randomF32({2, 4, 3}, 42, -1, 1)},
                                           {"y", randomF32({2, 4, 1}, 43, -1, 1)}}));
}

}  // namespace
}  // namespace nndna::eval::testing
