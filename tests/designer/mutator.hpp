// A small, deterministic mutation fuzzer for the designer's readers of untrusted input (a model's
// answers, an endpoint's bodies and headers, a user's description and spec): from seed inputs it
// makes mutated ones — bytes flipped, inserted, deleted, ranges duplicated, seeds spliced, words
// of the format's dictionary dropped in — and hands each to the reader. Run under the sanitizers
// (the unit label), a crash, leak or undefined behaviour is a finding; the test then names the
// round so it can be replayed. Seeded, so every run sees the same inputs.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace nndna::designer::testing {

class Mutator {
 public:
  Mutator(std::vector<std::string> seeds, std::vector<std::string> dictionary, std::uint64_t seed)
      : seeds_(std::move(seeds)), dictionary_(std::move(dictionary)), random_(seed) {}

  // The input of the next round: a seed with 1 to 8 mutations stacked.
  std::string next() {
    std::string text = pick(seeds_);
    const int mutations = 1 + static_cast<int>(below(8));
    for (int m = 0; m < mutations; ++m) mutate(text);
    return text;
  }

 private:
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(random_() % n); }
  const std::string& pick(const std::vector<std::string>& from) { return from[below(from.size())]; }

  void mutate(std::string& text) {
    const std::size_t at = below(text.size() + 1);
    switch (below(7)) {
      case 0:  // flip a bit
        if (!text.empty()) text[below(text.size())] ^= static_cast<char>(1u << below(8));
        break;
      case 1:  // a random byte
        text.insert(at, 1, static_cast<char>(below(256)));
        break;
      case 2:  // delete a range
        if (!text.empty()) text.erase(below(text.size()), 1 + below(16));
        break;
      case 3: {  // duplicate a range, up to 64 times (deep nesting, long runs)
        if (text.empty()) break;
        const std::size_t from = below(text.size());
        const std::string piece = text.substr(from, 1 + below(8));
        std::string repeated;
        for (std::size_t r = 1 + below(64); r > 0; --r) repeated += piece;
        text.insert(at, repeated);
        break;
      }
      case 4: {  // splice another seed in
        const std::string& other = pick(seeds_);
        const std::size_t from = below(other.size());
        text.insert(at, other.substr(from, below(other.size() - from + 1)));
        break;
      }
      case 5:  // a word of the format
        if (!dictionary_.empty()) text.insert(at, pick(dictionary_));
        break;
      default:  // truncate
        text.resize(at);
        break;
    }
    if (text.size() > kMaxInput) text.resize(kMaxInput);
  }

  static constexpr std::size_t kMaxInput = 64 * 1024;
  std::vector<std::string> seeds_;
  std::vector<std::string> dictionary_;
  std::mt19937_64 random_;
};

}  // namespace nndna::designer::testing
