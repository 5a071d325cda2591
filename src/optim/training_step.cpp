// buildTrainingStep: forward + backward + optimizer update + BatchNorm running statistics, then
// dead-code elimination; stepScalars: the host-side values of the per-step scalar inputs.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "grad/emitter.hpp"
#include "nndna/training.hpp"

namespace nndna::training {

using ir::OpKind;
using ir::TensorId;

namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};

void checkOptimizer(const Optimizer& optimizer) {
  std::visit(Overloaded{
                 [](const SGD& s) {
                   if (s.nesterov && !(s.momentum > 0.0)) {
                     throw std::invalid_argument("SGD: nesterov needs a momentum > 0");
                   }
                   if (s.momentum < 0.0) throw std::invalid_argument("SGD: momentum must be >= 0");
                 },
                 [](const auto& adam) {
                   if (!(adam.beta1 >= 0.0 && adam.beta1 < 1.0 && adam.beta2 >= 0.0 &&
                         adam.beta2 < 1.0)) {
                     throw std::invalid_argument("Adam: betas must be in [0, 1)");
                   }
                   if (!(adam.eps > 0.0)) throw std::invalid_argument("Adam: eps must be > 0");
                 }},
             optimizer);
}

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
      const std::string_view name = weight.attrs.name;
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
      throw std::invalid_argument(fmt::format(
          "buildTrainingStep: the name '{}' is reserved for the optimizer's per-step input", name));
    }
    const TensorId t = e_.leaf(OpKind::tensor_input, name, {});
    graph_.inputs.push_back({name, t});
    scalars_.emplace(name, t);
    return t;
  }

  TensorId stateLeaf(const std::string& name, const Shape& shape) {
    if (names_.contains(name)) {
      throw std::invalid_argument(
          fmt::format("buildTrainingStep: optimizer state '{}' collides with a model name", name));
    }
    const TensorId t = e_.leaf(OpKind::state_input, name, shape);
    graph_.state.push_back({name, t, init::zeros(), false});
    names_.emplace(name, t);
    return t;
  }

  TensorId update(OpKind kind, std::vector<TensorId> inputs, double scalar, double scalar2,
                  const Shape& shape) {
    ir::OpAttrs attrs;
    attrs.scalar = scalar;
    attrs.scalar2 = scalar2;
    return e_.internal(kind, std::move(inputs), std::move(attrs), shape);
  }

  void adam(const ir::Param& p, TensorId g, double beta1, double beta2, double eps, double wd) {
    const Shape shape = graph_.tensor(p.tensor).shape;
    const TensorId m = stateLeaf("optim.exp_avg." + p.name, shape);
    const TensorId v = stateLeaf("optim.exp_avg_sq." + p.name, shape);
    const TensorId lr = scalarInput(kLearningRate);
    const TensorId bc1 = scalarInput(kBiasCorrection1);
    const TensorId bc2 = scalarInput(kBiasCorrection2);
    const TensorId m2 = update(OpKind::adam_moment1, {m, g}, beta1, 0.0, shape);
    const TensorId v2 = update(OpKind::adam_moment2, {v, g}, beta2, 0.0, shape);
    const TensorId p2 = update(OpKind::adam_update, {p.tensor, m2, v2, lr, bc1, bc2}, eps, wd, shape);
    paramUpdates_.push_back({p.tensor, p2});
    stateUpdates_.push_back({m, m2});
    stateUpdates_.push_back({v, v2});
  }

  void sgd(const ir::Param& p, TensorId g, const SGD& s) {
    const Shape shape = graph_.tensor(p.tensor).shape;
    const TensorId lr = scalarInput(kLearningRate);
    TensorId direction = g;
    if (s.momentum > 0.0) {
      const TensorId buf = stateLeaf("optim.momentum_buffer." + p.name, shape);
      const TensorId buf2 = update(OpKind::sgd_momentum, {buf, g}, s.momentum, 0.0, shape);
      stateUpdates_.push_back({buf, buf2});
      direction = s.nesterov ? e_.binary(OpKind::add, g, e_.scalar(OpKind::mul, buf2, s.momentum))
                             : buf2;
    }
    paramUpdates_.push_back({p.tensor, update(OpKind::sgd_update, {p.tensor, direction, lr}, 0.0,
                                              0.0, shape)});
  }

  void runningStatistic(const ir::Op& bn, const std::string& stateName, OpKind kind) {
    const auto it = names_.find(stateName);
    if (it == names_.end()) return;
    const TensorId target = it->second;
    if (graph_.producer(target).kind != OpKind::state_input) return;
    auto [slot, fresh] = statistics_.try_emplace(target, target);
    // A layer called twice chains its updates, as PyTorch's in-place updates do.
    const TensorId current = fresh ? target : slot->second;
    const Shape shape = graph_.tensor(target).shape;
    slot->second = update(kind, {bn.inputs[0], current}, bn.attrs.scalar2, 0.0, shape);
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

}  // namespace

ir::Graph buildTrainingStep(const ir::Graph& forward, const Optimizer& optimizer) {
  checkOptimizer(optimizer);
  ir::Graph graph;
  // Room for the backward (2-3 ops per forward op) and the optimizer (<= 6 per parameter).
  const std::size_t expected = forward.ops.size() * 4 + forward.params.size() * 6 + 16;
  graph.ops.reserve(expected);
  graph.tensors.reserve(expected);
  graph = forward;  // copy-assignment keeps the reserved capacity when it suffices
  const std::size_t forwardOps = graph.ops.size();
  std::vector<TensorId> wrt;
  wrt.reserve(graph.params.size());
  for (const ir::Param& p : graph.params) wrt.push_back(p.tensor);
  const std::vector<TensorId> grads = appendBackward(graph, wrt);

  StepBuilder step(graph);
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
