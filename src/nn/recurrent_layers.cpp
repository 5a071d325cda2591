// LSTM and GRU: PyTorch's nn.LSTM and nn.GRU (batch_first, from a zero state), unrolled over the
// sequence in the trace: one step's ops per position, all made by the user's line that calls the
// layer (the diagram draws them as that line's box).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "ir/dim_names.hpp"
#include "nn/layer_support.hpp"
#include "ops/op_builder.hpp"
#include "nndna/nndna.hpp"
#include "trace/tracer.hpp"

namespace nndna {
namespace {

// The layer sizes a recurrent module needs, each named in the error.
void requireRecurrentSizes(const Module& layer, std::string_view kind, const Size& inputSize, const Size& hidden,
                           const RecurrentOptions& options) {
  layers::requirePositive(layer, kind, {{"inputSize", inputSize}, {"hiddenSize", hidden}, {"numLayers", options.numLayers}});
}

// The parameters of every layer of a module with `gates` gates (LSTM 4, GRU 3), in PyTorch's
// names and initialisation (uniform(±1/√H), weights and biases alike). `param` is the module's.
template <class Param>
void buildLayers(std::int64_t gates, const Size& inputSize, const Size& hidden, const RecurrentOptions& options,
                 Param param, std::vector<Tensor>& weightIh, std::vector<Tensor>& weightHh,
                 std::vector<Tensor>& biasIh, std::vector<Tensor>& biasHh) {
  const Init uniform = layers::fanInUniform(hidden);
  const Size width = layers::timesSize(gates, hidden);
  for (std::int64_t k = 0; k < options.numLayers; ++k) {
    weightIh.push_back(param(fmt::format("weight_ih_l{}", k), {k == 0 ? inputSize : hidden, width}, {uniform, true}));
    weightHh.push_back(param(fmt::format("weight_hh_l{}", k), {hidden, width}, {uniform, true}));
    if (!options.bias) continue;
    biasIh.push_back(param(fmt::format("bias_ih_l{}", k), {width}, {uniform, false}));
    biasHh.push_back(param(fmt::format("bias_hh_l{}", k), {width}, {uniform, false}));
  }
}

// The sequence x [B, T, I] a module reads, checked against its first layer's input size.
void requireSequence(const Module& layer, std::string_view kind, const std::vector<Tensor>& weightIh,
                     const Tensor& x) {
  layers::requireBuilt(weightIh.empty() ? Tensor() : weightIh.front(), kind);
  const std::int64_t inputSize = weightIh.front().dim(0);
  if (!x.defined() || x.rank() != 3 || x.dim(-1) != inputSize) {
    tracing::failAtUserLine(kind, fmt::format("layer '{}': the input must be [B, T, {}] (batch first), got {}",
                                              layer.path(), inputSize,
                                              x.defined() ? ir::formatShape(x.shape()) : "an undefined tensor"));
  }
}

// Layer k's bias, undefined when the module has none.
Tensor biasOf(const std::vector<Tensor>& biases, std::size_t k) { return k < biases.size() ? biases[k] : Tensor(); }

// x · W + b: every step at once ([B, T, I] -> [B, T, G]) or one step's state ([B, H] -> [B, G]).
Tensor affine(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const Tensor y = matmul(x, weight);
  return bias.defined() ? add(y, bias) : y;
}

// One layer's state between steps: h [B, H], and c for an LSTM.
struct LayerState {
  Tensor h, c;
};

// Layer k's [B, H] row of a state [numLayers, B, H] the user gave, or zeros when none was given.
Tensor layerRow(const Tensor& given, std::int64_t k, const Tensor& x, const Size& hidden) {
  if (!given.defined()) return zeros({x.dim(0), hidden});
  return reshape(narrow(given, 0, k, 1), {x.dim(0), hidden});
}

// A state the user gave is [numLayers, B, H] or undefined; anything else is named at their line.
void requireState(const Module& layer, std::string_view kind, std::string_view part, const Tensor& given,
                  std::int64_t numLayers, const Tensor& x, const Size& hidden) {
  if (!given.defined()) return;
  const Shape expected{numLayers, x.dim(0), static_cast<std::int64_t>(hidden)};
  if (given.shape() != expected || given.dtype() != DType::f32) {
    tracing::failAtUserLine(kind, fmt::format("layer '{}': the initial {} must be f32 [numLayers, B, H] = {}, got {} {}",
                                              layer.path(), part, ir::formatShape(expected),
                                              ir::formatShape(given.shape()), ir::dtypeName(given.dtype())));
  }
}

// The output [B, T, H] named as the input's batch and time axes: `stack`'s new axis has no name,
// so an LSTM's box read [B, 6, H] where its input read [B, T, E]. A view, when there is a name
// to give.
Tensor withSequenceNames(const Tensor& output, const Tensor& x, std::string_view kind) {
  ir::DimNames input;
  {
    ops::OpBuilder probe(ir::OpKind::reshape, kind);  // reads x's names; never finished
    input = probe.input(x).names;
  }
  ops::OpBuilder op(ir::OpKind::reshape, kind);
  const ir::TensorInfo& out = op.input(output);
  ir::DimNames names = out.names.empty() ? ir::DimNames(out.shape.size()) : out.names;
  bool renamed = false;
  for (std::size_t axis : {std::size_t{0}, std::size_t{1}}) {
    const std::string& given = ir::dimNameAt(input, axis);
    if (given.empty() || !names[axis].empty()) continue;
    names[axis] = given;
    renamed = true;
  }
  if (!renamed) return output;
  op.attrs().dims = out.shape;
  op.attrs().names = std::move(names);
  return op.finish();
}

// Runs every layer over the sequence: the input projection of all steps at once, then from
// `initial(k)`, `step(k, projected [B, G], state)` gives layer k's next state from one step's
// projection; the next layer reads the stacked hidden states. `states` ends with each layer's
// last state. The top layer's hidden states [B, H], one per step, left to the caller to stack
// (after the last states, so that the output is the call's last tensor).
template <class Initial, class Step>
std::vector<Tensor> unroll(const Tensor& x, const std::vector<Tensor>& weightIh, const std::vector<Tensor>& biasIh,
                           std::vector<LayerState>& states, Initial initial, Step step) {
  Tensor sequence = x;
  std::vector<Tensor> hidden;
  for (std::size_t k = 0; k < weightIh.size(); ++k) {
    if (k > 0) sequence = stack(hidden, 1);
    const Tensor projected = affine(sequence, weightIh[k], biasOf(biasIh, k));  // [B, T, G]
    states.push_back(initial(static_cast<std::int64_t>(k)));
    hidden.clear();
    for (std::int64_t t = 0; t < x.dim(1); ++t) {
      const Tensor stepInput = reshape(narrow(projected, 1, t, 1), {projected.dim(0), projected.dim(2)});
      states[k] = step(k, stepInput, states[k]);
      hidden.push_back(states[k].h);
    }
  }
  return hidden;
}

// Every layer's last h (or c) stacked: PyTorch's h_n, [numLayers, B, H].
Tensor stackLayers(const std::vector<LayerState>& states, Tensor LayerState::*part) {
  std::vector<Tensor> rows;
  for (const LayerState& s : states) rows.push_back(s.*part);
  return stack(rows, 0);
}

}  // namespace

LSTM::LSTM(std::string_view name, Size inputSize, Size hidden, RecurrentOptions options)
    : Module(name), hiddenSize(hidden) {
  requireRecurrentSizes(*this, "LSTM", inputSize, hidden, options);
  buildLayers(4, inputSize, hidden, options,
              [this](std::string_view n, Sizes s, ParamOptions o) { return param(n, std::move(s), o); }, weightIh,
              weightHh, biasIh, biasHh);
}

Tensor LSTM::operator()(Tensor x) const { return run(x, {}, /*withState=*/false).output; }

LSTMResult LSTM::operator()(Tensor x, LSTMState initial) const { return run(x, initial, /*withState=*/true); }

LSTMResult LSTM::run(const Tensor& x, const LSTMState& initial, bool withState) const {
  requireSequence(*this, "LSTM", weightIh, x);
  const Size h = hiddenSize;
  const auto layers = static_cast<std::int64_t>(weightIh.size());
  requireState(*this, "LSTM", "h", initial.h, layers, x, h);
  requireState(*this, "LSTM", "c", initial.c, layers, x, h);
  auto start = [&](std::int64_t k) { return LayerState{layerRow(initial.h, k, x, h), layerRow(initial.c, k, x, h)}; };
  std::vector<LayerState> states;
  const std::vector<Tensor> top = unroll(x, weightIh, biasIh, states, start, [&](std::size_t k, const Tensor& projected, const LayerState& s) {
    const std::vector<Tensor> g = split(add(projected, affine(s.h, weightHh[k], biasOf(biasHh, k))), {h, h, h, h}, -1);
    const Tensor cell = add(mul(sigmoid(g[1]), s.c), mul(sigmoid(g[0]), tanh(g[2])));  // f ⊙ c + i ⊙ g
    return LayerState{mul(sigmoid(g[3]), tanh(cell)), cell};                            // o ⊙ tanh(c)
  });
  LSTMResult result;
  if (withState) result.state = {stackLayers(states, &LayerState::h), stackLayers(states, &LayerState::c)};
  result.output = withSequenceNames(stack(top, 1), x, "LSTM");
  return result;
}

GRU::GRU(std::string_view name, Size inputSize, Size hidden, RecurrentOptions options)
    : Module(name), hiddenSize(hidden) {
  requireRecurrentSizes(*this, "GRU", inputSize, hidden, options);
  buildLayers(3, inputSize, hidden, options,
              [this](std::string_view n, Sizes s, ParamOptions o) { return param(n, std::move(s), o); }, weightIh,
              weightHh, biasIh, biasHh);
}

Tensor GRU::operator()(Tensor x) const { return run(x, Tensor(), /*withState=*/false).output; }

GRUResult GRU::operator()(Tensor x, Tensor initial) const { return run(x, initial, /*withState=*/true); }

GRUResult GRU::run(const Tensor& x, const Tensor& initial, bool withState) const {
  requireSequence(*this, "GRU", weightIh, x);
  const Size h = hiddenSize;
  const auto layers = static_cast<std::int64_t>(weightIh.size());
  requireState(*this, "GRU", "h", initial, layers, x, h);
  auto start = [&](std::int64_t k) { return LayerState{layerRow(initial, k, x, h), Tensor()}; };
  std::vector<LayerState> states;
  const std::vector<Tensor> top = unroll(x, weightIh, biasIh, states, start, [&](std::size_t k, const Tensor& projected, const LayerState& s) {
    const std::vector<Tensor> xg = split(projected, {h, h, h}, -1);
    const std::vector<Tensor> hg = split(affine(s.h, weightHh[k], biasOf(biasHh, k)), {h, h, h}, -1);
    const Tensor r = sigmoid(add(xg[0], hg[0]));
    const Tensor z = sigmoid(add(xg[1], hg[1]));
    const Tensor n = tanh(add(xg[2], mul(r, hg[2])));
    return LayerState{add(mul(sub(1.0, z), n), mul(z, s.h)), Tensor()};  // (1 - z) ⊙ n + z ⊙ h
  });
  GRUResult result;
  if (withState) result.h = stackLayers(states, &LayerState::h);
  result.output = withSequenceNames(stack(top, 1), x, "GRU");
  return result;
}

}  // namespace nndna
