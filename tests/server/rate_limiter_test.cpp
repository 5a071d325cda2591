// The design endpoint's rate limiter: counts per key in a sliding window.
#include <gtest/gtest.h>

#include "server/rate_limiter.hpp"

namespace nndna::server {
namespace {

using namespace std::chrono_literals;
using Clock = RateLimiter::Clock;

TEST(RateLimiter, AdmitsUpToTheLimitThenNamesTheWait) {
  RateLimiter limiter(2, 60s);
  const Clock::time_point t0{};
  EXPECT_EQ(limiter.admit("a", t0), std::nullopt);
  EXPECT_EQ(limiter.admit("a", t0 + 10s), std::nullopt);
  // The first request leaves the window at t0 + 60 s: 45 s after t0 + 15 s.
  EXPECT_EQ(limiter.admit("a", t0 + 15s), std::optional(45s));
  // A refused request is not counted: still 45 s from the first one, now 44.5 s -> 45.
  EXPECT_EQ(limiter.admit("a", t0 + 15500ms), std::optional(45s));
  // Another client has its own count.
  EXPECT_EQ(limiter.admit("b", t0 + 15s), std::nullopt);
  // At t0 + 60 s the first request has left; the second (t0 + 10 s) stays until t0 + 70 s.
  EXPECT_EQ(limiter.admit("a", t0 + 60s), std::nullopt);
  EXPECT_EQ(limiter.admit("a", t0 + 61s), std::optional(9s));
}

TEST(RateLimiter, WaitIsAtLeastOneSecond) {
  RateLimiter limiter(1, 60s);
  const Clock::time_point t0{};
  EXPECT_EQ(limiter.admit("a", t0), std::nullopt);
  EXPECT_EQ(limiter.admit("a", t0 + 59999ms), std::optional(1s));
  EXPECT_EQ(limiter.admit("a", t0 + 60s), std::nullopt);
}

TEST(RateLimiter, ZeroMeansNoLimit) {
  RateLimiter limiter(0, 60s);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(limiter.admit("a", Clock::time_point{}), std::nullopt);
}

}  // namespace
}  // namespace nndna::server
