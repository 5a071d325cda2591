// buildTrainingStep: forward + backward + optimizer update + BatchNorm running statistics, then
// dead-code elimination; stepScalars: the host-side values of the per-step scalar inputs.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "grad/emitter.hpp"
#include "ir/huge_pages.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/training.hpp"
#include "optim/checked_graph.hpp"

namespace nndna::training {

using ir::OpKind;
using ir::TensorId;

namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
// Needed by clang 16 (the fuzz build), which does not deduce aggregates with bases.
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

// clip_grad_norm_'s default: keeps the scale finite when every gradient is zero.
constexpr double kClipEpsilon = 1e-6;

// Appends the optimizer's ops and collects the write-backs in the documented order.
class StepBuilder {
 public:
  StepBuilder(ir::Graph& graph) : graph_(graph), e_(graph, ir::Phase::optimizer) {
    for (const ir::NamedTensor& in : graph_.inputs) names_.emplace(in.name, in.tensor);
    for (const ir::Param& s : graph_.state) names_.emplace(s.name, s.tensor);
    for (const ir::Param& p : graph_.params) names_.emplace(p.name, p.tensor);
    firstUse_.assign(graph_.tensors.size(), ir::kNone);
    for (const ir::Op& op : graph_.ops) {
      for (TensorId in : op.inputs) {
        ir::SiteId& site = firstUse_[static_cast<std::size_t>(in)];
        if (site == ir::kNone) site = op.site;
      }
    }
  }

  // PyTorch's clip_grad_norm_ over every gradient at once: ‖g‖ = √Σ_p Σ g_p², then each
  // g_p · min(1, maxNorm / (‖g‖ + 1e-6)). Ops of Phase::optimizer, with no call site (they belong
  // to no one parameter). Returns the clipped gradients (kNone stays kNone).
  std::vector<TensorId> clipGradNorm(const std::vector<TensorId>& grads, double maxNorm) {
    e_.setSite(ir::kNone);
    TensorId squares = ir::kNone;
    for (TensorId g : grads) {
      if (g == ir::kNone) continue;
      ir::OpAttrs all;
      all.allAxes = true;
      const TensorId s = e_.emit(OpKind::sum, {e_.unary(OpKind::square, g)}, std::move(all));
      squares = squares == ir::kNone ? s : e_.binary(OpKind::add, squares, s);
    }
    if (squares == ir::kNone) return grads;
    const TensorId norm = e_.scalar(OpKind::add, e_.unary(OpKind::sqrt, squares), kClipEpsilon);
    const TensorId coef = e_.scalar(OpKind::min, e_.scalar(OpKind::div, norm, maxNorm, true), 1.0);
    std::vector<TensorId> clipped = grads;
    for (TensorId& g : clipped) {
      if (g != ir::kNone) g = e_.binary(OpKind::mul, g, coef);
    }
    return clipped;
  }

  void parameter(const ir::Param& p, TensorId g, const Optimizer& optimizer) {
    e_.setSite(firstUse_[static_cast<std::size_t>(p.tensor)]);
    std::visit(Overloaded{[&](const Adam& a) { adam(p, g, a.beta1, a.beta2, a.eps, 0.0); },
                          [&](const AdamW& a) {
                            adam(p, g, a.beta1, a.beta2, a.eps, p.decay ? a.weightDecay : 0.0);
                          },
                          [&](const SGD& s) { sgd(p, g, s); }},
               optimizer);
  }

  // Running statistics of every training batch_norm2d of the forward (ops [0, forwardOps)).
  void batchNormStatistics(std::size_t forwardOps) {
    for (std::size_t i = 0; i < forwardOps; ++i) {
      const ir::Op op = graph_.ops[i];
      if (op.kind != OpKind::batch_norm2d) continue;
      const ir::Op& weight = graph_.producer(op.inputs[1]);
      const std::string_view name = weight.attrs->name;
      if (weight.kind != OpKind::param_input || !name.ends_with(".weight")) continue;
      const std::string path(name.substr(0, name.size() - std::string_view(".weight").size()));
      e_.setSite(op.site);
      runningStatistic(op, path + ".running_mean", OpKind::batch_norm2d_running_mean);
      runningStatistic(op, path + ".running_var", OpKind::batch_norm2d_running_var);
    }
  }

  // Parameter updates, then optimizer state, then running statistics.
  std::vector<ir::Update> updates() const {
    std::vector<ir::Update> all = paramUpdates_;
    all.insert(all.end(), stateUpdates_.begin(), stateUpdates_.end());
    for (TensorId target : statisticsOrder_) all.push_back({target, statistics_.at(target)});
    return all;
  }

 private:
  TensorId scalarInput(const char* name) {
    if (auto it = scalars_.find(name); it != scalars_.end()) return it->second;
    if (names_.contains(name)) {
      throw Error(Error::Kind::invalid_ir, {}, 0, fmt::format(
          "buildTrainingStep: the name '{}' is reserved for the optimizer's per-step input", name));
    }
    const TensorId t = e_.leaf(OpKind::tensor_input, name, {});
    graph_.inputs.push_back({name, t});
    scalars_.emplace(name, t);
    return t;
  }

  TensorId stateLeaf(const std::string& name, const Shape& shape) {
    if (names_.contains(name)) {
      throw Error(Error::Kind::invalid_ir, {}, 0,
          fmt::format("buildTrainingStep: optimizer state '{}' collides with a model name", name));
    }
    const TensorId t = e_.leaf(OpKind::state_input, name, shape);
    graph_.state.push_back({name, t, init::zeros(), false});
    names_.emplace(name, t);
    return t;
  }

  TensorId update(OpKind kind, std::vector<TensorId> inputs, double scalar, double scalar2 = 0.0) {
    ir::OpAttrs attrs;
    attrs.scalar = scalar;
    attrs.scalar2 = scalar2;
    return e_.emit(kind, std::move(inputs), std::move(attrs));
  }

  void adam(const ir::Param& p, TensorId g, double beta1, double beta2, double eps, double wd) {
    const Shape shape = graph_.tensor(p.tensor).shape;
    const TensorId m = stateLeaf("optim.exp_avg." + p.name, shape);
    const TensorId v = stateLeaf("optim.exp_avg_sq." + p.name, shape);
    const TensorId lr = scalarInput(kLearningRate);
    const TensorId bc1 = scalarInput(kBiasCorrection1);
    const TensorId bc2 = scalarInput(kBiasCorrection2);
    const TensorId m2 = update(OpKind::adam_moment1, {m, g}, beta1);
    const TensorId v2 = update(OpKind::adam_moment2, {v, g}, beta2);
    const TensorId p2 = update(OpKind::adam_update, {p.tensor, m2, v2, lr, bc1, bc2}, eps, wd);
    paramUpdates_.push_back({p.tensor, p2});
    stateUpdates_.push_back({m, m2});
    stateUpdates_.push_back({v, v2});
  }

  void sgd(const ir::Param& p, TensorId g, const SGD& s) {
    const Shape shape = graph_.tensor(p.tensor).shape;
    const TensorId lr = scalarInput(kLearningRate);
    if (s.weightDecay != 0.0 && p.decay) {
      g = e_.binary(OpKind::add, g, e_.scalar(OpKind::mul, p.tensor, s.weightDecay));
    }
    TensorId direction = g;
    if (s.momentum > 0.0) {
      const TensorId buf = stateLeaf("optim.momentum_buffer." + p.name, shape);
      const TensorId buf2 = update(OpKind::sgd_momentum, {buf, g}, s.momentum);
      stateUpdates_.push_back({buf, buf2});
      direction = s.nesterov ? e_.binary(OpKind::add, g, e_.scalar(OpKind::mul, buf2, s.momentum))
                             : buf2;
    }
    paramUpdates_.push_back({p.tensor, update(OpKind::sgd_update, {p.tensor, direction, lr}, 0.0)});
  }

  void runningStatistic(const ir::Op& bn, const std::string& stateName, OpKind kind) {
    const auto it = names_.find(stateName);
    if (it == names_.end()) return;
    const TensorId target = it->second;
    if (graph_.producer(target).kind != OpKind::state_input) return;
    auto [slot, fresh] = statistics_.try_emplace(target, target);
    // A layer called twice chains its updates, as PyTorch's in-place updates do.
    const TensorId current = fresh ? target : slot->second;
    slot->second = update(kind, {bn.inputs[0], current}, bn.attrs->scalar2);
    if (fresh) statisticsOrder_.push_back(target);
  }

  ir::Graph& graph_;
  grad::Emitter e_;
  std::unordered_map<std::string, TensorId> names_;
  std::unordered_map<std::string, TensorId> scalars_;
  std::vector<ir::SiteId> firstUse_;
  std::vector<ir::Update> paramUpdates_;
  std::vector<ir::Update> stateUpdates_;
  std::unordered_map<TensorId, TensorId> statistics_;  // running statistic -> its latest value
  std::vector<TensorId> statisticsOrder_;                // in the order first updated
};

std::string learningRateProblem(const LearningRate& lr) {
  using Kind = LearningRate::Kind;
  if (!std::isfinite(lr.value) || lr.value < 0) return fmt::format("lr must be finite and >= 0, got {}", lr.value);
  switch (lr.kind) {
    case Kind::constant: return {};
    case Kind::linear:
    case Kind::cosineAnnealing:
      if (!std::isfinite(lr.end) || lr.end < 0) return fmt::format("lr end must be finite and >= 0, got {}", lr.end);
      [[fallthrough]];
    case Kind::staircase:
      if (lr.steps <= 0) return fmt::format("lr schedule steps must be positive, got {}", lr.steps);
      [[fallthrough]];
    case Kind::multiStep:
      if (!std::isfinite(lr.gamma)) return fmt::format("lr gamma must be finite, got {}", lr.gamma);
      for (std::size_t i = 0; i < lr.milestones.size(); ++i) {
        if (lr.milestones[i] < 0 || (i > 0 && lr.milestones[i] < lr.milestones[i - 1])) {
          return "lr milestones must be >= 0 and increasing";
        }
      }
      return {};
  }
  return {};
}

}  // namespace

std::string optimizerProblem(const Optimizer& optimizer) {
  const auto [name, clip] = std::visit(
      Overloaded{[](const Adam& o) { return std::pair{"Adam", o.clipGradNorm}; },
                 [](const AdamW& o) { return std::pair{"AdamW", o.clipGradNorm}; },
                 [](const SGD& o) { return std::pair{"SGD", o.clipGradNorm}; }},
      optimizer);
  if (!(clip >= 0.0) || !std::isfinite(clip)) {
    return fmt::format("{}: clipGradNorm must be finite and >= 0 (0 = no clipping), got {}", name,
                       clip);
  }
  return std::visit(
      Overloaded{[](const SGD& s) -> std::string {
                   if (!(s.momentum >= 0.0) || !std::isfinite(s.momentum)) {
                     return fmt::format("SGD: momentum must be finite and >= 0, got {}", s.momentum);
                   }
                   if (s.nesterov && !(s.momentum > 0.0)) return "SGD: nesterov needs a momentum > 0";
                   if (!(s.weightDecay >= 0.0) || !std::isfinite(s.weightDecay)) {
                     return fmt::format("SGD: weightDecay must be finite and >= 0, got {}",
                                        s.weightDecay);
                   }
                   const std::string lr = learningRateProblem(s.lr);
                   return lr.empty() ? lr : "SGD: " + lr;
                 },
                 [](const auto& adam) -> std::string {
                   const char* name = std::is_same_v<std::decay_t<decltype(adam)>, AdamW> ? "AdamW" : "Adam";
                   if (!(adam.beta1 >= 0.0 && adam.beta1 < 1.0 && adam.beta2 >= 0.0 && adam.beta2 < 1.0)) {
                     return fmt::format("{}: betas must be in [0, 1), got ({}, {})", name, adam.beta1, adam.beta2);
                   }
                   if (!(adam.eps > 0.0) || !std::isfinite(adam.eps)) {
                     return fmt::format("{}: eps must be finite and > 0, got {}", name, adam.eps);
                   }
                   if constexpr (std::is_same_v<std::decay_t<decltype(adam)>, AdamW>) {
                     if (!std::isfinite(adam.weightDecay)) {
                       return fmt::format("AdamW: weightDecay must be finite, got {}", adam.weightDecay);
                     }
                   }
                   const std::string lr = learningRateProblem(adam.lr);
                   return lr.empty() ? lr : fmt::format("{}: {}", name, lr);
                 }},
      optimizer);
}

ir::Graph buildTrainingStep(const ir::Graph& forward, const Optimizer& optimizer) {
  // The optimizer's settings first (an invalid one is reported before a problem of the graph, as
  // it always was), then the graph, which may come from anywhere (a file, a tool).
  if (const std::string problem = optimizerProblem(optimizer); !problem.empty()) {
    throw Error(Error::Kind::invalid_ir, {}, 0, "buildTrainingStep: " + problem);
  }
  ir::validateGraph(forward, "graph");
  return detail::buildTrainingStepOfCheckedGraph(forward, optimizer);
}

ir::Graph detail::buildTrainingStepOfCheckedGraph(const ir::Graph& forward, const Optimizer& optimizer) {
  if (const std::string problem = optimizerProblem(optimizer); !problem.empty()) {
    throw Error(Error::Kind::invalid_ir, {}, 0, "buildTrainingStep: " + problem);
  }

  ir::Graph graph;
  // Room for the backward (2-3 ops per forward op) and the optimizer (<= 6 per parameter).
  const std::size_t expected = forward.ops.size() * 4 + forward.params.size() * 6 + 16;
  graph.ops.reserve(expected);
  graph.tensors.reserve(expected);
  ir::adviseHugePages(graph.ops);
  ir::adviseHugePages(graph.tensors);
  graph = forward;  // copy-assignment keeps the reserved capacity when it suffices
  const std::size_t forwardOps = graph.ops.size();
  std::vector<TensorId> wrt;
  wrt.reserve(graph.params.size());
  for (const ir::Param& p : graph.params) wrt.push_back(p.tensor);
  const std::vector<TensorId> rawGrads = appendBackwardToCheckedGraph(graph, wrt);

  StepBuilder step(graph);
  const double clip = std::visit([](const auto& o) { return o.clipGradNorm; }, optimizer);
  const std::vector<TensorId> grads = clip > 0.0 ? step.clipGradNorm(rawGrads, clip) : rawGrads;
  const std::vector<ir::Param> params = graph.params;
  for (std::size_t i = 0; i < params.size(); ++i) {
    // As in PyTorch, a parameter without a gradient is not updated.
    if (grads[i] != ir::kNone) step.parameter(params[i], grads[i], optimizer);
  }
  step.batchNormStatistics(forwardOps);
  graph.updates = step.updates();
  eliminateDeadCode(graph);
  return graph;
}

std::vector<std::pair<std::string, double>> stepScalars(const Optimizer& optimizer,
                                                        std::int64_t step) {
  if (step < 0) throw std::invalid_argument("stepScalars: step must not be negative");
  std::vector<std::pair<std::string, double>> scalars;
  std::visit(Overloaded{[&](const SGD& s) {
                          scalars.emplace_back(kLearningRate, learningRateAt(s.lr, step));
                        },
                        [&](const auto& adam) {
                          const double t = static_cast<double>(step) + 1.0;
                          scalars.emplace_back(kLearningRate, learningRateAt(adam.lr, step));
                          scalars.emplace_back(kBiasCorrection1, 1.0 - std::pow(adam.beta1, t));
                          scalars.emplace_back(kBiasCorrection2, 1.0 - std::pow(adam.beta2, t));
                        }},
             optimizer);
  return scalars;
}

}  // namespace nndna::training
