// The layers and ops added for PyTorch users: LSTM, GRU, MultiheadAttention and
// scaledDotProductAttention against references written here in plain loops from PyTorch's
// equations (gate order i, f, g, o and r, z, n; heads as column blocks), with random parameters
// (the layers' wiring, not just their shapes); 1-d pooling and InstanceNorm2d by hand.
#include <cmath>
#include <string>
#include <vector>

#include "eval_test_util.hpp"
#include "gradcheck.hpp"

namespace nndna::eval::testing {
namespace {

// A [rows, cols] matrix of a Value (row-major), read as doubles.
struct Matrix {
  const Value& v;
  std::int64_t cols;
  double at(std::int64_t r, std::int64_t c) const { return v.data.at(static_cast<std::size_t>(r * cols + c)); }
};

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// The layers' predict graph on `feeds` (x first), every parameter random (seeded), with the
// leaves it used.
struct Prediction {
  Value out;
  Leaves leaves;
};
Prediction predictWithRandomParams(const std::vector<std::pair<std::string, Value>>& feeds, const LayerFn& fn) {
  std::vector<InputDecl> decls;
  for (const auto& [name, value] : feeds) decls.push_back({name, value.shape});
  const ir::Graph g = traceLayers(decls, fn, /*training=*/false);
  Leaves leaves;
  for (const auto& [name, value] : feeds) leaves.inputs[name] = value;
  std::uint64_t seed = 500;
  for (const ir::Param& p : g.params) leaves.params[p.name] = randomF32(g.tensor(p.tensor).shape, ++seed, -0.8, 0.8);
  for (const ir::Param& s : g.state) leaves.state[s.name] = Value::filled(g.tensor(s.tensor).shape, 0.0);
  Value out = evaluate(g, leaves).at(g.outputs.at(0));
  return {std::move(out), std::move(leaves)};
}
Prediction predictWithRandomParams(const Value& x, const LayerFn& fn) { return predictWithRandomParams({{"x", x}}, fn); }

// x·W + b for one row x (W [in, out] as the layers store it), over columns [from, from + n).
std::vector<double> affineRow(const std::vector<double>& x, const Value& w, const Value* b, std::int64_t from,
                              std::int64_t n) {
  const Matrix m{w, w.shape.at(1)};
  std::vector<double> y(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) {
    double s = b ? b->data.at(static_cast<std::size_t>(from + j)) : 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) s += x[i] * m.at(static_cast<std::int64_t>(i), from + j);
    y[static_cast<std::size_t>(j)] = s;
  }
  return y;
}

using Sequence = std::vector<std::vector<std::vector<double>>>;  // [B][T][features]

Sequence sequenceOf(const Value& x) {
  const std::int64_t b = x.shape[0], t = x.shape[1], f = x.shape[2];
  Sequence out(static_cast<std::size_t>(b), std::vector<std::vector<double>>(static_cast<std::size_t>(t)));
  for (std::int64_t i = 0; i < b; ++i) {
    for (std::int64_t j = 0; j < t; ++j) {
      for (std::int64_t k = 0; k < f; ++k) out[i][j].push_back(x.data.at(static_cast<std::size_t>((i * t + j) * f + k)));
    }
  }
  return out;
}

std::vector<double> flat(const Sequence& s) {
  std::vector<double> out;
  for (const auto& batch : s) {
    for (const auto& step : batch) out.insert(out.end(), step.begin(), step.end());
  }
  return out;
}

// Per batch row, one layer's state: h (and c for an LSTM), [B][H].
using States = std::vector<std::vector<double>>;

// Row `layer` of a state value [numLayers, B, H] as [B][H].
States statesOf(const Value& v, std::int64_t layer) {
  const std::int64_t b = v.shape[1], h = v.shape[2];
  States out(static_cast<std::size_t>(b));
  for (std::int64_t i = 0; i < b; ++i) {
    for (std::int64_t j = 0; j < h; ++j) out[i].push_back(v.data.at(static_cast<std::size_t>((layer * b + i) * h + j)));
  }
  return out;
}

// One LSTM layer over `in`, PyTorch's equations, from the state (h, c) it is given, which it
// leaves at the last step's.
Sequence lstmLayer(const Sequence& in, const Leaves& l, int layer, States& hs, States& cs) {
  const std::string k = std::to_string(layer);
  const Value& wih = l.params.at("lstm.weight_ih_l" + k);
  const Value& whh = l.params.at("lstm.weight_hh_l" + k);
  const Value& bih = l.params.at("lstm.bias_ih_l" + k);
  const Value& bhh = l.params.at("lstm.bias_hh_l" + k);
  const auto h = static_cast<std::int64_t>(hs.at(0).size());
  Sequence out = in;
  for (std::size_t b = 0; b < in.size(); ++b) {
    for (std::size_t t = 0; t < in[b].size(); ++t) {
      const std::vector<double> gx = affineRow(in[b][t], wih, &bih, 0, 4 * h);
      const std::vector<double> gh = affineRow(hs[b], whh, &bhh, 0, 4 * h);
      for (std::int64_t j = 0; j < h; ++j) {
        auto gate = [&](std::int64_t q) { return gx[q * h + j] + gh[q * h + j]; };
        const double i = sigmoid(gate(0)), f = sigmoid(gate(1)), g = std::tanh(gate(2)), o = sigmoid(gate(3));
        cs[b][j] = f * cs[b][j] + i * g;
        hs[b][j] = o * std::tanh(cs[b][j]);
      }
      out[b][t] = hs[b];
    }
  }
  return out;
}

// The same from a zero state.
Sequence lstmLayer(const Sequence& in, const Leaves& l, int layer, std::int64_t h) {
  States hs(in.size(), std::vector<double>(static_cast<std::size_t>(h), 0.0)), cs = hs;
  return lstmLayer(in, l, layer, hs, cs);
}

// One GRU layer (module `gru`) over `in` from the state it is given, which it leaves at the last
// step's.
Sequence gruLayer(const Sequence& in, const Leaves& l, States& hs) {
  const auto h = static_cast<std::int64_t>(hs.at(0).size());
  Sequence out = in;
  for (std::size_t b = 0; b < in.size(); ++b) {
    for (std::size_t t = 0; t < in[b].size(); ++t) {
      const std::vector<double> gx = affineRow(in[b][t], l.params.at("gru.weight_ih_l0"), &l.params.at("gru.bias_ih_l0"), 0, 3 * h);
      const std::vector<double> gh = affineRow(hs[b], l.params.at("gru.weight_hh_l0"), &l.params.at("gru.bias_hh_l0"), 0, 3 * h);
      for (std::int64_t j = 0; j < h; ++j) {
        const double rg = sigmoid(gx[j] + gh[j]);
        const double z = sigmoid(gx[h + j] + gh[h + j]);
        const double n = std::tanh(gx[2 * h + j] + rg * gh[2 * h + j]);
        hs[b][j] = (1 - z) * n + z * hs[b][j];
      }
      out[b][t] = hs[b];
    }
  }
  return out;
}

// States of every layer, [numLayers][B][H], flattened as a [numLayers, B, H] value.
std::vector<double> flatStates(const std::vector<States>& layers) {
  std::vector<double> out;
  for (const States& s : layers) {
    for (const auto& row : s) out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

TEST(EvalSequenceLayers, LstmOfTwoLayersFollowsPyTorchsEquations) {
  const Value x = randomF32({2, 4, 2}, 61, -1.0, 1.0);
  const Prediction r = predictWithRandomParams(x, [](eval_layers::Layers& m, const Inputs& in) { return m.lstm(in["x"]); });
  const Sequence expected = lstmLayer(lstmLayer(sequenceOf(x), r.leaves, 0, 3), r.leaves, 1, 3);
  expectF32(r.out, {2, 4, 3}, flat(expected), 1e-9);
}

TEST(EvalSequenceLayers, GruFollowsPyTorchsEquations) {
  const Value x = randomF32({2, 3, 2}, 62, -1.0, 1.0);
  const Prediction r = predictWithRandomParams(x, [](eval_layers::Layers& m, const Inputs& in) { return m.gru(in["x"]); });
  States hs(2, std::vector<double>(3, 0.0));
  expectF32(r.out, {2, 3, 3}, flat(gruLayer(sequenceOf(x), r.leaves, hs)), 1e-9);
}

// PyTorch's `output, (h_n, c_n) = lstm(x, (h_0, c_0))`: each layer starts from its row of the
// given state, and the result's state is every layer's last step.
TEST(EvalSequenceLayers, LstmFromAGivenStateGivesItsOutputAndLastState) {
  const std::vector<std::pair<std::string, Value>> feeds{{"x", randomF32({2, 4, 2}, 63, -1.0, 1.0)},
                                                         {"h0", randomF32({2, 2, 3}, 64, -1.0, 1.0)},
                                                         {"c0", randomF32({2, 2, 3}, 65, -1.0, 1.0)}};
  auto run = [&](auto part) {
    return predictWithRandomParams(feeds, [part](eval_layers::Layers& m, const Inputs& in) {
      return part(m.lstm(in["x"], {in["h0"], in["c0"]}));
    });
  };
  const Prediction out = run([](const LSTMResult& r) { return r.output; });
  const Prediction hn = run([](const LSTMResult& r) { return r.state.h; });
  const Prediction cn = run([](const LSTMResult& r) { return r.state.c; });
  // Same parameters in each trace (the same layers, seeded in order).
  ASSERT_EQ(out.leaves.params.at("lstm.weight_hh_l1").data, cn.leaves.params.at("lstm.weight_hh_l1").data);
  std::vector<States> h{statesOf(feeds[1].second, 0), statesOf(feeds[1].second, 1)};
  std::vector<States> c{statesOf(feeds[2].second, 0), statesOf(feeds[2].second, 1)};
  const Sequence lower = lstmLayer(sequenceOf(feeds[0].second), out.leaves, 0, h[0], c[0]);
  const Sequence top = lstmLayer(lower, out.leaves, 1, h[1], c[1]);
  expectF32(out.out, {2, 4, 3}, flat(top), 1e-9);
  expectF32(hn.out, {2, 2, 3}, flatStates(h), 1e-9);
  expectF32(cn.out, {2, 2, 3}, flatStates(c), 1e-9);
  // The state really is the start: from zeros the output differs.
  const Prediction fromZero = predictWithRandomParams(feeds[0].second, [](eval_layers::Layers& m, const Inputs& in) {
    return m.lstm(in["x"]);
  });
  EXPECT_NE(fromZero.out.data, out.out.data);
}

// `lstm(x, {})` is the zero state with its last state; `gru(x, h0)` as PyTorch's gru(x, h_0).
TEST(EvalSequenceLayers, GruFromAGivenStateAndLstmFromZeros) {
  const std::vector<std::pair<std::string, Value>> feeds{{"x", randomF32({2, 3, 2}, 66, -1.0, 1.0)},
                                                         {"h0", randomF32({1, 2, 3}, 67, -1.0, 1.0)}};
  const Prediction out = predictWithRandomParams(feeds, [](eval_layers::Layers& m, const Inputs& in) {
    return m.gru(in["x"], in["h0"]).output;
  });
  const Prediction hn = predictWithRandomParams(feeds, [](eval_layers::Layers& m, const Inputs& in) {
    return m.gru(in["x"], in["h0"]).h;
  });
  std::vector<States> h{statesOf(feeds[1].second, 0)};
  expectF32(out.out, {2, 3, 3}, flat(gruLayer(sequenceOf(feeds[0].second), out.leaves, h[0])), 1e-9);
  expectF32(hn.out, {1, 2, 3}, flatStates(h), 1e-9);

  const Value x = feeds[0].second;
  const Prediction cn = predictWithRandomParams(x, [](eval_layers::Layers& m, const Inputs& in) {
    return m.lstm(in["x"], {}).state.c;
  });
  std::vector<States> hz(2, States(2, std::vector<double>(3, 0.0))), cz = hz;
  lstmLayer(lstmLayer(sequenceOf(x), cn.leaves, 0, hz[0], cz[0]), cn.leaves, 1, hz[1], cz[1]);
  expectF32(cn.out, {2, 2, 3}, flatStates(cz), 1e-9);
}

// The recurrent layers' output keeps the input's batch and time names ([B, T, H], not [B, 4, H]:
// stack's new axis has no name of its own), with a state or without.
TEST(EvalSequenceLayers, RecurrentOutputsKeepTheSequencesNames) {
  constexpr Dim B{"B", 2, "batch"}, T{"T", 4, "steps"};
  auto namesOf = [&](const LayerFn& fn) {
    const ir::Graph g = traceLayers({{"x", {B, T, 2}}}, fn, /*training=*/false);
    return g.tensor(g.outputs.at(0)).names;
  };
  const ir::DimNames expected{"B", "T", ""};
  EXPECT_EQ(namesOf([](eval_layers::Layers& m, const Inputs& in) { return m.lstm(in["x"]); }), expected);
  EXPECT_EQ(namesOf([](eval_layers::Layers& m, const Inputs& in) { return m.lstm(in["x"], {}).output; }), expected);
  EXPECT_EQ(namesOf([](eval_layers::Layers& m, const Inputs& in) { return m.gru(in["x"]); }), expected);
  EXPECT_EQ(namesOf([](eval_layers::Layers& m, const Inputs& in) { return m.gru(in["x"], {}).output; }), expected);
}

// Attention of one query sequence [Tq, E] over keys [Tk, kdim] and values [Tk, vdim] through the
// parameters of layer `layer`, heads of `e / heads` columns: in_proj_weight's column blocks, or
// the separate q, k and v weights when the layer has them.
std::vector<std::vector<double>> attentionReference(const std::vector<std::vector<double>>& x,
                                                    const std::vector<std::vector<double>>& keys,
                                                    const std::vector<std::vector<double>>& values, const Leaves& l,
                                                    std::int64_t e, std::int64_t heads, bool causal,
                                                    const std::string& layer = "attn") {
  const Value& b = l.params.at(layer + ".in_proj_bias");
  const bool separate = l.params.contains(layer + ".q_proj_weight");
  // Projection `block` (0 q, 1 k, 2 v) of one row.
  auto project = [&](const std::vector<double>& row, std::int64_t block) {
    static constexpr const char* kOwn[] = {".q_proj_weight", ".k_proj_weight", ".v_proj_weight"};
    if (!separate) return affineRow(row, l.params.at(layer + ".in_proj_weight"), &b, block * e, e);
    std::vector<double> y = affineRow(row, l.params.at(layer + kOwn[block]), nullptr, 0, e);
    for (std::int64_t c = 0; c < e; ++c) y[static_cast<std::size_t>(c)] += b.data.at(static_cast<std::size_t>(block * e + c));
    return y;
  };
  const std::int64_t dh = e / heads;
  const std::size_t t = x.size(), tk = keys.size();
  std::vector<std::vector<double>> q, k, v, mixed(t, std::vector<double>(static_cast<std::size_t>(e)));
  for (const auto& row : x) q.push_back(project(row, 0));
  for (const auto& row : keys) k.push_back(project(row, 1));
  for (const auto& row : values) v.push_back(project(row, 2));
  for (std::int64_t hd = 0; hd < heads; ++hd) {
    for (std::size_t i = 0; i < t; ++i) {
      std::vector<double> weights(tk, 0.0);
      double top = -1e300;
      for (std::size_t j = 0; j < tk; ++j) {
        if (causal && j > i) continue;
        double s = 0;
        for (std::int64_t c = 0; c < dh; ++c) s += q[i][hd * dh + c] * k[j][hd * dh + c];
        weights[j] = s / std::sqrt(static_cast<double>(dh));
        top = std::max(top, weights[j]);
      }
      double total = 0;
      for (std::size_t j = 0; j < tk; ++j) {
        weights[j] = causal && j > i ? 0.0 : std::exp(weights[j] - top);
        total += weights[j];
      }
      for (std::int64_t c = 0; c < dh; ++c) {
        double s = 0;
        for (std::size_t j = 0; j < tk; ++j) s += weights[j] / total * v[j][hd * dh + c];
        mixed[i][hd * dh + c] = s;
      }
    }
  }
  std::vector<std::vector<double>> out;
  for (const auto& row : mixed) {
    out.push_back(affineRow(row, l.params.at(layer + ".out_proj.weight"), &l.params.at(layer + ".out_proj.bias"), 0, e));
  }
  return out;
}

TEST(EvalSequenceLayers, MultiheadSelfAttentionPlainAndCausal) {
  const Value x = randomF32({2, 3, 4}, 63, -1.0, 1.0);
  for (const bool causal : {false, true}) {
    const Prediction r = predictWithRandomParams(x, [causal](eval_layers::Layers& m, const Inputs& in) {
      return m.attn(in["x"], in["x"], in["x"], {.causal = causal});
    });
    Sequence expected;
    for (const auto& batch : sequenceOf(x)) expected.push_back(attentionReference(batch, batch, batch, r.leaves, 4, 2, causal));
    expectF32(r.out, {2, 3, 4}, flat(expected), 1e-9);
  }
}

// PyTorch's kdim and vdim: keys of 3 features and values of 5 for a layer of E 4, through the
// separate q_proj_weight, k_proj_weight and v_proj_weight PyTorch makes for them, with its
// parameter count: q 4·4, k 3·4, v 5·4, in_proj_bias 3·4, out_proj 4·4 + 4.
TEST(EvalSequenceLayers, MultiheadAttentionWithKdimAndVdim) {
  const std::vector<std::pair<std::string, Value>> feeds = {{"x", randomF32({2, 2, 4}, 81, -1.0, 1.0)},
                                                            {"k", randomF32({2, 3, 3}, 82, -1.0, 1.0)},
                                                            {"v", randomF32({2, 3, 5}, 83, -1.0, 1.0)}};
  const LayerFn cross = [](eval_layers::Layers& m, const Inputs& in) { return m.crossAttn(in["x"], in["k"], in["v"]); };
  const Prediction r = predictWithRandomParams(feeds, cross);
  const Sequence x = sequenceOf(feeds[0].second), k = sequenceOf(feeds[1].second), v = sequenceOf(feeds[2].second);
  Sequence expected;
  for (std::size_t b = 0; b < x.size(); ++b) {
    expected.push_back(attentionReference(x[b], k[b], v[b], r.leaves, 4, 2, false, "cross_attn"));
  }
  expectF32(r.out, {2, 2, 4}, flat(expected), 1e-9);

  const ir::Graph g = traceLayers({{"x", {2, 2, 4}}, {"k", {2, 3, 3}}, {"v", {2, 3, 5}}}, cross, /*training=*/false);
  std::vector<std::pair<std::string, Shape>> params;
  std::int64_t total = 0;
  for (const ir::Param& p : g.params) {
    if (!p.name.starts_with("cross_attn.")) continue;
    params.emplace_back(p.name, g.tensor(p.tensor).shape);
    total += ir::numel(g.tensor(p.tensor).shape);
  }
  EXPECT_EQ(params, (std::vector<std::pair<std::string, Shape>>{{"cross_attn.q_proj_weight", {4, 4}},
                                                                {"cross_attn.k_proj_weight", {3, 4}},
                                                                {"cross_attn.v_proj_weight", {5, 4}},
                                                                {"cross_attn.in_proj_bias", {12}},
                                                                {"cross_attn.out_proj.weight", {4, 4}},
                                                                {"cross_attn.out_proj.bias", {4}}}));
  EXPECT_EQ(total, 4 * 4 + 3 * 4 + 5 * 4 + 3 * 4 + 4 * 4 + 4);
}

// Cross-attention: queries from one sequence, keys and values from another of another length.
TEST(EvalSequenceLayers, ScaledDotProductAttentionOverKeysOfAnotherLength) {
  const Feeds feeds = {{"q", randomF32({1, 2, 3}, 64)}, {"k", randomF32({1, 4, 3}, 65)}, {"v", randomF32({1, 4, 2}, 66)}};
  const Value out = run(feeds, [](const Inputs& in) { return scaledDotProductAttention(in["q"], in["k"], in["v"]); });
  const Value& q = feeds[0].second;
  const Value& k = feeds[1].second;
  const Value& v = feeds[2].second;
  std::vector<double> expected;
  for (int i = 0; i < 2; ++i) {
    std::vector<double> w(4);
    double total = 0;
    for (int j = 0; j < 4; ++j) {
      double s = 0;
      for (int c = 0; c < 3; ++c) s += q.data[i * 3 + c] * k.data[j * 3 + c];
      w[j] = std::exp(s / std::sqrt(3.0));
      total += w[j];
    }
    for (int c = 0; c < 2; ++c) {
      double s = 0;
      for (int j = 0; j < 4; ++j) s += w[j] / total * v.data[j * 2 + c];
      expected.push_back(s);
    }
  }
  expectF32(out, {1, 2, 2}, expected, 1e-9);
}

// 1-d pooling by hand: max pads with -inf (PyTorch), the mean counts padding as zeros.
TEST(EvalPooling1d, MaxAndAverageOverL) {
  const Feeds x = {{"x", f32({1, 1, 5}, {1, 3, 2, 5, 4})}};
  expectF32(run(x, [](const Inputs& in) { return maxPool1d(in["x"], 2); }), {1, 1, 2}, {3, 5});
  expectF32(run(x, [](const Inputs& in) { return maxPool1d(in["x"], 3, {.stride = 1, .padding = 1}); }), {1, 1, 5},
            {3, 3, 5, 5, 5});
  expectF32(run(x, [](const Inputs& in) { return avgPool1d(in["x"], 2); }), {1, 1, 2}, {2, 3.5});
  expectF32(run(x, [](const Inputs& in) { return avgPool1d(in["x"], 2, {.padding = 1}); }), {1, 1, 3},
            {0.5, 2.5, 4.5});
}

// Channel 0 holds 1, 3 (mean 2, variance 1), channel 1 holds 5, 9 (mean 7, variance 4); weight
// [2, 1] and bias [0, 1] as set here.
TEST(EvalInstanceNorm, EachSampleAndChannelOverHW) {
  const Value x = f32({1, 2, 1, 2}, {1, 3, 5, 9});
  const ir::Graph g = traceLayers({{"x", x.shape}}, [](eval_layers::Layers& m, const Inputs& in) {
    return m.instanceNorm(in["x"]);
  }, /*training=*/false);
  Leaves leaves;
  leaves.inputs["x"] = x;
  leaves.params["instance_norm.weight"] = f32({2}, {2, 1});
  leaves.params["instance_norm.bias"] = f32({2}, {0, 1});
  const double a = 1 / std::sqrt(1 + 1e-5), b = 2 / std::sqrt(4 + 1e-5);
  expectF32(evaluate(g, leaves).at(g.outputs.at(0)), {1, 2, 1, 2}, {-2 * a, 2 * a, 1 - b, 1 + b}, 1e-9);
}

// einsum against the same contraction written with loops, and against matmul.
TEST(EvalEinsum, ContractionsTransposesAndSums) {
  const Feeds feeds = {{"a", randomF32({2, 3, 4}, 70)}, {"b", randomF32({2, 5, 4}, 71)}, {"u", randomF32({3}, 72)}};
  const Value& a = feeds[0].second;
  const Value& b = feeds[1].second;
  const Value& u = feeds[2].second;
  // "bij,bkj->bik": out[n, i, k] = Σ_j a[n, i, j] · b[n, k, j].
  std::vector<double> expected;
  for (int n = 0; n < 2; ++n) {
    for (int i = 0; i < 3; ++i) {
      for (int k = 0; k < 5; ++k) {
        double s = 0;
        for (int j = 0; j < 4; ++j) s += a.data[(n * 3 + i) * 4 + j] * b.data[(n * 5 + k) * 4 + j];
        expected.push_back(s);
      }
    }
  }
  expectF32(run(feeds, [](const Inputs& in) { return einsum("bij,bkj->bik", {in["a"], in["b"]}); }), {2, 3, 5}, expected, 1e-9);
  // The output's order is the equation's: "bij,bkj->kbi" permutes the same values.
  std::vector<double> permuted;
  for (int k = 0; k < 5; ++k) {
    for (int n = 0; n < 2; ++n) {
      for (int i = 0; i < 3; ++i) permuted.push_back(expected[(n * 3 + i) * 5 + k]);
    }
  }
  expectF32(run(feeds, [](const Inputs& in) { return einsum("bij,bkj->kbi", {in["a"], in["b"]}); }), {5, 2, 3}, permuted, 1e-9);
  // "bij,i->bj": the letter b has alone is kept; "bij,i->j" sums it out first.
  std::vector<double> weighted(8, 0.0), summed(4, 0.0);
  for (int n = 0; n < 2; ++n) {
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 4; ++j) {
        weighted[n * 4 + j] += a.data[(n * 3 + i) * 4 + j] * u.data[i];
        summed[j] += a.data[(n * 3 + i) * 4 + j] * u.data[i];
      }
    }
  }
  expectF32(run(feeds, [](const Inputs& in) { return einsum("bij,i->bj", {in["a"], in["u"]}); }), {2, 4}, weighted, 1e-9);
  expectF32(run(feeds, [](const Inputs& in) { return einsum("bij,i->j", {in["a"], in["u"]}); }), {4}, summed, 1e-9);
  // One operand: a transpose and a total.
  double total = 0;
  for (double v : a.data) total += v;
  expectF32(run(feeds, [](const Inputs& in) { return einsum("bij->", {in["a"]}); }), {}, {total}, 1e-9);
  const Value t = run(feeds, [](const Inputs& in) { return einsum("bij->jbi", {in["a"]}); });
  ASSERT_EQ(t.shape, (Shape{4, 2, 3}));
  EXPECT_EQ(t.data[(3 * 2 + 1) * 3 + 2], a.data[(1 * 3 + 2) * 4 + 3]);
}

// TransformerEncoderLayer is PyTorch's formula over its own parts: post-norm
// norm2(h + ff(h)) with h = norm1(x + sa(x)), and pre-norm h = x + sa(norm1(x)), h + ff(norm2(h)).
TEST(EvalSequenceLayers, TransformerEncoderLayerPostAndPreNorm) {
  const Value x = randomF32({2, 3, 4}, 73, -1.0, 1.0);
  const Prediction post = predictWithRandomParams(x, [](eval_layers::Layers& m, const Inputs& in) { return m.encoder(in["x"]); });
  const Prediction postByHand = predictWithRandomParams(x, [](eval_layers::Layers& m, const Inputs& in) {
    const auto& e = m.encoder;
    const Tensor h = e.norm1(add(in["x"], e.selfAttn(in["x"], in["x"], in["x"])));
    return e.norm2(add(h, e.linear2(relu(e.linear1(h)))));
  });
  expectF32(post.out, {2, 3, 4}, postByHand.out.data, 1e-12);
  const Prediction pre = predictWithRandomParams(x, [](eval_layers::Layers& m, const Inputs& in) {
    return m.preNormEncoder(in["x"], {.causal = true});
  });
  const Prediction preByHand = predictWithRandomParams(x, [](eval_layers::Layers& m, const Inputs& in) {
    const auto& e = m.preNormEncoder;
    const Tensor n1 = e.norm1(in["x"]);
    const Tensor h = add(in["x"], e.selfAttn(n1, n1, n1, {.causal = true}));
    return add(h, e.linear2(gelu(e.linear1(e.norm2(h)))));
  });
  expectF32(pre.out, {2, 3, 4}, preByHand.out.data, 1e-12);
  // The two differ: the order matters.
  EXPECT_NE(post.out.data, pre.out.data);
}

// TransformerDecoderLayer is PyTorch's formula over its own parts, with a memory of another
// length (S = 5 against T = 3): post-norm h1 = norm1(x + sa(x)), h2 = norm2(h1 + mha(h1, m, m)),
// norm3(h2 + ff(h2)); pre-norm the residual stream with each block reading its norm.
TEST(EvalSequenceLayers, TransformerDecoderLayerPostAndPreNorm) {
  const std::vector<std::pair<std::string, Value>> feeds = {{"x", randomF32({2, 3, 4}, 74, -1.0, 1.0)},
                                                            {"m", randomF32({2, 5, 4}, 75, -1.0, 1.0)}};
  const Prediction post = predictWithRandomParams(
      feeds, [](eval_layers::Layers& m, const Inputs& in) { return m.decoder(in["x"], in["m"], {.causal = true}); });
  const Prediction postByHand = predictWithRandomParams(feeds, [](eval_layers::Layers& m, const Inputs& in) {
    const auto& d = m.decoder;
    const Tensor h1 = d.norm1(add(in["x"], d.selfAttn(in["x"], in["x"], in["x"], {.causal = true})));
    const Tensor h2 = d.norm2(add(h1, d.multiheadAttn(h1, in["m"], in["m"])));
    return d.norm3(add(h2, d.linear2(relu(d.linear1(h2)))));
  });
  expectF32(post.out, {2, 3, 4}, postByHand.out.data, 1e-12);
  const Prediction pre = predictWithRandomParams(
      feeds, [](eval_layers::Layers& m, const Inputs& in) { return m.preNormDecoder(in["x"], in["m"]); });
  const Prediction preByHand = predictWithRandomParams(feeds, [](eval_layers::Layers& m, const Inputs& in) {
    const auto& d = m.preNormDecoder;
    const Tensor n1 = d.norm1(in["x"]);
    const Tensor h1 = add(in["x"], d.selfAttn(n1, n1, n1));
    const Tensor h2 = add(h1, d.multiheadAttn(d.norm2(h1), in["m"], in["m"]));
    return add(h2, d.linear2(gelu(d.linear1(d.norm3(h2)))));
  });
  expectF32(pre.out, {2, 3, 4}, preByHand.out.data, 1e-12);
  EXPECT_NE(post.out.data, pre.out.data);
  // The causal mask matters: without it the first step sees the later ones.
  const Prediction unmasked = predictWithRandomParams(
      feeds, [](eval_layers::Layers& m, const Inputs& in) { return m.decoder(in["x"], in["m"]); });
  EXPECT_NE(unmasked.out.data, post.out.data);
}

// PyTorch's parameters (D = 4, F = 6): two attentions of 4D² + 4D, the feed-forward's
// D·F + F + F·D + D, three norms of 2D.
TEST(EvalSequenceLayers, TransformerDecoderLayerHasPytorchsParameters) {
  const ir::Graph g = traceLayers({{"x", {2, 3, 4}}, {"m", {2, 5, 4}}},
                                  [](eval_layers::Layers& m, const Inputs& in) { return m.decoder(in["x"], in["m"]); },
                                  /*training=*/false);
  std::int64_t total = 0;
  std::vector<std::string> names;
  for (const ir::Param& p : g.params) {
    if (!p.name.starts_with("decoder.")) continue;
    total += ir::numel(g.tensor(p.tensor).shape);
    names.push_back(p.name);
  }
  EXPECT_EQ(total, 2 * (4 * 4 * 4 + 4 * 4) + (4 * 6 + 6 + 6 * 4 + 4) + 3 * 2 * 4);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "decoder.self_attn.in_proj_weight");
  EXPECT_NE(std::find(names.begin(), names.end(), "decoder.multihead_attn.out_proj.weight"), names.end());
  EXPECT_EQ(names.back(), "decoder.norm3.bias");
}

// MultiheadAttention with PyTorch's key_padding_mask: the padded keys count for nothing, so the
// answer is attention over the unpadded ones; the encoder and decoder layers pass it on.
TEST(EvalSequenceLayers, KeyPaddingMaskIgnoresThePaddedKeys) {
  const std::vector<std::pair<std::string, Value>> feeds = {{"x", randomF32({2, 2, 4}, 76, -1.0, 1.0)},
                                                            {"m", randomF32({2, 3, 4}, 77, -1.0, 1.0)}};
  const Prediction unpadded = predictWithRandomParams(feeds, [](eval_layers::Layers& m, const Inputs& in) {
    const Tensor kept = narrow(in["m"], 1, 0, 2);
    return m.attn(in["x"], kept, kept);
  });
  const Prediction padded = predictWithRandomParams(feeds, [](eval_layers::Layers& m, const Inputs& in) {
    // [B, Tk] = [2, 3], true at the last key: a constant mask from a comparison.
    const Tensor pad = greater(reshape(arange(0, 6, 1, DType::f32), {2, 3}), reshape(add(mul(arange(0, 2, 1, DType::f32), 3.0), 1.5), {2, 1}));
    return m.attn(in["x"], in["m"], in["m"], {.keyPaddingMask = pad});
  });
  expectF32(padded.out, {2, 2, 4}, unpadded.out.data, 1e-12);
  const Prediction all = predictWithRandomParams(feeds, [](eval_layers::Layers& m, const Inputs& in) {
    return m.attn(in["x"], in["m"], in["m"]);
  });
  EXPECT_NE(all.out.data, padded.out.data);
}

// A call given the wrong input names the layer and what it takes.
TEST(EvalSequenceLayers, WrongInputsNameTheLayer) {
  // The message without the calls that led to the layer's line: traceLayers' own lambda is one
  // in a build that does not inline it (the sanitizer build), none in the release build.
  auto errorOf = [](const std::vector<InputDecl>& inputs, const LayerFn& fn) {
    try {
      traceLayers(inputs, fn, /*training=*/false);
    } catch (const TraceError& e) {
      const std::string message = e.message();
      return message.substr(0, message.find(" (called from "));
    }
    return std::string("no error");
  };
  EXPECT_EQ(errorOf({{"x", {2, 3}}}, [](eval_layers::Layers& m, const Inputs& in) { return m.lstm(in["x"]); }),
            "LSTM: layer 'lstm': the input must be [B, T, 2] (batch first), got [2, 3]");
  EXPECT_EQ(errorOf({{"x", {2, 3, 5}}}, [](eval_layers::Layers& m, const Inputs& in) { return m.gru(in["x"]); }),
            "GRU: layer 'gru': the input must be [B, T, 2] (batch first), got [2, 3, 5]");
  EXPECT_EQ(errorOf({{"x", {2, 3, 2}}, {"h", {2, 3}}},
                    [](eval_layers::Layers& m, const Inputs& in) { return m.lstm(in["x"], {in["h"], {}}).output; }),
            "LSTM: layer 'lstm': the initial h must be f32 [numLayers, B, H] = [2, 2, 3], got [2, 3] f32");
  EXPECT_EQ(errorOf({{"x", {2, 3, 2}}, {"c", {2, 2, 4}}},
                    [](eval_layers::Layers& m, const Inputs& in) { return m.lstm(in["x"], {{}, in["c"]}).output; }),
            "LSTM: layer 'lstm': the initial c must be f32 [numLayers, B, H] = [2, 2, 3], got [2, 2, 4] f32");
  EXPECT_EQ(errorOf({{"x", {2, 3, 2}}, {"h", {2, 2, 3}}},
                    [](eval_layers::Layers& m, const Inputs& in) { return m.gru(in["x"], in["h"]).output; }),
            "GRU: layer 'gru': the initial h must be f32 [numLayers, B, H] = [1, 2, 3], got [2, 2, 3] f32");
  EXPECT_EQ(errorOf({{"x", {2, 3, 2}}, {"h", {1, 2, 3}, DType::i32}},
                    [](eval_layers::Layers& m, const Inputs& in) { return m.gru(in["x"], in["h"]).output; }),
            "GRU: layer 'gru': the initial h must be f32 [numLayers, B, H] = [1, 2, 3], got [1, 2, 3] i32");
  EXPECT_EQ(errorOf({{"x", {2, 3, 4}}, {"k", {2, 5, 3}}},
                    [](eval_layers::Layers& m, const Inputs& in) { return m.attn(in["x"], in["k"], in["k"]); }),
            "MultiheadAttention: layer 'attn': the key must be [B, T, 4] (batch first), got [2, 5, 3]");
  EXPECT_EQ(errorOf({{"x", {2, 3, 4}}, {"k", {2, 5, 3}}},
                    [](eval_layers::Layers& m, const Inputs& in) { return m.crossAttn(in["x"], in["k"], in["k"]); }),
            "MultiheadAttention: layer 'cross_attn': the value must be [B, T, 5] (batch first), got [2, 5, 3]");
  EXPECT_EQ(errorOf({{"x", {2, 3, 2, 2}}},
                    [](eval_layers::Layers& m, const Inputs& in) { return m.layerNormOverAxes(in["x"]); }),
            "LayerNorm: layer 'layer_norm_axes': the input's last 3 axes must be [2, 1, 2], got [2, 3, 2, 2]");
  EXPECT_EQ(errorOf({{"x", {2, 3, 4}}, {"k", {2, 5, 4}}},
                    [](eval_layers::Layers& m, const Inputs& in) {
                      return m.attn(in["x"], in["k"], in["k"], {.causal = true});
                    }),
            "scaledDotProductAttention: causal attention needs as many queries as keys, got q [2, 2, 3, 2] and k [2, 2, 5, 2]");
  EXPECT_EQ(errorOf({{"x", {2, 3, 5, 5}}}, [](eval_layers::Layers& m, const Inputs& in) { return m.conv(in["x"]); }),
            "Conv2d: layer 'conv': the input must be [N, 2, H, W], got [2, 3, 5, 5]");
  EXPECT_EQ(errorOf({{"x", {2, 5, 5}}}, [](eval_layers::Layers& m, const Inputs& in) { return m.convTranspose(in["x"]); }),
            "ConvTranspose2d: layer 'conv_transpose': the input must be [N, 4, H, W], got [2, 5, 5]");
  EXPECT_EQ(errorOf({{"x", {8, 2}}}, [](eval_layers::Layers& m, const Inputs& in) { return m.batchNorm(in["x"]); }),
            "BatchNorm2d: layer 'batch_norm': the input must be [N, 2, H, W] (BatchNorm1d takes [N, C] and [N, C, L]), "
            "got [8, 2]");
  EXPECT_EQ(errorOf({{"x", {8, 3}}}, [](eval_layers::Layers& m, const Inputs& in) { return m.embedding(in["x"]); }),
            "Embedding: layer 'embedding': the indices must be i32 (token ids), got [8, 3] f32");
  EXPECT_EQ(errorOf({{"x", {2, 3}}}, [](eval_layers::Layers& m, const Inputs& in) { return m.batchNorm1d(in["x"]); }),
            "BatchNorm1d: layer 'batch_norm1d': the input must be [N, 2] or [N, 2, L], got [2, 3]");
  EXPECT_EQ(errorOf({{"x", {2, 3, 4}}}, [](eval_layers::Layers&, const Inputs& in) { return flatten(in["x"], 2, 1); }),
            "flatten: startDim 2 comes after endDim 1 for [2, 3, 4] (rank 3)");
  EXPECT_EQ(errorOf({{"x", {2, 3, 4}}}, [](eval_layers::Layers&, const Inputs& in) { return flatten(in["x"], 3); }),
            "flatten: startDim 3 is out of range for rank 3 (expected -3..2)");
  EXPECT_EQ(errorOf({{"x", {2, 2, 4}}}, [](eval_layers::Layers& m, const Inputs& in) { return m.instanceNorm(in["x"]); }),
            "InstanceNorm2d: layer 'instance_norm': the input must be [N, 2, H, W], got [2, 2, 4]");
}

}  // namespace
}  // namespace nndna::eval::testing
