// A small convolutional digit classifier (MNIST-style 28×28 grey images, 10 classes).
#include <nndna/nndna.hpp>

using namespace nndna;

// The examples are linked into one program: an anonymous namespace keeps each file's model types
// from colliding with another file's.
namespace {

constexpr int B = 256;        // images per batch
constexpr int SIDE = 28;      // image height and width
constexpr int C1 = 32;        // channels after the first conv
constexpr int C2 = 64;        // channels after the second conv
constexpr int HIDDEN = 128;   // classifier hidden width
constexpr int CLASSES = 10;
constexpr double DROPOUT = 0.25;

// A conv followed by BatchNorm needs no bias: BatchNorm's own shift replaces it.
const Conv2dLayerOptions CONV_NO_BIAS{.padding = 1, .bias = false};

struct DigitCNN : Module {
  Conv2d conv1{"conv1", 1, C1, 3, CONV_NO_BIAS};
  BatchNorm2d bn1{"bn1", C1};
  Conv2d conv2{"conv2", C1, C2, 3, CONV_NO_BIAS};
  BatchNorm2d bn2{"bn2", C2};
  Linear fc1{"fc1", C2 * (SIDE / 4) * (SIDE / 4), HIDDEN};
  Linear fc2{"fc2", HIDDEN, CLASSES};
};

// images [B, 1, 28, 28] -> class logits [B, 10]. Dropout only while training.
Tensor classify(const DigitCNN& m, Tensor images, bool train) {
  Tensor h = maxPool2d(relu(m.bn1(m.conv1(images))), 2);  // [B, C1, 14, 14]
  h = maxPool2d(relu(m.bn2(m.conv2(h))), 2);               // [B, C2, 7, 7]
  h = relu(m.fc1(reshape(h, {B, -1})));                    // [B, HIDDEN]
  if (train) h = dropout(h, DROPOUT);
  return m.fc2(h);                                         // [B, CLASSES]
}

Tensor lossFn(DigitCNN& m, const Inputs& in) {
  return crossEntropy(classify(m, in["images"], true), in["labels"]);
}

Tensor predictFn(DigitCNN& m, const Inputs& in) { return classify(m, in["images"], false); }

}  // namespace

NNDNA_SPEC(DigitCNN) {
  return {
      .label = "CNN digit classifier",
      .description =
          "Two 3×3 conv layers (32 and 64 channels), each with BatchNorm, ReLU and 2×2 max "
          "pooling, then a 128-unit ReLU layer with dropout 0.25 and a 10-way linear head. "
          "Classifies 28×28 grey digit images in batches of 256 with cross-entropy and SGD with "
          "Nesterov momentum.",
      .loss = lossFn,
      .inputs = {{"images", {B, 1, SIDE, SIDE}}, {"labels", {B}, i32}},
      .optimizer = SGD{.lr = lr::staircase(0.05, 2000, 0.5), .momentum = 0.9, .nesterov = true},
      .predict = predictFn,
      .predictInputs = {{"images", {B, 1, SIDE, SIDE}}},
      .dims = {{B, "B", "batch"},
               {SIDE, "S", "image side"},
               {SIDE / 2, "S/2", "side after one pool"},
               {SIDE / 4, "S/4", "side after two pools"},
               {C1, "C1", "conv1 channels"},
               {C2, "C2", "conv2 channels"},
               {HIDDEN, "H", "hidden"},
               {CLASSES, "K", "classes"}},
  };
}
