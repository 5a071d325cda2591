// ResNet-18 written the natural way ([2, 2, 2, 2] basic blocks; stages 2-4 begin with a
// downsampling block): stages 2-4 have one structure at three widths, so they may fold as one
// loop whose boxes show every width.
#include "resnet_parts.hpp"

using ResNet18 = resnet::NestedResNet<resnet::BasicBlock, 2, 2, 2, 2>;

NNDNA_SPEC(ResNet18) {
  return resnet::imageNetSpec<ResNet18, &resnet::classifyNested<ResNet18>>(
      "ResNet-18, nested stage and block loops",
      "torchvision's ResNet-18 with the stages and blocks as two nested loops.");
}
