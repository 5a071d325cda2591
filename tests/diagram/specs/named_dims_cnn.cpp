// A small CNN written with named dims whose sizes collide: the image side S and the width W are
// both 64, and after one pooling S/2 = 32 is the batch size. The shape rules name what the
// convolutions and pooling compute (`S/2`, `S/4`, `2·W`), so no box needs the size heuristic
// (issue 12, point 10: conv arithmetic).
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

constexpr Dim B{"B", 32, "batch"};
constexpr Dim C{"C", 3, "colour channels"};
constexpr Dim S{"S", 64, "image side"};
constexpr Dim W{"W", 64, "width"};
constexpr Dim K{"K", 10, "classes"};

struct SmallCnn : Module {
  Conv2d conv1{"conv1", C, W, 3, {.padding = 1}};
  BatchNorm2d bn1{"bn1", W};
  Conv2d conv2{"conv2", W, 2 * W, 3, {.stride = 2, .padding = 1}};
  Linear fc{"fc", 2 * W, K};
};

Tensor features(const SmallCnn& m, Tensor x) {
  Tensor h = relu(m.bn1(m.conv1(x)));
  h = maxPool2d(h, 2);
  h = relu(m.conv2(h));
  return mean(h, {-2, -1});
}

Tensor lossFn(SmallCnn& m, const Inputs& in) {
  return crossEntropy(m.fc(features(m, in["images"])), in["labels"]);
}

Tensor predictFn(SmallCnn& m, const Inputs& in) { return m.fc(features(m, in["images"])); }

}  // namespace

NNDNA_SPEC(SmallCnn) {
  return {.label = "Small CNN (named dims)",
          .description = "Two convolutions, a pooling and a linear head over 64 × 64 images.",
          .loss = lossFn,
          .inputs = {{"images", {B, C, S, S}}, {"labels", {B}, i32}},
          .optimizer = Adam{.lr = 1e-3},
          .predict = predictFn,
          .predictInputs = {{"images", {B, C, S, S}}}};
}
