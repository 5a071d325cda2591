// formatSvgNumber: the numbers of Graphviz's SVG as Graphviz 2.42 writes them (snprintf "%.02f",
// then trailing zeros dropped), by std::to_chars.
#include "render/svg_numbers.hpp"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

namespace {

using nndna::render::detail::formatSvgNumber;
using nndna::render::detail::kSvgNumberRoom;

std::string formatted(double v) {
  std::array<char, kSvgNumberRoom> out;
  return std::string(out.data(), formatSvgNumber(v, out));
}

// Graphviz 2.42's gvprintdouble, as it behaves: "0" below half a hundredth, otherwise printf's
// "%.02f" with "x.00" -> "x" and "x.y0" -> "x.y".
std::string graphvizWay(double v) {
  if (v > -0.005 && v < 0.005) return "0";
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.02f", v);
  std::string s = buf;
  const auto dot = s.find('.');
  if (dot != std::string::npos && s.size() == dot + 3 && s[dot + 2] == '0') s.resize(s[dot + 1] == '0' ? dot : dot + 2);
  return s;
}

TEST(SvgNumbers, HandDerivedCases) {
  EXPECT_EQ(formatted(0.0), "0");
  EXPECT_EQ(formatted(-0.0), "0");
  EXPECT_EQ(formatted(0.004), "0");
  EXPECT_EQ(formatted(-0.00499), "0");
  EXPECT_EQ(formatted(0.005), "0.01");   // 0.005000000000000000104 in binary
  EXPECT_EQ(formatted(-0.005), "-0.01");
  EXPECT_EQ(formatted(12.0), "12");
  EXPECT_EQ(formatted(-36.0), "-36");
  EXPECT_EQ(formatted(0.5), "0.5");
  EXPECT_EQ(formatted(-4.1), "-4.1");
  EXPECT_EQ(formatted(3.14159), "3.14");
  EXPECT_EQ(formatted(0.125), "0.12");   // a tie in binary: to even
  EXPECT_EQ(formatted(0.375), "0.38");
  EXPECT_EQ(formatted(2.675), "2.67");   // 2.67499999999999982236431605997495353221893310546875
  EXPECT_EQ(formatted(999.995), "1000"); // 999.9950000000000045474735088646411895751953125
  EXPECT_EQ(formatted(1e15 + 0.5), "1000000000000000.5");
  EXPECT_EQ(formatted(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(formatted(-std::numeric_limits<double>::infinity()), "-inf");
  const std::string max = formatted(DBL_MAX);
  EXPECT_EQ(max.size(), 309u);
  EXPECT_EQ(max.substr(0, 6), "179769");
}

TEST(SvgNumbers, SameAsGraphvizsWayOverMillionsOfNumbers) {
  std::mt19937_64 random(20261204);
  std::uniform_real_distribution<double> drawing(-5000.0, 5000.0);
  std::uniform_int_distribution<long> thousandths(-5'000'000, 5'000'000);
  std::uniform_int_distribution<long> eighths(-80'000, 80'000);
  std::uniform_int_distribution<std::uint64_t> bits;
  std::size_t compared = 0;
  for (int i = 0; i < 400'000; ++i) {
    double any = std::bit_cast<double>(bits(random));
    if (std::isnan(any)) any = 0.0;
    for (const double v : {drawing(random), static_cast<double>(thousandths(random)) / 1000.0,
                           static_cast<double>(eighths(random)) / 8.0, any}) {
      ASSERT_EQ(formatted(v), graphvizWay(v)) << std::hexfloat << v;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 1'600'000u);
}

}  // namespace
