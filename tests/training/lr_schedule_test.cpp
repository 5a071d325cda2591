// learningRateAt against PyTorch's schedulers, written as PyTorch computes them: step by step
// from the previous rate (the chainable `get_lr` forms of torch.optim.lr_scheduler).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "nndna/nndna.hpp"
#include "nndna/trace.hpp"

namespace nndna {
namespace {

// LinearLR(start_factor = start / base, end_factor = end / base, total_iters) with base = 1.
std::vector<double> torchLinear(double start, double end, std::int64_t total, std::int64_t steps) {
  std::vector<double> lrs{start};
  for (std::int64_t t = 1; t < steps; ++t) {
    const double prev = lrs.back();
    if (t > total) {
      lrs.push_back(prev);
    } else {
      lrs.push_back(prev * (1.0 + (end - start) /
                                      (static_cast<double>(total) * start +
                                       static_cast<double>(t - 1) * (end - start))));
    }
  }
  return lrs;
}

// CosineAnnealingLR(T_max, eta_min), recursive form.
std::vector<double> torchCosine(double base, double etaMin, std::int64_t tMax, std::int64_t steps) {
  const double pi = std::numbers::pi;
  const double T = static_cast<double>(tMax);
  std::vector<double> lrs{base};
  for (std::int64_t t = 1; t < steps; ++t) {
    const double prev = lrs.back();
    if ((t - 1 - tMax) % (2 * tMax) == 0) {
      lrs.push_back(prev + (base - etaMin) * (1.0 - std::cos(pi / T)) / 2.0);
    } else {
      lrs.push_back((1.0 + std::cos(pi * static_cast<double>(t) / T)) /
                        (1.0 + std::cos(pi * static_cast<double>(t - 1) / T)) * (prev - etaMin) +
                    etaMin);
    }
  }
  return lrs;
}

// StepLR(step_size, gamma).
std::vector<double> torchStep(double base, std::int64_t stepSize, double gamma, std::int64_t steps) {
  std::vector<double> lrs{base};
  for (std::int64_t t = 1; t < steps; ++t) {
    lrs.push_back(t % stepSize == 0 ? lrs.back() * gamma : lrs.back());
  }
  return lrs;
}

// MultiStepLR(milestones, gamma).
std::vector<double> torchMultiStep(double base, const std::vector<std::int64_t>& milestones,
                                   double gamma, std::int64_t steps) {
  std::vector<double> lrs{base};
  for (std::int64_t t = 1; t < steps; ++t) {
    const auto hits = std::count(milestones.begin(), milestones.end(), t);
    lrs.push_back(lrs.back() * std::pow(gamma, static_cast<double>(hits)));
  }
  return lrs;
}

void expectSchedule(const LearningRate& rate, const std::vector<double>& expected) {
  for (std::size_t t = 0; t < expected.size(); ++t) {
    EXPECT_NEAR(learningRateAt(rate, static_cast<std::int64_t>(t)), expected[t],
                1e-12 * std::max(1.0, std::abs(expected[t])))
        << "step " << t;
  }
}

TEST(LrSchedule, ConstantIsTheValueAtEveryStep) {
  const LearningRate rate = 3e-4;
  for (std::int64_t t : {0, 1, 7, 100000}) EXPECT_EQ(learningRateAt(rate, t), 3e-4);
}

TEST(LrSchedule, LinearMatchesTorchLinearLR) {
  expectSchedule(lr::linear(1e-3, 1e-4, 10), torchLinear(1e-3, 1e-4, 10, 25));
  expectSchedule(lr::linear(0.1, 1.0, 4), torchLinear(0.1, 1.0, 4, 9));  // warm-up
  EXPECT_NEAR(learningRateAt(lr::linear(1e-3, 1e-4, 10), 5), 5.5e-4, 1e-15);
}

TEST(LrSchedule, CosineMatchesTorchCosineAnnealingLR) {
  // Past T_max too: PyTorch's schedule rises again (period 2·T_max).
  expectSchedule(lr::cosineAnnealing(0.1, 0.001, 10), torchCosine(0.1, 0.001, 10, 41));
  EXPECT_NEAR(learningRateAt(lr::cosineAnnealing(1.0, 0.0, 8), 4), 0.5, 1e-15);
  EXPECT_NEAR(learningRateAt(lr::cosineAnnealing(1.0, 0.0, 8), 8), 0.0, 1e-15);
}

TEST(LrSchedule, StaircaseMatchesTorchStepLR) {
  expectSchedule(lr::staircase(0.5, 3, 0.1), torchStep(0.5, 3, 0.1, 20));
  EXPECT_NEAR(learningRateAt(lr::staircase(0.5, 3, 0.1), 6), 0.005, 1e-15);
}

TEST(LrSchedule, MultiStepMatchesTorchMultiStepLR) {
  const std::vector<std::int64_t> milestones{2, 5, 5, 9};  // a repeated milestone counts twice
  expectSchedule(lr::multiStep(1.0, milestones, 0.5), torchMultiStep(1.0, milestones, 0.5, 15));
  EXPECT_EQ(learningRateAt(lr::multiStep(1.0, milestones, 0.5), 4), 0.5);
  EXPECT_EQ(learningRateAt(lr::multiStep(1.0, milestones, 0.5), 5), 0.125);
}

TEST(LrSchedule, RejectsBadArguments) {
  EXPECT_THROW(lr::linear(1, 0, 0), TraceError);
  EXPECT_THROW(lr::cosineAnnealing(1, 0, -1), TraceError);
  EXPECT_THROW(lr::staircase(1, 0), TraceError);
  EXPECT_THROW(lr::multiStep(1, {5, 2}), TraceError);
  EXPECT_THROW(learningRateAt(LearningRate(1.0), -1), std::invalid_argument);
}

}  // namespace
}  // namespace nndna
