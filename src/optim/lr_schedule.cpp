// Learning-rate schedules: host-side functions of the step, PyTorch's formulas.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include <fmt/format.h>

#include "nndna/nndna.hpp"
#include "trace/tracer.hpp"

namespace nndna {

namespace lr {

LearningRate linear(double start, double end, std::int64_t steps) {
  if (steps <= 0) tracing::failAtUserLine("lr::linear", fmt::format("steps must be positive, got {}", steps));
  LearningRate r;
  r.kind = LearningRate::Kind::linear;
  r.value = start;
  r.end = end;
  r.steps = steps;
  return r;
}

LearningRate cosineAnnealing(double max, double min, std::int64_t steps) {
  if (steps <= 0) tracing::failAtUserLine("lr::cosineAnnealing", fmt::format("steps must be positive, got {}", steps));
  LearningRate r;
  r.kind = LearningRate::Kind::cosineAnnealing;
  r.value = max;
  r.end = min;
  r.steps = steps;
  return r;
}

LearningRate staircase(double initial, std::int64_t stepSize, double gamma) {
  if (stepSize <= 0) tracing::failAtUserLine("lr::staircase", fmt::format("stepSize must be positive, got {}", stepSize));
  LearningRate r;
  r.kind = LearningRate::Kind::staircase;
  r.value = initial;
  r.steps = stepSize;
  r.gamma = gamma;
  return r;
}

LearningRate multiStep(double initial, std::vector<std::int64_t> milestones, double gamma) {
  if (!std::is_sorted(milestones.begin(), milestones.end())) {
    tracing::failAtUserLine("lr::multiStep", "milestones must be increasing");
  }
  LearningRate r;
  r.kind = LearningRate::Kind::multiStep;
  r.value = initial;
  r.milestones = std::move(milestones);
  r.gamma = gamma;
  return r;
}

}  // namespace lr

double learningRateAt(const LearningRate& rate, std::int64_t step) {
  if (step < 0) throw std::invalid_argument("learningRateAt: step must not be negative");
  switch (rate.kind) {
    case LearningRate::Kind::constant:
      return rate.value;
    case LearningRate::Kind::linear: {
      // LinearLR with base lr 1: factor moves from start to end over `steps`, then holds.
      const double t = static_cast<double>(std::min(step, rate.steps)) / static_cast<double>(rate.steps);
      return rate.value + (rate.end - rate.value) * t;
    }
    case LearningRate::Kind::cosineAnnealing:
      // CosineAnnealingLR's closed form: eta_min + (base - eta_min)(1 + cos(pi t / T_max)) / 2.
      return rate.end + (rate.value - rate.end) *
                            (1.0 + std::cos(std::numbers::pi * static_cast<double>(step) /
                                            static_cast<double>(rate.steps))) / 2.0;
    case LearningRate::Kind::staircase:
      // StepLR: base * gamma^floor(t / step_size).
      return rate.value * std::pow(rate.gamma, static_cast<double>(step / rate.steps));
    case LearningRate::Kind::multiStep: {
      // MultiStepLR: base * gamma^(number of milestones <= t).
      const auto passed = std::upper_bound(rate.milestones.begin(), rate.milestones.end(), step) -
                          rate.milestones.begin();
      return rate.value * std::pow(rate.gamma, static_cast<double>(passed));
    }
  }
  return rate.value;
}

}  // namespace nndna
