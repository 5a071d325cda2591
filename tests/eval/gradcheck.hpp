// Finite-difference gradient checks: the backward graph appendBackward builds, evaluated, against
// central differences of the loss in double precision.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "eval_test_util.hpp"
#include "nndna/training.hpp"

namespace nndna::eval::testing {

// Deterministic values in [lo, hi), kept at least `gap` away from each point in `avoid`
// (kinks of relu, abs, clamp...).
inline std::vector<double> randomValues(std::size_t n, std::uint64_t seed, double lo = -1.0,
                                        double hi = 1.0, std::vector<double> avoid = {},
                                        double gap = 0.05) {
  std::vector<double> out;
  std::uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  while (out.size() < n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(state >> 11) * 0x1.0p-53;
    const double v = lo + (hi - lo) * u;
    bool ok = true;
    for (const double a : avoid) ok = ok && std::abs(v - a) >= gap;
    if (ok) out.push_back(v);
  }
  return out;
}

inline Value randomF32(Shape shape, std::uint64_t seed, double lo = -1.0, double hi = 1.0,
                       std::vector<double> avoid = {}) {
  const auto n = static_cast<std::size_t>(ir::numel(shape));
  return f32(std::move(shape), randomValues(n, seed, lo, hi, std::move(avoid)));
}

// A rank-0 loss graph, its leaf values, and the leaves to differentiate.
struct GradProblem {
  ir::Graph graph;
  Leaves leaves;
  std::vector<ir::TensorId> wrt;  // leaf tensors
};

inline Value& leafValue(const ir::Graph& graph, Leaves& leaves, ir::TensorId id) {
  const ir::Op& op = graph.producer(id);
  switch (op.kind) {
    case ir::OpKind::param_input: return leaves.params.at(op.attrs->name);
    case ir::OpKind::state_input: return leaves.state.at(op.attrs->name);
    default: return leaves.inputs.at(op.attrs->name);
  }
}

struct GradCheckOptions {
  double step = 1e-5;        // central difference step
  double absTolerance = 1e-7;
  double relTolerance = 1e-5;
  std::size_t maxElements = 24;  // checked per wrt tensor (evenly spread), bounds the run time
  std::uint64_t seed = 11;       // run seed (dropout masks)
};

// Appends the backward, then compares every (sampled) gradient element with
// (L(x + h) - L(x - h)) / 2h. Also requires some gradient to be non-zero, so that a backward that
// drops everything cannot pass.
inline void checkGradients(GradProblem p, const GradCheckOptions& o = {}) {
  const ir::TensorId loss = p.graph.outputs.at(0);
  const std::vector<ir::TensorId> grads = training::appendBackward(p.graph, p.wrt);
  ASSERT_EQ(grads.size(), p.wrt.size());
  std::vector<ir::TensorId> targets;
  for (std::size_t i = 0; i < grads.size(); ++i) {
    ASSERT_NE(grads[i], ir::kNone) << "no gradient for " << p.graph.producer(p.wrt[i]).attrs->name;
    targets.push_back(grads[i]);
  }
  const EvalOptions eo{o.seed};
  const Results analytic = evaluate(p.graph, p.leaves, targets, eo);
  const ir::TensorId lossTargets[] = {loss};
  auto lossAt = [&](Leaves& leaves) {
    return evaluate(p.graph, leaves, lossTargets, eo).at(loss).item();
  };
  double largest = 0.0;
  for (std::size_t w = 0; w < p.wrt.size(); ++w) {
    const std::string name = p.graph.producer(p.wrt[w]).attrs->name;
    const Value& g = analytic.at(grads[w]);
    Value& x = leafValue(p.graph, p.leaves, p.wrt[w]);
    ASSERT_EQ(g.shape, x.shape) << name;
    const std::size_t n = x.data.size();
    const std::size_t stride = std::max<std::size_t>(1, n / o.maxElements);
    for (std::size_t i = 0; i < n; i += stride) {
      const double saved = x.data[i];
      x.data[i] = saved + o.step;
      const double up = lossAt(p.leaves);
      x.data[i] = saved - o.step;
      const double down = lossAt(p.leaves);
      x.data[i] = saved;
      const double numeric = (up - down) / (2 * o.step);
      const double a = g.data[i];
      largest = std::max(largest, std::abs(a));
      EXPECT_NEAR(a, numeric, o.absTolerance + o.relTolerance * std::max(std::abs(a), std::abs(numeric)))
          << name << " element " << i;
    }
  }
  EXPECT_GT(largest, 1e-6) << "every checked gradient is zero";
}

// Whether any op reads tensor `t`.
inline bool isRead(const ir::Graph& graph, ir::TensorId t) {
  for (const ir::Op& op : graph.ops) {
    if (std::find(op.inputs.begin(), op.inputs.end(), t) != op.inputs.end()) return true;
  }
  return false;
}

// L = Σ fn(inputs) · r with a fixed random cotangent r, differentiated w.r.t. the inputs named in
// `wrt` (when empty: every f32 input that fn reads).
inline GradProblem opProblem(const Feeds& feeds, const Fn& fn, std::vector<std::string> wrt = {}) {
  const ir::Graph probe = traceFunction(declsOf(feeds), fn);
  const ir::TensorInfo& out = probe.tensor(probe.outputs.at(0));
  Feeds all = feeds;
  all.emplace_back("cotangent", randomF32(out.shape, 97, -1.0, 1.0));
  GradProblem p;
  p.graph = traceFunction(declsOf(all), [&fn](const Inputs& in) {
    return sum(mul(fn(in), in["cotangent"]));
  });
  p.leaves = leavesOf(all);
  for (const ir::NamedTensor& input : p.graph.inputs) {
    const bool chosen = wrt.empty() ? p.graph.tensor(input.tensor).dtype == DType::f32 &&
                                          input.name != "cotangent" && isRead(p.graph, input.tensor)
                                    : std::find(wrt.begin(), wrt.end(), input.name) != wrt.end();
    if (chosen) p.wrt.push_back(input.tensor);
  }
  return p;
}

// The same over the layers of spec "eval_layers" (training mode): also differentiates the
// parameters named in `params`.
inline GradProblem layerProblem(const Feeds& feeds, const LayerFn& fn,
                                const std::vector<std::string>& params) {
  const ir::Graph probe = traceLayers(declsOf(feeds), [&fn](eval_layers::Layers& m, const Inputs& in) {
    return mean(capture("out", fn(m, in)));
  });
  const Shape outShape = probe.tensor(probe.captures.at(0).tensor).shape;
  Feeds all = feeds;
  all.emplace_back("cotangent", randomF32(outShape, 97, -1.0, 1.0));
  GradProblem p;
  p.graph = traceLayers(declsOf(all), [&fn](eval_layers::Layers& m, const Inputs& in) {
    return sum(mul(fn(m, in), in["cotangent"]));
  });
  p.leaves = leavesOf(all);
  std::uint64_t seed = 200;
  for (const ir::Param& param : p.graph.params) {
    p.leaves.params[param.name] = randomF32(p.graph.tensor(param.tensor).shape, ++seed, 0.5, 1.5);
  }
  for (const ir::Param& s : p.graph.state) {
    p.leaves.state[s.name] = Value::filled(p.graph.tensor(s.tensor).shape, 0.5);
  }
  for (const ir::NamedTensor& input : p.graph.inputs) {
    if (p.graph.tensor(input.tensor).dtype == DType::f32 && input.name != "cotangent") {
      p.wrt.push_back(input.tensor);
    }
  }
  for (const std::string& name : params) {
    bool found = false;
    for (const ir::Param& param : p.graph.params) {
      if (param.name == name) {
        p.wrt.push_back(param.tensor);
        found = true;
      }
    }
    if (!found) throw std::logic_error("no parameter " + name);
  }
  return p;
}

}  // namespace nndna::eval::testing
