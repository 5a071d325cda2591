// A tiny conv net: conv, BatchNorm2d, ReLU, max pooling, a grouped strided conv, a linear head.
#include <nndna/nndna.hpp>

using namespace nndna;

static Conv2dLayerOptions padded(std::int64_t padding, std::int64_t stride, std::int64_t groups) {
  Conv2dLayerOptions o;
  o.padding = padding;
  o.stride = stride;
  o.groups = groups;
  return o;
}

struct GradConvNet : Module {
  Conv2d c1{"c1", 1, 4, 3, padded(1, 1, 1)};
  BatchNorm2d bn{"bn", 4};
  Conv2d c2{"c2", 4, 4, 2, padded(0, 1, 2)};
  Linear head{"head", 4, 2};
};

static Tensor lossFn(GradConvNet& m, const Inputs& in) {
  Tensor h = maxPool2d(relu(m.bn(m.c1(in["x"]))), 2);      // [2, 4, 3, 3]
  h = m.c2(h);                                               // [2, 4, 2, 2]
  h = mean(reshape(h, {2, 4, 4}), -1);                       // [2, 4]
  return crossEntropy(m.head(h), in["label"]);
}

NNDNA_SPEC(GradConvNet) {
  return {.label = "grad check: conv net",
          .description = "conv + BatchNorm + ReLU + max pool + grouped conv + linear",
          .loss = lossFn,
          .inputs = {{"x", {2, 1, 6, 6}}, {"label", {2}, DType::i32}},
          .optimizer = Adam{},
          .predict = {},
          .predictInputs = {},
          .dims = {}};
}
