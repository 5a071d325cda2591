// Conv2d -> BatchNorm2d (called twice) -> ReLU -> maxPool2d -> dropout -> Linear ->
// crossEntropy: BatchNorm running statistics, conv and pool backward kinds, dropout seeds.
#include <nndna/nndna.hpp>

using namespace nndna;

struct ConvBn : Module {
  Conv2d conv{"conv", 3, 4, 3, {.padding = 1}};
  BatchNorm2d bn{"bn", 4};
  Linear fc{"fc", 4 * 4 * 4, 10};
};

Tensor lossFn(ConvBn& m, const Inputs& in) {
  Tensor h = m.bn(m.conv(in["image"]));
  h = m.bn(h);
  h = maxPool2d(relu(h), 2);
  h = dropout(reshape(h, {2, 4 * 4 * 4}), 0.25);
  return crossEntropy(m.fc(h), in["label"]);
}

NNDNA_SPEC(ConvBn) {
  return {.label = "conv bn", .loss = lossFn,
          .inputs = {{"image", {2, 3, 8, 8}}, {"label", {2}, i32}},
          .optimizer = AdamW{.lr = 1e-3, .weightDecay = 0.05}};
}
