#include "eval/random.hpp"

#include <cmath>
#include <numbers>

namespace nndna::eval {

namespace {
// splitmix64's finaliser: a bijective mix with full avalanche.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

RandomStream::RandomStream(std::uint64_t runSeed, std::uint64_t streamKey)
    : key_(mix(mix(runSeed) ^ (streamKey * 0xd6e8feb86659fd93ull + 0x2545f4914f6cdd1dull))) {}

double RandomStream::uniform(std::uint64_t index) const {
  const std::uint64_t bits = mix(key_ ^ mix(index));
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

double RandomStream::uniformOpen(std::uint64_t index) const {
  // 52 bits plus one half: exact in a double, never 0 nor 1.
  const std::uint64_t bits = mix(key_ ^ mix(index));
  return (static_cast<double>(bits >> 12) + 0.5) * 0x1.0p-52;
}

double RandomStream::normal(std::uint64_t index) const {
  const double u1 = uniformOpen(2 * index);
  const double u2 = uniform(2 * index + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

std::uint64_t hashName(std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace nndna::eval
