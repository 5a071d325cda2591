// The algebra of axis names (see dim_names.hpp): parse to canonical terms, combine, format back.
#include "ir/dim_names.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace nndna::ir {

namespace {

constexpr std::string_view kTimes = "\xC2\xB7";  // "·", U+00B7
constexpr int kMaxPower = 99;

bool startsIdentifier(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool continuesIdentifier(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Splits `text` at every "·"; an empty piece makes the whole split fail (nothing returned).
std::optional<std::vector<std::string_view>> splitFactors(std::string_view text) {
  std::vector<std::string_view> pieces;
  while (true) {
    const std::size_t at = text.find(kTimes);
    const std::string_view piece = text.substr(0, at);
    if (piece.empty()) return std::nullopt;
    pieces.push_back(piece);
    if (at == std::string_view::npos) return pieces;
    text.remove_prefix(at + kTimes.size());
  }
}

std::optional<std::int64_t> parseWhole(std::string_view digits) {
  if (digits.empty() || digits.size() > 18 || digits[0] == '0') return std::nullopt;
  std::int64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

void addPower(DimTerms& terms, std::string_view name, int power) {
  for (auto& [existing, p] : terms.powers) {
    if (existing == name) {
      p += power;
      return;
    }
  }
  terms.powers.emplace_back(std::string(name), power);
}

// Multiplies `terms` by one factor ("4", "T", "T^2"), raised to `sign` (1 or -1).
bool addFactor(DimTerms& terms, std::string_view factor, int sign) {
  if (!startsIdentifier(factor[0])) {
    const std::optional<std::int64_t> whole = parseWhole(factor);
    if (!whole) return false;
    std::int64_t& into = sign > 0 ? terms.num : terms.den;
    return !__builtin_mul_overflow(into, *whole, &into);
  }
  const std::size_t caret = factor.find('^');
  const std::string_view name = factor.substr(0, caret);
  if (!isDimIdentifier(name)) return false;
  int power = 1;
  if (caret != std::string_view::npos) {
    const std::optional<std::int64_t> p = parseWhole(factor.substr(caret + 1));
    if (!p || *p < 2 || *p > kMaxPower) return false;
    power = static_cast<int>(*p);
  }
  addPower(terms, name, sign * power);
  return true;
}

bool addProduct(DimTerms& terms, std::string_view text, int sign) {
  const auto factors = splitFactors(text);
  if (!factors) return false;
  return std::all_of(factors->begin(), factors->end(),
                     [&](std::string_view f) { return addFactor(terms, f, sign); });
}

void reduceFraction(DimTerms& terms) {
  const std::int64_t g = std::gcd(terms.num, terms.den);
  if (g > 1) {
    terms.num /= g;
    terms.den /= g;
  }
}

// Drops zero powers, reduces the whole-number factor; false when a power leaves its range.
bool canonicalize(DimTerms& terms) {
  std::erase_if(terms.powers, [](const auto& p) { return p.second == 0; });
  for (const auto& p : terms.powers) {
    if (p.second > kMaxPower || p.second < -kMaxPower) return false;
  }
  reduceFraction(terms);
  return true;
}

std::string factorText(const std::string& name, int power) {
  return power == 1 ? name : name + "^" + std::to_string(power);
}

std::string joinFactors(std::int64_t whole, const std::vector<std::string>& names) {
  std::string out = whole != 1 || names.empty() ? std::to_string(whole) : "";
  for (const std::string& n : names) {
    if (!out.empty()) out += kTimes;
    out += n;
  }
  return out;
}

std::string combine(std::string_view a, std::string_view b, int power) {
  std::optional<DimTerms> left = parseDimName(a);
  std::optional<DimTerms> right = parseDimName(b);
  if (!left || !right || !multiplyDimTerms(*left, *right, power)) return {};
  return formatDimName(*left);
}

}  // namespace

bool multiplyDimTerms(DimTerms& into, const DimTerms& by, int power) {
  if (power < -kMaxPower || power > kMaxPower) return false;
  const std::int64_t num = power > 0 ? by.num : by.den;
  const std::int64_t den = power > 0 ? by.den : by.num;
  for (int i = 0; i < (power < 0 ? -power : power); ++i) {
    if (__builtin_mul_overflow(into.num, num, &into.num) || __builtin_mul_overflow(into.den, den, &into.den)) {
      return false;
    }
    reduceFraction(into);  // each step, so a power's intermediate products stay small
  }
  for (const auto& [name, p] : by.powers) addPower(into, name, p * power);
  return canonicalize(into);
}

bool isDimIdentifier(std::string_view name) {
  if (name.empty() || name.size() > kMaxDimNameLength || !startsIdentifier(name[0])) return false;
  return std::all_of(name.begin() + 1, name.end(), continuesIdentifier);
}

std::optional<DimTerms> parseDimName(std::string_view name) {
  if (name.empty() || name.size() > kMaxDimNameLength) return std::nullopt;
  DimTerms terms;
  const std::size_t slash = name.find('/');
  if (!addProduct(terms, name.substr(0, slash), 1)) return std::nullopt;
  if (slash != std::string_view::npos) {
    // A divisor of several factors is parenthesised and one of a single factor is not, as
    // formatDimName writes them: "D/H·K" would read as (D/H)·K to some and D/(H·K) to others.
    std::string_view below = name.substr(slash + 1);
    const bool parenthesised = below.size() >= 2 && below.front() == '(' && below.back() == ')';
    if (parenthesised) below = below.substr(1, below.size() - 2);
    const bool several = below.find(kTimes) != std::string_view::npos;
    if (below.empty() || parenthesised != several || below.find('/') != std::string_view::npos ||
        !addProduct(terms, below, -1)) {
      return std::nullopt;
    }
  }
  if (!canonicalize(terms) || terms.powers.empty()) return std::nullopt;
  return terms;
}

bool isDimName(std::string_view name) { return isDimIdentifier(name) || parseDimName(name).has_value(); }

std::string formatDimName(const DimTerms& terms) {
  if (terms.powers.empty() || terms.num <= 0 || terms.den <= 0) return {};
  std::vector<std::string> above;
  std::vector<std::string> below;
  for (const auto& [name, power] : terms.powers) {
    if (power > 0) above.push_back(factorText(name, power));
    if (power < 0) below.push_back(factorText(name, -power));
  }
  std::string out = joinFactors(terms.num, above);
  const std::size_t belowCount = below.size() + (terms.den != 1 ? 1 : 0);
  if (belowCount > 0) {
    const std::string denominator = joinFactors(terms.den, below);
    out += belowCount > 1 ? "/(" + denominator + ")" : "/" + denominator;
  }
  return out.size() <= kMaxDimNameLength ? out : std::string();
}

std::string multiplyDimNames(std::string_view a, std::string_view b) { return combine(a, b, 1); }
std::string divideDimNames(std::string_view a, std::string_view b) { return combine(a, b, -1); }

std::string scaleDimName(std::string_view a, std::int64_t num, std::int64_t den) {
  if (num <= 0 || den <= 0) return {};
  std::optional<DimTerms> terms = parseDimName(a);
  if (!terms || !multiplyDimTerms(*terms, DimTerms{num, den, {}})) return {};
  return formatDimName(*terms);
}

bool sameDimName(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return a.empty() && b.empty();
  if (a == b) return true;
  std::optional<DimTerms> left = parseDimName(a);
  std::optional<DimTerms> right = parseDimName(b);
  if (!left || !right) return false;
  std::sort(left->powers.begin(), left->powers.end());
  std::sort(right->powers.begin(), right->powers.end());
  return *left == *right;
}

DimNames normalizedDimNames(DimNames names) {
  const bool any = std::any_of(names.begin(), names.end(), [](const std::string& n) { return !n.empty(); });
  // A fresh empty list rather than clear(): cleared, the list would keep its memory (in the
  // attributes of every reshape, narrow, split_heads... whose sizes have no names).
  if (!any) return {};
  return names;
}

}  // namespace nndna::ir
