// Counter-based random numbers: each draw is a pure function of (stream, index), so any op can be
// re-evaluated, or mirrored by a backward op carrying the same seed, and draw the same values.
#pragma once

#include <cstdint>
#include <string_view>

namespace nndna::eval {

// A stream of independent draws, keyed by a run seed and a stream key (an op's attrs.seed, or a
// parameter name's hash).
class RandomStream {
 public:
  RandomStream(std::uint64_t runSeed, std::uint64_t streamKey);

  // Uniform in [0, 1), 53 random bits.
  double uniform(std::uint64_t index) const;
  // Uniform in the open interval (0, 1): safe under log() and log(-log()).
  double uniformOpen(std::uint64_t index) const;
  // Standard normal (Box–Muller over draws 2·index and 2·index + 1).
  double normal(std::uint64_t index) const;

 private:
  std::uint64_t key_;
};

// A stable 64-bit hash of a name (FNV-1a), for streams keyed by parameter names.
std::uint64_t hashName(std::string_view name);

}  // namespace nndna::eval
