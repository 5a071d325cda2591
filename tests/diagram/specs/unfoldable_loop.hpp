// A loop that cannot fold, for the large-diagram test and benchmark: iteration i runs a block
// whose inner one-line loop repeats r(i) times, r drawn from a square-free word over {1, 2, 3}.
// The exact signatures therefore never repeat (a repeat would be a square in r), the loose ones
// all match (inner repeats collapse), and the leaf counts differ: one loop drawn per iteration,
// three boxes each (the block's projection, its folded inner loop, the relu after it).
#pragma once

#include <nndna/nndna.hpp>

namespace unfoldable {

using namespace nndna;

constexpr int B = 8;
constexpr int D = 16;

// The number of 1s between the i-th and (i+1)-th 0 of the Thue–Morse sequence, plus one: a
// square-free word over {1, 2, 3}.
inline int repeats(int i) {
  auto tm = [](unsigned n) { return __builtin_popcount(n) & 1; };
  unsigned pos = 0;
  for (int zeros = 0; zeros <= i; ++pos) {
    if (tm(pos) == 0) ++zeros;
  }
  int ones = 0;
  while (tm(pos) == 1) {
    ++ones;
    ++pos;
  }
  return ones + 1;
}

struct Net : Module {
  Linear proj{"proj", D, D};
};

inline Tensor block(const Net& m, Tensor x, int r) {
  Tensor h = m.proj(x);
  for (int j = 0; j < r; ++j) h = tanh(add(h, 1.0));
  return h;
}

template <int N>
Tensor run(Net& m, const Inputs& in) {
  Tensor x = in["x"];
  for (int i = 0; i < N; ++i) {
    x = block(m, x, repeats(i));
    x = relu(x);
  }
  return x;
}

inline Tensor loss(Net& m, const Inputs& in) { return mean(square(block(m, in["x"], 1))); }

template <int N>
Spec<Net> spec() {
  return {
      .label = "Unfoldable loop",
      .description = "A loop whose iterations differ in their inner repeat count.",
      .loss = loss,
      .inputs = {{"x", {B, D}}},
      .optimizer = Adam{},
      .predict = run<N>,
      .predictInputs = {{"x", {B, D}}},
      .dims = {{B, "B", "batch"}, {D, "D", "width"}},
  };
}

}  // namespace unfoldable
