// ResNet-50 written the natural way: a loop over the stages and, inside it, a loop over each
// stage's blocks ([3, 4, 6, 3] bottlenecks; the first of each stage downsamples). The diagram
// must fold each stage's blocks on their own, never iterations of two stages together.
#include "resnet_parts.hpp"

namespace {

using namespace nndna;
using namespace resnet;

constexpr int B = 32;          // images per batch
constexpr int S = 224;         // image side
constexpr int CLASSES = 1000;  // ImageNet classes

using BottleneckStage = Stage<Bottleneck>;

struct ResNet50 : Module {
  Conv2d conv1{"conv1", 3, 64, 7, convOptions(2, 3)};
  BatchNorm2d bn1{"bn1", 64};
  std::vector<BottleneckStage> stages = [this] {
    std::vector<BottleneckStage> s;
    s.push_back(child<BottleneckStage>("layer1", 64, 64, 3, 1));
    s.push_back(child<BottleneckStage>("layer2", 256, 128, 4, 2));
    s.push_back(child<BottleneckStage>("layer3", 512, 256, 6, 2));
    s.push_back(child<BottleneckStage>("layer4", 1024, 512, 3, 2));
    return s;
  }();
  Linear fc{"fc", 2048, CLASSES};
};

Tensor classify(const ResNet50& m, Tensor images) {
  Tensor x = maxPool2d(relu(m.bn1(m.conv1(images))), 3, {.stride = 2, .padding = 1});
  for (const BottleneckStage& stage : m.stages) {
    for (const Bottleneck& block : stage.blocks) x = bottleneck(block, x);
  }
  return m.fc(mean(mean(x, -1), -1));
}

Tensor lossFn(ResNet50& m, const Inputs& in) {
  return crossEntropy(classify(m, in["images"]), in["labels"]);
}

Tensor predictFn(ResNet50& m, const Inputs& in) { return argmax(classify(m, in["images"]), -1); }

}  // namespace

NNDNA_SPEC(ResNet50) {
  return {
      .label = "ResNet-50, nested stage and block loops",
      .description = "torchvision's ResNet-50 v1.5 with the stages and blocks as two nested loops.",
      .loss = lossFn,
      .inputs = {{"images", {B, 3, S, S}}, {"labels", {B}, i32}},
      .optimizer = SGD{.lr = 0.1, .momentum = 0.9},
      .predict = predictFn,
      .predictInputs = {{"images", {B, 3, S, S}}},
      .dims = {{B, "B", "batch"}, {S, "S", "image side"}, {CLASSES, "K", "classes"}},
  };
}
