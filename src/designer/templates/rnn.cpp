// A recurrent network unrolled over time: an Elman RNN, GRU or LSTM cell reads a sequence one
// step at a time from a zero state; a linear head forecasts the next step from every state.
#include <nndna/nndna.hpp>

#include <vector>

using namespace nndna;

namespace {

constexpr int B = 32;          // sequences per batch
constexpr int T = 16;          // time steps (unrolled when traced)
constexpr int IN = 8;          // features per step
constexpr int HIDDEN = 64;     // state width

struct Recurrent : Module {
  Linear ih{"ih", IN, HIDDEN};                        //[rnn]
  Linear hh{"hh", HIDDEN, HIDDEN, {.bias = false}};   //[rnn]
  //[gru] Linear ih{"ih", IN, 3 * HIDDEN};                   // update, reset, candidate
  //[gru] Linear hh{"hh", HIDDEN, 3 * HIDDEN, {.bias = false}};
  //[lstm] Linear ih{"ih", IN, 4 * HIDDEN};                  // input, forget, cell, output gates
  //[lstm] Linear hh{"hh", HIDDEN, 4 * HIDDEN, {.bias = false}};
  Linear head{"head", HIDDEN, IN};
};

// The Elman step: the next state from the input and the state.  //[rnn]
Tensor step(const Recurrent& m, Tensor xt, Tensor h) { return tanh(add(m.ih(xt), m.hh(h))); }  //[rnn]
//[gru] // The GRU step: update gate z, reset gate r, candidate state n.
//[gru] Tensor step(const Recurrent& m, Tensor xt, Tensor h) {
//[gru]   std::vector<Tensor> xi = split(m.ih(xt), {HIDDEN, HIDDEN, HIDDEN}, -1);
//[gru]   std::vector<Tensor> hi = split(m.hh(h), {HIDDEN, HIDDEN, HIDDEN}, -1);
//[gru]   Tensor z = sigmoid(add(xi[0], hi[0]));
//[gru]   Tensor r = sigmoid(add(xi[1], hi[1]));
//[gru]   Tensor n = tanh(add(xi[2], mul(r, hi[2])));
//[gru]   return add(mul(sub(1.0, z), n), mul(z, h));
//[gru] }
//[lstm] // The LSTM step on the state pair (h, c), returned joined as [B, 2·HIDDEN].
//[lstm] Tensor step(const Recurrent& m, Tensor xt, Tensor state) {
//[lstm]   std::vector<Tensor> hc = split(state, {HIDDEN, HIDDEN}, -1);
//[lstm]   std::vector<Tensor> g = split(add(m.ih(xt), m.hh(hc[0])), {HIDDEN, HIDDEN, HIDDEN, HIDDEN}, -1);
//[lstm]   Tensor c = add(mul(sigmoid(g[1]), hc[1]), mul(sigmoid(g[0]), tanh(g[2])));
//[lstm]   Tensor h = mul(sigmoid(g[3]), tanh(c));
//[lstm]   return concat({h, c}, -1);
//[lstm] }

Tensor forecast(const Recurrent& m, Tensor x) {
  Tensor h = zeros({B, HIDDEN});  //[!lstm]
  //[lstm] Tensor h = zeros({B, 2 * HIDDEN});  // (h, c)
  std::vector<Tensor> states;
  for (int t = 0; t < T; t++) {
    Tensor xt = reshape(narrow(x, 1, t, 1), {B, IN});  // [B, IN]
    h = step(m, xt, h);
    states.push_back(h);  //[!lstm]
    //[lstm] states.push_back(narrow(h, 1, 0, HIDDEN));  // the output state h
  }
  return m.head(stack(states, 1));  // [B, T, IN]
}

Tensor lossFn(Recurrent& m, const Inputs& in) {
  return mean(square(sub(forecast(m, in["series"]), in["next"])));
}

Tensor predictFn(Recurrent& m, const Inputs& in) { return forecast(m, in["series"]); }

}  // namespace

NNDNA_SPEC(Recurrent) {
  return {
      .label = "Unrolled RNN forecaster",
      .description =
          "An Elman RNN (tanh, 64 hidden units) unrolled over 16 time steps of an 8-feature "
          "series from a zero state; a shared linear head forecasts the next step from each "
          "state. MSE on batches of 32, Adam at 1e-3.",
      .loss = lossFn,
      .inputs = {{"series", {B, T, IN}}, {"next", {B, T, IN}}},
      .optimizer = Adam{.lr = 1e-3},
      .predict = predictFn,
      .predictInputs = {{"series", {B, T, IN}}},
      .dims = {{B, "B", "batch"}, {T, "T", "time steps"}, {IN, "F", "features"}, {HIDDEN, "H", "state width"}},
  };
}
