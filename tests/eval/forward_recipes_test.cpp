// Recipes built from topk, arange with start and step, pad and cumsum, evaluated against values
// derived by hand: a mixture-of-experts router's gates, causal masks and position ids, a padded
// convolution input.
#include "eval_test_util.hpp"

namespace nndna::eval::testing {
namespace {

// Mixtral's router on probabilities [B, T, E]: the top 2 renormalised, scattered to [B, T, E].
Tensor topTwoGates(Tensor probs) {
  const Shape s = probs.shape();
  auto [top, chosen] = topk(probs, 2);
  Tensor weights = div(top, sum(top, -1, {.keepDims = true}));
  return sum(mul(oneHot(chosen, s[2]), reshape(weights, {s[0], s[1], 2, 1})), -2);
}

TEST(EvalRecipes, TopTwoRouterGates) {
  // Token 0: 0.4 (expert 1) and 0.3 (expert 3) -> 4/7, 3/7. Token 1: 0.4 (expert 2), then the
  // tie of 0.25 goes to the lower index, expert 0 -> 0.4/0.65 = 8/13, 0.25/0.65 = 5/13.
  const Feeds feeds = {{"p", f32({1, 2, 4}, {0.1, 0.4, 0.2, 0.3, 0.25, 0.25, 0.4, 0.1})}};
  expectF32(run(feeds, [](const Inputs& in) { return topTwoGates(in["p"]); }), {1, 2, 4},
            {0, 4.0 / 7, 0, 3.0 / 7, 5.0 / 13, 0, 8.0 / 13, 0}, 1e-15);
}

TEST(EvalRecipes, CausalMaskAndPositionIdsFromArange) {
  const Feeds none = {{"x", f32({1}, {0})}};
  // The future of each row: column > row.
  auto future = [](const Inputs&) {
    return greater(reshape(arange(0, 4), {1, 4}), reshape(arange(0, 4), {4, 1}));
  };
  expectValue(run(none, future), {4, 4}, DType::boolean,
              {0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0});
  // Equal scores, the future masked: row i spreads 1/(i + 1) over columns 0..i.
  expectF32(run(none, [&](const Inputs& in) {
              Tensor scores = zeros({4, 4});
              return softmax(where(future(in), sub(scores, 1e9), scores));
            }),
            {4, 4},
            {1, 0, 0, 0, 0.5, 0.5, 0, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 0.25, 0.25, 0.25, 0.25}, 1e-15);
  // Positions continuing a cached prefix of 3 tokens; every second position counting down from 6
  // (ceil(-7 / -2) = 4 values); f32 half steps (ceil(1.5 / 0.5) = 3 values).
  expectValue(run(none, [](const Inputs&) { return arange(3, 7); }), {4}, DType::i32, {3, 4, 5, 6});
  expectValue(run(none, [](const Inputs&) { return arange(6, -1, -2); }), {4}, DType::i32, {6, 4, 2, 0});
  expectF32(run(none, [](const Inputs&) { return arange(0.5, 2, 0.5, DType::f32); }), {3}, {0.5, 1, 1.5});
  // Position ids of a left-padded batch row: cumsum of the attention mask, minus 1, clamped at 0.
  const Feeds mask = {{"m", i32({6}, {0, 0, 1, 1, 1, 1})}};
  expectValue(run(mask, [](const Inputs& in) { return clamp(sub(cumsum(in["m"], 0), 1.0), 0, 1e9); }), {6},
              DType::i32, {0, 0, 0, 1, 2, 3});
}

TEST(EvalRecipes, PaddedConvolutionInput) {
  // x = [[1, 2], [3, 4]] padded with 1s: one column in front, one row after ->
  // [[1, 1, 2], [1, 3, 4], [1, 1, 1]]; a 2×2 kernel of ones sums each window.
  const Feeds feeds = {{"x", f32({1, 1, 2, 2}, {1, 2, 3, 4})}, {"w", f32({1, 1, 2, 2}, {1, 1, 1, 1})}};
  expectF32(run(feeds, [](const Inputs& in) { return pad(in["x"], {1, 0, 0, 1}, 1.0); }), {1, 1, 3, 3},
            {1, 1, 2, 1, 3, 4, 1, 1, 1});
  expectF32(run(feeds, [](const Inputs& in) { return conv2d(pad(in["x"], {1, 0, 0, 1}, 1.0), in["w"]); }),
            {1, 1, 2, 2}, {1 + 1 + 1 + 3, 1 + 2 + 3 + 4, 1 + 3 + 1 + 1, 3 + 4 + 1 + 1});
  // Zero padding of 1 on each side equals the convolution's own padding: every window of the
  // 4×4 zero-padded input under a 2×2 kernel of ones (out 3×3): corners one element, edges two,
  // the centre all four.
  expectF32(run(feeds, [](const Inputs& in) { return conv2d(pad(in["x"], {1, 1, 1, 1}), in["w"]); }),
            {1, 1, 3, 3}, {1, 3, 2, 4, 10, 6, 3, 7, 4});
  expectF32(run(feeds, [](const Inputs& in) { return conv2d(in["x"], in["w"], {.padding = 1}); }),
            {1, 1, 3, 3}, {1, 3, 2, 4, 10, 6, 3, 7, 4});
}

}  // namespace
}  // namespace nndna::eval::testing
