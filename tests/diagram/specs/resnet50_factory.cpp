// ResNet-50 with each stage a factory list, as torchvision names it (`layer2.0.downsample.conv`):
// the first block of a stage takes the stage's input width and stride, the others do not, so the
// blocks differ in shape and only the first holds the optional downsampling shortcut.
#include "resnet_parts.hpp"

namespace {

using namespace nndna;
using resnet::Bottleneck;

struct ResNet50 : Module {
  Conv2d conv1{"conv1", 3, 64, 7, resnet::convOptions(2, 3)};
  BatchNorm2d bn1{"bn1", 64};
  std::vector<Bottleneck> layer1 = list<Bottleneck>("layer1", 3, [](std::int64_t i) {
    return Bottleneck(i == 0 ? 64 : 256, 64, 1);
  });
  std::vector<Bottleneck> layer2 = list<Bottleneck>("layer2", 4, [](std::int64_t i) {
    return Bottleneck(i == 0 ? 256 : 512, 128, i == 0 ? 2 : 1);
  });
  std::vector<Bottleneck> layer3 = list<Bottleneck>("layer3", 6, [](std::int64_t i) {
    return Bottleneck(i == 0 ? 512 : 1024, 256, i == 0 ? 2 : 1);
  });
  std::vector<Bottleneck> layer4 = list<Bottleneck>("layer4", 3, [](std::int64_t i) {
    return Bottleneck(i == 0 ? 1024 : 2048, 512, i == 0 ? 2 : 1);
  });
  Linear fc{"fc", 2048, resnet::kClasses};
};

Tensor classify(const ResNet50& m, Tensor images) {
  Tensor x = maxPool2d(relu(m.bn1(m.conv1(images))), 3, {.stride = 2, .padding = 1});
  for (const auto* stage : {&m.layer1, &m.layer2, &m.layer3, &m.layer4}) {
    for (const Bottleneck& block : *stage) x = resnet::residualBlock(block, x);
  }
  return m.fc(mean(mean(x, -1), -1));
}

}  // namespace

NNDNA_SPEC(ResNet50) {
  return resnet::imageNetSpec<ResNet50, &classify>(
      "ResNet-50, stages as factory lists",
      "torchvision's ResNet-50 v1.5, each stage a list<Bottleneck> built by a factory.");
}
