// A reinforcement-learning network over observation vectors. By default a deep Q-network: the
// online network's Q-value of the action taken is pulled toward the reward plus the discounted
// value of the next state, as chosen by the online network and valued by a target network
// (double DQN). As a policy-gradient agent, a policy network's log-probability of the action
// taken is weighted by its advantage (REINFORCE with a baseline).
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

constexpr int B = 64;          // transitions per batch
constexpr int OBS = 8;         // observation features
constexpr int HIDDEN = 128;    // hidden width
constexpr int N_LAYERS = 3;    // Linear layers in all
constexpr int ACTIONS = 4;     // discrete actions
constexpr double GAMMA = 0.99;  // discount  //[!pg]

struct Network : Module {
  Linear input{"input", OBS, HIDDEN};
  std::vector<Linear> hidden = list<Linear>("hidden", N_LAYERS - 2, HIDDEN, HIDDEN);
  Linear output{"output", HIDDEN, ACTIONS};
};

struct Agent : Module {
  Network online = child<Network>("online");  //[!pg]
  Network target = child<Network>("target");  // a lagging copy of online, never trained by gradients  //[!pg]
  //[pg] Network policy = child<Network>("policy");
};

// observations [B, OBS] -> one value per action [B, ACTIONS] (Q-values or policy logits).
Tensor evaluate(const Network& n, Tensor observations) {
  Tensor h = relu(n.input(observations));
  for (const Linear& layer : n.hidden) h = relu(layer(h));
  return n.output(h);
}

// The value of the action taken: [B, ACTIONS] and i32 [B, 1] -> [B, 1].
Tensor ofAction(Tensor values, Tensor actions) { return takeAlongAxis(values, actions, -1); }

Tensor lossFn(Agent& m, const Inputs& in) {
  Tensor q = ofAction(evaluate(m.online, in["obs"]), in["actions"]);                      //[!pg]
  Tensor next = reshape(argmax(evaluate(m.online, in["nextObs"]), -1), {B, 1});           //[!pg]
  Tensor nextValue = stopGradient(ofAction(evaluate(m.target, in["nextObs"]), next));    //[!pg]
  Tensor target = add(in["rewards"], mul(mul(sub(1.0, in["done"]), nextValue), GAMMA));  //[!pg]
  return mean(square(sub(q, target)));                                                   //[!pg]
  //[pg] Tensor logProbs = logSoftmax(evaluate(m.policy, in["obs"]));
  //[pg] return neg(mean(mul(ofAction(logProbs, in["actions"]), in["advantages"])));
}

Tensor predictFn(Agent& m, const Inputs& in) {
  return argmax(evaluate(m.online, in["obs"]), -1);  // the greedy action [B]  //[!pg]
  //[pg] return categorical(evaluate(m.policy, in["obs"]));  // a sampled action [B]
}

}  // namespace

NNDNA_SPEC(Agent) {
  return {
      .label = "Deep Q-network",
      .description =
          "A double DQN over 8-feature observations: an MLP of 3 Linear layers (128 ReLU units) "
          "gives a Q-value per action for 4 actions; its Q of the action taken is regressed on "
          "the reward plus the discounted target-network value (gamma 0.99) of the next state's "
          "best action. Batches of 64 transitions, Adam.",
      .loss = lossFn,
      .inputs = {{"obs", {B, OBS}}, {"actions", {B, 1}, i32}, {"rewards", {B, 1}}, {"nextObs", {B, OBS}},  //[!pg]
                 {"done", {B, 1}}},  //[!pg]
      //[pg] .inputs = {{"obs", {B, OBS}}, {"actions", {B, 1}, i32}, {"advantages", {B, 1}}},
      .optimizer = Adam{.lr = 1e-3},
      .predict = predictFn,
      .predictInputs = {{"obs", {B, OBS}}},
      .dims = {{B, "B", "batch"}, {OBS, "O", "observation"}, {HIDDEN, "H", "hidden"}, {ACTIONS, "A", "actions"}},
  };
}
