// SqueezeNet 1.0 as torchvision builds it (squeezenet1_0): its three max pools use PyTorch's
// ceil_mode, which keeps a last, partial window: 224 -> conv 7×7/2 109 -> 54 -> 27 -> 13 (with
// floor division the same pools give 54, 26, 12). Fire(in, squeeze, expand1x1, expand3x3).
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 1;
constexpr int SIDE = 224;
constexpr int CLASSES = 1000;

struct Fire : Module {
  Conv2d squeeze, expand1, expand3;
  Fire(int in, int s, int e1, int e3)
      : squeeze("squeeze", in, s, 1), expand1("expand1x1", s, e1, 1),
        expand3("expand3x3", s, e3, 3, {.padding = 1}) {}
};

Tensor fire(const Fire& f, Tensor x) {
  Tensor s = relu(f.squeeze(x));
  return concat({relu(f.expand1(s)), relu(f.expand3(s))}, 1);
}

struct SqueezeNet : Module {
  Conv2d conv1{"conv1", 3, 96, 7, {.stride = 2}};
  Fire fire2 = child<Fire>("fire2", 96, 16, 64, 64);
  Fire fire3 = child<Fire>("fire3", 128, 16, 64, 64);
  Fire fire4 = child<Fire>("fire4", 128, 32, 128, 128);
  Fire fire5 = child<Fire>("fire5", 256, 32, 128, 128);
  Fire fire6 = child<Fire>("fire6", 256, 48, 192, 192);
  Fire fire7 = child<Fire>("fire7", 384, 48, 192, 192);
  Fire fire8 = child<Fire>("fire8", 384, 64, 256, 256);
  Fire fire9 = child<Fire>("fire9", 512, 64, 256, 256);
  Conv2d classifier{"classifier", 512, CLASSES, 1};
};

Tensor classify(const SqueezeNet& m, Tensor images) {
  const MaxPool2dOptions pool{.stride = 2, .ceilMode = true};
  Tensor x = maxPool2d(relu(m.conv1(images)), 3, pool);                           // [B, 96, 54, 54]
  x = maxPool2d(fire(m.fire4, fire(m.fire3, fire(m.fire2, x))), 3, pool);           // [B, 256, 27, 27]
  x = maxPool2d(fire(m.fire8, fire(m.fire7, fire(m.fire6, fire(m.fire5, x)))), 3, pool);  // [B, 512, 13, 13]
  x = relu(m.classifier(fire(m.fire9, x)));                                          // [B, 1000, 13, 13]
  return flatten(adaptiveAvgPool2d(x, 1), 1);                                        // [B, 1000]
}

Tensor lossFn(SqueezeNet& m, const Inputs& in) { return crossEntropy(classify(m, in["images"]), in["labels"]); }
Tensor predictFn(SqueezeNet& m, const Inputs& in) { return classify(m, in["images"]); }

}  // namespace

NNDNA_SPEC(SqueezeNet) {
  return {.label = "SqueezeNet 1.0",
          .description = "torchvision's squeezenet1_0: Fire modules between ceil_mode max pools.",
          .loss = lossFn,
          .inputs = {{"images", {B, 3, SIDE, SIDE}}, {"labels", {B}, i32}},
          .optimizer = Adam{.lr = 1e-3},
          .predict = predictFn,
          .predictInputs = {{"images", {B, 3, SIDE, SIDE}}}};
}
