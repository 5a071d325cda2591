// LSTM and GRU: PyTorch's nn.LSTM and nn.GRU (batch_first, from a zero state), unrolled over the
// sequence in the trace: one step's ops per position, all made by the user's line that calls the
// layer (the diagram draws them as that line's box).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "nn/layer_support.hpp"
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

// Runs every layer over the sequence: the input projection of all steps at once, then
// `makeCell(k)` (a callable holding layer k's state) gives each step's hidden state [B, H] from
// its projection [B, G]; the next layer reads the stacked states. The top layer's [B, T, H].
template <class MakeCell>
Tensor unroll(const Tensor& x, const std::vector<Tensor>& weightIh, const std::vector<Tensor>& biasIh,
              MakeCell makeCell) {
  Tensor sequence = x;
  for (std::size_t k = 0; k < weightIh.size(); ++k) {
    const Tensor projected = affine(sequence, weightIh[k], biasOf(biasIh, k));  // [B, T, G]
    auto cell = makeCell(k);
    std::vector<Tensor> states;
    for (std::int64_t t = 0; t < x.dim(1); ++t) {
      states.push_back(cell(reshape(narrow(projected, 1, t, 1), {projected.dim(0), projected.dim(2)})));
    }
    sequence = stack(states, 1);
  }
  return sequence;
}

}  // namespace

LSTM::LSTM(std::string_view name, Size inputSize, Size hidden, RecurrentOptions options)
    : Module(name), hiddenSize(hidden) {
  requireRecurrentSizes(*this, "LSTM", inputSize, hidden, options);
  buildLayers(4, inputSize, hidden, options,
              [this](std::string_view n, Sizes s, ParamOptions o) { return param(n, std::move(s), o); }, weightIh,
              weightHh, biasIh, biasHh);
}

Tensor LSTM::operator()(Tensor x) const {
  requireSequence(*this, "LSTM", weightIh, x);
  const Size h = hiddenSize;
  return unroll(x, weightIh, biasIh, [&](std::size_t k) {
    return [&, k, hidden = zeros({x.dim(0), h}), cell = zeros({x.dim(0), h})](const Tensor& projected) mutable {
      const std::vector<Tensor> g = split(add(projected, affine(hidden, weightHh[k], biasOf(biasHh, k))), {h, h, h, h}, -1);
      cell = add(mul(sigmoid(g[1]), cell), mul(sigmoid(g[0]), tanh(g[2])));  // f ⊙ c + i ⊙ g
      hidden = mul(sigmoid(g[3]), tanh(cell));                                // o ⊙ tanh(c)
      return hidden;
    };
  });
}

GRU::GRU(std::string_view name, Size inputSize, Size hidden, RecurrentOptions options)
    : Module(name), hiddenSize(hidden) {
  requireRecurrentSizes(*this, "GRU", inputSize, hidden, options);
  buildLayers(3, inputSize, hidden, options,
              [this](std::string_view n, Sizes s, ParamOptions o) { return param(n, std::move(s), o); }, weightIh,
              weightHh, biasIh, biasHh);
}

Tensor GRU::operator()(Tensor x) const {
  requireSequence(*this, "GRU", weightIh, x);
  const Size h = hiddenSize;
  return unroll(x, weightIh, biasIh, [&](std::size_t k) {
    return [&, k, hidden = zeros({x.dim(0), h})](const Tensor& projected) mutable {
      const std::vector<Tensor> xg = split(projected, {h, h, h}, -1);
      const std::vector<Tensor> hg = split(affine(hidden, weightHh[k], biasOf(biasHh, k)), {h, h, h}, -1);
      const Tensor r = sigmoid(add(xg[0], hg[0]));
      const Tensor z = sigmoid(add(xg[1], hg[1]));
      const Tensor n = tanh(add(xg[2], mul(r, hg[2])));
      hidden = add(mul(sub(1.0, z), n), mul(z, hidden));  // (1 - z) ⊙ n + z ⊙ h
      return hidden;
    };
  });
}

}  // namespace nndna
