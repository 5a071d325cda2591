// ResNet-50 with its four stages as four explicit calls of one stage function, each looping over
// its blocks: the boundaries between the stages' loops are ordinary forward edges.
#include "resnet_parts.hpp"

namespace {

using namespace nndna;
using namespace resnet;

constexpr int B = 32;
constexpr int S = 224;
constexpr int CLASSES = 1000;

using BottleneckStage = Stage<Bottleneck>;

struct ResNet50 : Module {
  Conv2d conv1{"conv1", 3, 64, 7, convOptions(2, 3)};
  BatchNorm2d bn1{"bn1", 64};
  BottleneckStage layer1 = child<BottleneckStage>("layer1", 64, 64, 3, 1);
  BottleneckStage layer2 = child<BottleneckStage>("layer2", 256, 128, 4, 2);
  BottleneckStage layer3 = child<BottleneckStage>("layer3", 512, 256, 6, 2);
  BottleneckStage layer4 = child<BottleneckStage>("layer4", 1024, 512, 3, 2);
  Linear fc{"fc", 2048, CLASSES};
};

Tensor stage(const BottleneckStage& s, Tensor x) {
  for (const Bottleneck& block : s.blocks) x = bottleneck(block, x);
  return x;
}

Tensor classify(const ResNet50& m, Tensor images) {
  Tensor x = maxPool2d(relu(m.bn1(m.conv1(images))), 3, {.stride = 2, .padding = 1});
  x = stage(m.layer1, x);
  x = stage(m.layer2, x);
  x = stage(m.layer3, x);
  x = stage(m.layer4, x);
  return m.fc(mean(mean(x, -1), -1));
}

Tensor lossFn(ResNet50& m, const Inputs& in) {
  return crossEntropy(classify(m, in["images"]), in["labels"]);
}

Tensor predictFn(ResNet50& m, const Inputs& in) { return argmax(classify(m, in["images"]), -1); }

}  // namespace

NNDNA_SPEC(ResNet50) {
  return {
      .label = "ResNet-50, one call per stage",
      .description = "torchvision's ResNet-50 v1.5 with its stages as four explicit calls.",
      .loss = lossFn,
      .inputs = {{"images", {B, 3, S, S}}, {"labels", {B}, i32}},
      .optimizer = SGD{.lr = 0.1, .momentum = 0.9},
      .predict = predictFn,
      .predictInputs = {{"images", {B, 3, S, S}}},
      .dims = {{B, "B", "batch"}, {S, "S", "image side"}, {CLASSES, "K", "classes"}},
  };
}
