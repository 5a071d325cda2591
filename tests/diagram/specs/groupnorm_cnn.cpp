// A small CNN normalised with GroupNorm and pooled by global average pooling (the pattern of
// ResNets trained with small batches, and of diffusion U-Nets): two 3×3 convolutions, the second
// with stride 2, each followed by GroupNorm(8 groups) and ReLU; adaptiveAvgPool2d to 1×1; a
// linear head to 10 classes.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 4;        // images per batch
constexpr int SIDE = 32;    // image side
constexpr int CLASSES = 10;

struct GroupNormCnn : Module {
  Conv2d conv1{"conv1", 3, 32, 3, {.padding = 1}};
  GroupNorm gn1{"gn1", 8, 32};
  Conv2d conv2{"conv2", 32, 64, 3, {.stride = 2, .padding = 1}};
  GroupNorm gn2{"gn2", 8, 64};
  Linear head{"head", 64, CLASSES};
};

Tensor logits(const GroupNormCnn& m, Tensor images) {
  Tensor h = relu(m.gn1(m.conv1(images)));        // [B, 32, 32, 32]
  h = relu(m.gn2(m.conv2(h)));                    // [B, 64, 16, 16]
  Tensor pooled = adaptiveAvgPool2d(h, 1);        // [B, 64, 1, 1]
  return m.head(reshape(pooled, {B, 64}));        // [B, 10]
}

Tensor lossFn(GroupNormCnn& m, const Inputs& in) {
  return crossEntropy(logits(m, in["images"]), in["labels"]);
}
Tensor predictFn(GroupNormCnn& m, const Inputs& in) { return logits(m, in["images"]); }

}  // namespace

NNDNA_SPEC(GroupNormCnn) {
  return {.label = "GroupNorm CNN",
          .description = "Two convolutions with GroupNorm, global average pooling, a linear head.",
          .loss = lossFn,
          .inputs = {{"images", {B, 3, SIDE, SIDE}}, {"labels", {B}, i32}},
          .optimizer = SGD{.lr = 0.1, .momentum = 0.9},
          .predict = predictFn,
          .predictInputs = {{"images", {B, 3, SIDE, SIDE}}},
          .dims = {{B, "B", "batch"}}};
}
