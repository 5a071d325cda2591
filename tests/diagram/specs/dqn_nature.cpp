// The Nature DQN (Mnih et al. 2015) for Breakout's 4 actions: three convolutions over 4 stacked
// 84×84 frames (84 -> 20 -> 9 -> 7), a 512-unit layer, one Q-value per action. Trained with the
// Huber loss of the taken action's Q-value against its target, on minibatches of 32.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 32;
constexpr int FRAMES = 4;
constexpr int SIDE = 84;
constexpr int ACTIONS = 4;

struct Dqn : Module {
  Conv2d conv1{"conv1", FRAMES, 32, 8, {.stride = 4}};
  Conv2d conv2{"conv2", 32, 64, 4, {.stride = 2}};
  Conv2d conv3{"conv3", 64, 64, 3};
  Linear fc1{"fc1", 64 * 7 * 7, 512};
  Linear fc2{"fc2", 512, ACTIONS};
};

Tensor qValues(const Dqn& m, Tensor frames) {
  Tensor x = relu(m.conv1(frames));  // [B, 32, 20, 20]
  x = relu(m.conv2(x));              // [B, 64, 9, 9]
  x = relu(m.conv3(x));              // [B, 64, 7, 7]
  return m.fc2(relu(m.fc1(flatten(x, 1))));
}

Tensor lossFn(Dqn& m, const Inputs& in) {
  Tensor taken = takeAlongAxis(qValues(m, in["frames"]), in["actions"], 1);  // [B, 1]
  return huberLoss(taken, in["targets"]);
}
Tensor predictFn(Dqn& m, const Inputs& in) { return qValues(m, in["frames"]); }

}  // namespace

NNDNA_SPEC(Dqn) {
  return {.label = "Nature DQN",
          .description = "Q-values of 4 actions from 4 stacked frames; Huber loss of the taken action's value.",
          .loss = lossFn,
          .inputs = {{"frames", {B, FRAMES, SIDE, SIDE}}, {"actions", {B, 1}, i32}, {"targets", {B, 1}}},
          .optimizer = Adam{.lr = 1e-4},
          .predict = predictFn,
          .predictInputs = {{"frames", {B, FRAMES, SIDE, SIDE}}}};
}
