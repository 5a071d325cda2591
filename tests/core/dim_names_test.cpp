// The algebra of axis names (src/ir/dim_names): parsing, the canonical form, products, quotients
// and scaling, and the texts it refuses.
#include <gtest/gtest.h>

#include <string>

#include "ir/dim_names.hpp"

namespace nndna::ir {
namespace {

const std::string kDot = "\xC2\xB7";  // "·"

// The canonical text of `name`, or "<rejected>".
std::string canonical(std::string_view name) {
  const std::optional<DimTerms> terms = parseDimName(name);
  return terms ? formatDimName(*terms) : "<rejected>";
}

TEST(DimNames, IdentifiersAreALetterThenLettersDigitsOrUnderscores) {
  EXPECT_TRUE(isDimIdentifier("T"));
  EXPECT_TRUE(isDimIdentifier("d_model2"));
  EXPECT_FALSE(isDimIdentifier(""));
  EXPECT_FALSE(isDimIdentifier("2D"));
  EXPECT_FALSE(isDimIdentifier("_T"));
  EXPECT_FALSE(isDimIdentifier("H" + kDot + "Dh"));
  EXPECT_FALSE(isDimIdentifier(std::string(kMaxDimNameLength + 1, 'a')));
  EXPECT_TRUE(isDimIdentifier(std::string(kMaxDimNameLength, 'a')));
}

// isDimName answers a dim's own name without parsing it; it must accept exactly what
// parseDimName accepts.
TEST(DimNames, IsDimNameAcceptsExactlyWhatParsing) {
  const std::vector<std::string> names = {
      "T", "d_model2", std::string(kMaxDimNameLength, 'a'), std::string(kMaxDimNameLength + 1, 'a'),
      "", "2D", "_T", "4", "H" + kDot + "Dh", "D/H", "D/(H" + kDot + "K)", "D/H" + kDot + "K", "T^2",
      "T^1", "T^100", "S/4", "T" + kDot, kDot + "T", "T/", "T-1", "T T", "D/H/K", "T" + kDot + "T/T"};
  for (const std::string& name : names) {
    EXPECT_EQ(isDimName(name), parseDimName(name).has_value()) << "'" << name << "'";
  }
  EXPECT_TRUE(isDimName("T"));
  EXPECT_TRUE(isDimName("D/(H" + kDot + "K)"));
  EXPECT_FALSE(isDimName("2D"));
  EXPECT_FALSE(isDimName(std::string(kMaxDimNameLength + 1, 'a')));
}

TEST(DimNames, ParsesToCanonicalTerms) {
  const std::optional<DimTerms> t = parseDimName("4" + kDot + "H" + kDot + "Dh/(2" + kDot + "K)");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->num, 2);  // 4/2, reduced
  EXPECT_EQ(t->den, 1);
  const std::vector<std::pair<std::string, int>> powers = {{"H", 1}, {"Dh", 1}, {"K", -1}};
  EXPECT_EQ(t->powers, powers);
  const std::optional<DimTerms> square = parseDimName("T" + kDot + "T");
  ASSERT_TRUE(square);
  EXPECT_EQ(square->powers, (std::vector<std::pair<std::string, int>>{{"T", 2}}));
}

TEST(DimNames, FormatParseRoundTrip) {
  for (const std::string& name :
       {std::string("T"), "H" + kDot + "Dh", "4" + kDot + "D", std::string("D/H"), std::string("S/4"),
        "B" + kDot + "T", std::string("T^2"), "D/(H" + kDot + "K)", "S/(2" + kDot + "H)",
        std::string("2/H"), "T^99" + kDot + "D/C^3"}) {
    EXPECT_EQ(canonical(name), name) << name;
  }
  // Texts that are not canonical read as their canonical form.
  EXPECT_EQ(canonical("T" + kDot + "T"), "T^2");
  EXPECT_EQ(canonical("2" + kDot + "T/4"), "T/2");
  EXPECT_EQ(canonical("D/(H)"), "<rejected>");  // one factor below takes no parentheses
  EXPECT_EQ(canonical("6" + kDot + "H/(3" + kDot + "H)"), "<rejected>");  // 2: no named dim left
}

TEST(DimNames, EqualityIgnoresTheOrderOfFactors) {
  EXPECT_TRUE(sameDimName("H" + kDot + "Dh", "Dh" + kDot + "H"));
  EXPECT_TRUE(sameDimName("D/(H" + kDot + "K)", "D/(K" + kDot + "H)"));
  EXPECT_TRUE(sameDimName("T" + kDot + "T", "T^2"));
  EXPECT_TRUE(sameDimName("", ""));
  EXPECT_FALSE(sameDimName("T", ""));
  EXPECT_FALSE(sameDimName("", "T"));
  EXPECT_FALSE(sameDimName("T", "D"));
  EXPECT_FALSE(sameDimName("D/H", "H/D"));
  EXPECT_FALSE(sameDimName("2" + kDot + "D", "D"));
}

TEST(DimNames, ProductsAndQuotients) {
  EXPECT_EQ(multiplyDimNames("H", "Dh"), "H" + kDot + "Dh");
  EXPECT_EQ(divideDimNames("H" + kDot + "Dh", "H"), "Dh");
  EXPECT_EQ(divideDimNames("D", "H"), "D/H");
  EXPECT_EQ(multiplyDimNames("H", "D/H"), "D");
  EXPECT_EQ(multiplyDimNames("T", "T"), "T^2");
  EXPECT_EQ(divideDimNames("D/H", "K"), "D/(H" + kDot + "K)");
  EXPECT_EQ(multiplyDimNames("2" + kDot + "D", "S/4"), "D" + kDot + "S/2");
  // Unknown operands and results without a named dim give "".
  EXPECT_EQ(multiplyDimNames("", "Dh"), "");
  EXPECT_EQ(divideDimNames("D", ""), "");
  EXPECT_EQ(divideDimNames("D", "D"), "");
  EXPECT_EQ(multiplyDimNames("D", "2D"), "");
}

// The one product the shape rules and the diagram's expansion of defined dims share: into·by^power.
TEST(DimNames, MultipliesTermsByAPower) {
  // 4·T · (T/2)^-2 = 4·T · 4/T^2 = 16/T.
  DimTerms into{4, 1, {{"T", 1}}};
  ASSERT_TRUE(multiplyDimTerms(into, DimTerms{1, 2, {{"T", 1}}}, -2));
  EXPECT_EQ(into, (DimTerms{16, 1, {{"T", -1}}}));
  // H · (D/H)^1 = D: H's power cancels and is dropped; names keep their first appearance's order.
  DimTerms head{1, 1, {{"H", 1}}};
  ASSERT_TRUE(multiplyDimTerms(head, DimTerms{1, 1, {{"D", 1}, {"H", -1}}}));
  EXPECT_EQ(head, (DimTerms{1, 1, {{"D", 1}}}));
  // 6/1 · (1/4)^1 = 3/2, reduced.
  DimTerms whole{6, 1, {{"B", 1}}};
  ASSERT_TRUE(multiplyDimTerms(whole, DimTerms{1, 4, {}}));
  EXPECT_EQ(whole, (DimTerms{3, 2, {{"B", 1}}}));
  // A whole-number factor past 64 bits, a power past 99: refused.
  DimTerms big{std::int64_t{1} << 62, 1, {{"T", 1}}};
  EXPECT_FALSE(multiplyDimTerms(big, DimTerms{4, 1, {}}));
  DimTerms high{1, 1, {{"T", 99}}};
  EXPECT_FALSE(multiplyDimTerms(high, DimTerms{1, 1, {{"T", 1}}}));
}

TEST(DimNames, Scaling) {
  EXPECT_EQ(scaleDimName("S", 1, 2), "S/2");
  EXPECT_EQ(scaleDimName(scaleDimName("S", 1, 2), 1, 2), "S/4");
  EXPECT_EQ(scaleDimName("S/4", 2, 1), "S/2");
  EXPECT_EQ(scaleDimName("S/2", 2, 1), "S");
  EXPECT_EQ(scaleDimName("D", 2, 1), "2" + kDot + "D");
  EXPECT_EQ(scaleDimName("D", 6, 4), "3" + kDot + "D/2");
  EXPECT_EQ(scaleDimName("", 2, 1), "");
  EXPECT_EQ(scaleDimName("D", 0, 1), "");
  EXPECT_EQ(scaleDimName("D", 1, -2), "");
}

TEST(DimNames, RejectsMalformedNames) {
  for (const std::string& bad :
       {std::string(""), std::string("1"), std::string("2D"), std::string("a//b"), std::string("T^1"),
        std::string("T^100"), std::string("T^0"), std::string("T^02"), std::string("T^"),
        kDot + "T", "T" + kDot, "T" + kDot + kDot + "D", std::string("D/"), std::string("/D"),
        std::string("D/H/K"), "D/H" + kDot + "K", std::string("D/(H"), std::string("(D)"),
        std::string("T^-1"), std::string("T-1"), std::string("D H"), std::string("D/0"),
        std::string("0" + kDot + "D"), std::string("T^99" + kDot + "T"), std::string("T/T")}) {
    EXPECT_FALSE(parseDimName(bad)) << bad;
  }
  EXPECT_FALSE(parseDimName(std::string(kMaxDimNameLength + 1, 'a')));
  EXPECT_TRUE(parseDimName(std::string(kMaxDimNameLength, 'a')));
}

TEST(DimNames, RejectsOverflowingCoefficients) {
  const std::string big = "999999999999999999";  // 18 digits: one fits in 64 bits, two do not
  EXPECT_TRUE(parseDimName(big + kDot + "D"));
  EXPECT_FALSE(parseDimName(big + kDot + big + kDot + "D"));
  EXPECT_FALSE(parseDimName("9999999999999999999" + kDot + "D"));  // 19 digits
  EXPECT_FALSE(parseDimName("D/(" + big + kDot + big + ")"));
  EXPECT_EQ(scaleDimName(big + kDot + "D", 999999999999999999, 1), "");
  EXPECT_EQ(multiplyDimNames(big + kDot + "D", big + kDot + "H"), "");
}

TEST(DimNames, NamesLongerThanTheLimitFormatAsUnknown) {
  const std::string half(kMaxDimNameLength / 2, 'a');
  const std::string other(kMaxDimNameLength / 2, 'b');
  EXPECT_EQ(multiplyDimNames(half, other), "");  // 32 + 2 + 32 bytes > 64
  EXPECT_EQ(multiplyDimNames(half.substr(1), other.substr(1)), half.substr(1) + kDot + other.substr(1));
}

TEST(DimNames, NormalizingClearsAllUnknown) {
  EXPECT_EQ(normalizedDimNames({"", "", ""}), DimNames{});
  EXPECT_EQ(normalizedDimNames({"", "", ""}).capacity(), 0u) << "cleared lists keep no memory";
  EXPECT_EQ(normalizedDimNames({"", "T", ""}), (DimNames{"", "T", ""}));
  EXPECT_EQ(normalizedDimNames({}), DimNames{});
  EXPECT_EQ(dimNameAt({"B", "T"}, 1), "T");
  EXPECT_EQ(dimNameAt({}, 3), "");
}

}  // namespace
}  // namespace nndna::ir
