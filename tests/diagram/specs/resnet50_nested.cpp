// ResNet-50 written the natural way: a loop over the stages and, inside it, a loop over each
// stage's blocks ([3, 4, 6, 3] bottlenecks; the first of each stage downsamples). The diagram
// must fold each stage's blocks on their own, never iterations of two stages together.
#include "resnet_parts.hpp"

using ResNet50 = resnet::NestedResNet<resnet::Bottleneck, 3, 4, 6, 3>;

NNDNA_SPEC(ResNet50) {
  return resnet::imageNetSpec<ResNet50, &resnet::classifyNested<ResNet50>>(
      "ResNet-50, nested stage and block loops",
      "torchvision's ResNet-50 v1.5 with the stages and blocks as two nested loops.");
}
