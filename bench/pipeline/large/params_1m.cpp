// 1,000,000 parameter tensors: 500,000 one-unit linear layers (a weight and a bias each) in a
// list, applied one after the other (issue 13 point 1: a spec with 1M parameters).
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

constexpr int kLayers = 500'000;

struct Net : Module {
  std::vector<Linear> layers = list<Linear>("layers", kLayers, 1, 1);
};

Tensor predictFn(Net& m, const Inputs& in) {
  Tensor x = in["x"];
  for (auto& layer : m.layers) x = layer(x);
  return x;
}

Tensor lossFn(Net& m, const Inputs& in) { return mean(predictFn(m, in)); }

NNDNA_SPEC(Net) {
  return {.label = "Many parameters", .loss = lossFn, .inputs = {{"x", {4, 1}}}, .predict = predictFn,
          .predictInputs = {{"x", {4, 1}}}};
}

}  // namespace
