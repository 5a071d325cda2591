// ResNet-50 with its four stages as four explicit calls of one stage function, each looping over
// its blocks: the boundaries between the stages' loops are ordinary forward edges.
#include "resnet_parts.hpp"

namespace {

using namespace nndna;
using namespace resnet;

using BottleneckStage = Stage<Bottleneck>;

struct ResNet50 : Module {
  Conv2d conv1{"conv1", 3, 64, 7, convOptions(2, 3)};
  BatchNorm2d bn1{"bn1", 64};
  BottleneckStage layer1 = child<BottleneckStage>("layer1", 64, 64, 3, 1);
  BottleneckStage layer2 = child<BottleneckStage>("layer2", 256, 128, 4, 2);
  BottleneckStage layer3 = child<BottleneckStage>("layer3", 512, 256, 6, 2);
  BottleneckStage layer4 = child<BottleneckStage>("layer4", 1024, 512, 3, 2);
  Linear fc{"fc", 2048, kClasses};
};

Tensor stage(const BottleneckStage& s, Tensor x) {
  for (const Bottleneck& block : s.blocks) x = residualBlock(block, x);
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

}  // namespace

NNDNA_SPEC(ResNet50) {
  return imageNetSpec<ResNet50, &classify>(
      "ResNet-50, one call per stage",
      "torchvision's ResNet-50 v1.5 with its stages as four explicit calls.");
}
