// An Elman RNN unrolled over a short sequence: forecasts the next step of a multivariate series.
#include <nndna/nndna.hpp>

#include <vector>

using namespace nndna;

// The examples are linked into one program: an anonymous namespace keeps each file's model types
// from colliding with another file's.
namespace {

constexpr int B = 32;        // sequences per batch
constexpr int T = 16;        // time steps (unrolled at trace time)
constexpr int IN = 8;        // features per step
constexpr int HIDDEN = 64;   // recurrent state width

struct ElmanRNN : Module {
  Linear ih{"ih", IN, HIDDEN};
  // The input projection's bias already shifts the sum: the recurrent one needs none.
  Linear hh{"hh", HIDDEN, HIDDEN, {.bias = false}};
  Linear head{"head", HIDDEN, IN};
};

// One recurrence step: h' = tanh(x·Wih + b + h·Whh).
Tensor step(const ElmanRNN& m, Tensor xt, Tensor h) { return tanh(add(m.ih(xt), m.hh(h))); }

// x [B, T, IN] -> a forecast of the next step at every position [B, T, IN].
Tensor forecast(const ElmanRNN& m, Tensor x) {
  Tensor h = zeros({B, HIDDEN});
  std::vector<Tensor> states;
  for (int t = 0; t < T; t++) {
    Tensor xt = reshape(narrow(x, 1, t, 1), {B, IN});  // [B, IN]
    h = step(m, xt, h);                                  // [B, HIDDEN]
    states.push_back(h);
  }
  return m.head(stack(states, 1));  // [B, T, IN]
}

Tensor lossFn(ElmanRNN& m, const Inputs& in) {
  return mean(square(sub(forecast(m, in["series"]), in["next"])));
}

Tensor predictFn(ElmanRNN& m, const Inputs& in) { return forecast(m, in["series"]); }

}  // namespace

NNDNA_SPEC(ElmanRNN) {
  return {
      .label = "Unrolled RNN forecaster",
      .description =
          "An Elman RNN (tanh, 64 hidden units) unrolled over 16 time steps of an 8-feature "
          "series, starting from a zero state. Each step's state goes through a shared linear "
          "head that forecasts the next step; MSE against the series shifted by one, Adam at "
          "1e-3, batches of 32.",
      .loss = lossFn,
      .inputs = {{"series", {B, T, IN}}, {"next", {B, T, IN}}},
      .optimizer = Adam{.lr = 1e-3},
      .predict = predictFn,
      .predictInputs = {{"series", {B, T, IN}}},
      .dims = {{B, "B", "batch"},
               {T, "T", "time steps"},
               {IN, "F", "features"},
               {HIDDEN, "H", "hidden state"}},
  };
}
