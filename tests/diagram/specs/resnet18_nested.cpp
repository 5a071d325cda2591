// ResNet-18 written the natural way ([2, 2, 2, 2] basic blocks; stages 2-4 begin with a
// downsampling block): stages 2-4 have one structure at three widths, so they may fold as one
// loop whose boxes show every width.
#include "resnet_parts.hpp"

namespace {

using namespace nndna;
using namespace resnet;

constexpr int B = 32;
constexpr int S = 224;
constexpr int CLASSES = 1000;

using BasicStage = Stage<BasicBlock>;

struct ResNet18 : Module {
  Conv2d conv1{"conv1", 3, 64, 7, convOptions(2, 3)};
  BatchNorm2d bn1{"bn1", 64};
  std::vector<BasicStage> stages = [this] {
    std::vector<BasicStage> s;
    s.push_back(child<BasicStage>("layer1", 64, 64, 2, 1));
    s.push_back(child<BasicStage>("layer2", 64, 128, 2, 2));
    s.push_back(child<BasicStage>("layer3", 128, 256, 2, 2));
    s.push_back(child<BasicStage>("layer4", 256, 512, 2, 2));
    return s;
  }();
  Linear fc{"fc", 512, CLASSES};
};

Tensor classify(const ResNet18& m, Tensor images) {
  Tensor x = maxPool2d(relu(m.bn1(m.conv1(images))), 3, {.stride = 2, .padding = 1});
  for (const BasicStage& stage : m.stages) {
    for (const BasicBlock& block : stage.blocks) x = basicBlock(block, x);
  }
  return m.fc(mean(mean(x, -1), -1));
}

Tensor lossFn(ResNet18& m, const Inputs& in) {
  return crossEntropy(classify(m, in["images"]), in["labels"]);
}

Tensor predictFn(ResNet18& m, const Inputs& in) { return argmax(classify(m, in["images"]), -1); }

}  // namespace

NNDNA_SPEC(ResNet18) {
  return {
      .label = "ResNet-18, nested stage and block loops",
      .description = "torchvision's ResNet-18 with the stages and blocks as two nested loops.",
      .loss = lossFn,
      .inputs = {{"images", {B, 3, S, S}}, {"labels", {B}, i32}},
      .optimizer = SGD{.lr = 0.1, .momentum = 0.9},
      .predict = predictFn,
      .predictInputs = {{"images", {B, 3, S, S}}},
      .dims = {{B, "B", "batch"}, {S, "S", "image side"}, {CLASSES, "K", "classes"}},
  };
}
