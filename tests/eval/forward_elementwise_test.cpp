// Forward values of elementwise ops and reductions against hand-computed values.
#include <cmath>
#include <limits>

#include "eval_test_util.hpp"

namespace nndna::eval::testing {
namespace {

const Feeds kX = {{"x", f32({4}, {-1.0, 0.0, 0.5, 2.0})}};

Value unary(Tensor (*fn)(Tensor)) {
  return run(kX, [fn](const Inputs& in) { return fn(in["x"]); });
}

TEST(EvalUnary, ArithmeticAndPiecewise) {
  expectF32(unary(relu), {4}, {0.0, 0.0, 0.5, 2.0});
  expectF32(unary(neg), {4}, {1.0, -0.0, -0.5, -2.0});
  expectF32(unary(abs), {4}, {1.0, 0.0, 0.5, 2.0});
  expectF32(unary(square), {4}, {1.0, 0.0, 0.25, 4.0});
  expectF32(run(kX, [](const Inputs& in) { return leakyRelu(in["x"], 0.1); }), {4},
            {-0.1, 0.0, 0.5, 2.0});
  expectF32(run(kX, [](const Inputs& in) { return clamp(in["x"], -0.5, 1.0); }), {4},
            {-0.5, 0.0, 0.5, 1.0});
}

// pow against hand-computed powers: whole, fractional, zero and negative exponents; a negative
// base with a fractional exponent is NaN (as std::pow and torch.pow).
TEST(EvalUnary, PowWithANumberExponent) {
  expectF32(run(kX, [](const Inputs& in) { return pow(in["x"], 3); }), {4}, {-1.0, 0.0, 0.125, 8.0});
  expectF32(run(kX, [](const Inputs& in) { return pow(in["x"], 0); }), {4}, {1.0, 1.0, 1.0, 1.0});
  const Feeds pos = {{"x", f32({3}, {0.25, 1.0, 4.0})}};
  expectF32(run(pos, [](const Inputs& in) { return pow(in["x"], 0.5); }), {3}, {0.5, 1.0, 2.0});
  expectF32(run(pos, [](const Inputs& in) { return pow(in["x"], -1.5); }), {3}, {8.0, 1.0, 0.125});
  const Value nan = run(kX, [](const Inputs& in) { return pow(in["x"], 0.5); });
  EXPECT_TRUE(std::isnan(nan.data.at(0)));
}

TEST(EvalUnary, StopGradientAndCaptureAreIdentities) {
  expectF32(unary(stopGradient), {4}, {-1.0, 0.0, 0.5, 2.0});
  expectF32(run(kX, [](const Inputs& in) { return capture("c", in["x"]); }), {4},
            {-1.0, 0.0, 0.5, 2.0});
}

TEST(EvalUnary, Transcendental) {
  const Feeds pos = {{"x", f32({3}, {0.25, 1.0, 4.0})}};
  expectF32(run(pos, [](const Inputs& in) { return sqrt(in["x"]); }), {3}, {0.5, 1.0, 2.0});
  expectF32(run(pos, [](const Inputs& in) { return rsqrt(in["x"]); }), {3}, {2.0, 1.0, 0.5});
  expectF32(run(pos, [](const Inputs& in) { return log(in["x"]); }), {3},
            {-1.3862943611198906, 0.0, 1.3862943611198906});
  expectF32(unary(exp), {4}, {0.36787944117144233, 1.0, 1.6487212707001282, 7.38905609893065});
  expectF32(unary(sin), {4}, {-0.8414709848078965, 0.0, 0.479425538604203, 0.9092974268256817});
  expectF32(unary(cos), {4}, {0.5403023058681398, 1.0, 0.8775825618903728, -0.4161468365471424});
  expectF32(unary(erf), {4}, {-0.8427007929497149, 0.0, 0.5204998778130465, 0.9953222650189527});
  expectF32(unary(tanh), {4}, {-0.7615941559557649, 0.0, 0.46211715726000974, 0.9640275800758169});
}

TEST(EvalUnary, Activations) {
  expectF32(unary(sigmoid), {4}, {0.2689414213699951, 0.5, 0.6224593312018546, 0.8807970779778823});
  expectF32(unary(silu), {4}, {-0.2689414213699951, 0.0, 0.3112296656009273, 1.7615941559557646});
  const Feeds g = {{"x", f32({3}, {-1.0, 0.0, 1.0})}};
  expectF32(run(g, [](const Inputs& in) { return gelu(in["x"]); }), {3},
            {-0.15865525393145707, 0.0, 0.8413447460685429});
  expectF32(run(g, [](const Inputs& in) {
              return gelu(in["x"], {.approximate = GeluApproximate::tanh});
            }),
            {3}, {-0.15880800939172324, 0.0, 0.8411919906082768});
  // softplus is stable on both tails: log(1 + e^40) is 40, log(1 + e^-40) is e^-40.
  const Feeds sp = {{"x", f32({4}, {-40.0, 0.0, 2.0, 40.0})}};
  expectF32(run(sp, [](const Inputs& in) { return softplus(in["x"]); }), {4},
            {4.248354255291589e-18, 0.6931471805599453, 2.1269280110429727, 40.0});
}

TEST(EvalBinary, BroadcastsTrailingAxes) {
  const Feeds feeds = {{"a", iota({2, 3}, 1)},
                       {"row", f32({3}, {10, 20, 30})},
                       {"col", f32({2, 1}, {1, 2})}};
  expectF32(run(feeds, [](const Inputs& in) { return add(in["a"], in["row"]); }), {2, 3},
            {11, 22, 33, 14, 25, 36});
  expectF32(run(feeds, [](const Inputs& in) { return sub(in["a"], in["col"]); }), {2, 3},
            {0, 1, 2, 2, 3, 4});
  // [2, 1] with [3] broadcasts both ways to [2, 3].
  expectF32(run(feeds, [](const Inputs& in) { return mul(in["col"], in["row"]); }), {2, 3},
            {10, 20, 30, 20, 40, 60});
  expectF32(run(feeds, [](const Inputs& in) { return div(in["row"], in["col"]); }), {2, 3},
            {10, 20, 30, 5, 10, 15});
  expectF32(run(feeds, [](const Inputs& in) { return max(in["a"], in["col"]); }), {2, 3},
            {1, 2, 3, 4, 5, 6});
  expectF32(run(feeds, [](const Inputs& in) { return min(in["a"], in["col"]); }), {2, 3},
            {1, 1, 1, 2, 2, 2});
}

TEST(EvalBinary, ScalarOperandsOnEitherSide) {
  const Feeds feeds = {{"x", f32({3}, {1, 2, 4})}};
  expectF32(run(feeds, [](const Inputs& in) { return sub(1.0, in["x"]); }), {3}, {0, -1, -3});
  expectF32(run(feeds, [](const Inputs& in) { return sub(in["x"], 1.0); }), {3}, {0, 1, 3});
  expectF32(run(feeds, [](const Inputs& in) { return div(1.0, in["x"]); }), {3}, {1, 0.5, 0.25});
  expectF32(run(feeds, [](const Inputs& in) { return div(in["x"], 4.0); }), {3}, {0.25, 0.5, 1});
  expectF32(run(feeds, [](const Inputs& in) { return max(in["x"], 2.0); }), {3}, {2, 2, 4});
  expectF32(run(feeds, [](const Inputs& in) { return mul(3.0, in["x"]); }), {3}, {3, 6, 12});
}

TEST(EvalBinary, ComparisonsGiveBooleansUsableAsNumbers) {
  const Feeds feeds = {{"a", f32({3}, {1, 2, 3})}, {"b", f32({3}, {2, 2, 2})}};
  expectValue(run(feeds, [](const Inputs& in) { return less(in["a"], in["b"]); }), {3},
              DType::boolean, {1, 0, 0});
  expectValue(run(feeds, [](const Inputs& in) { return greater(in["a"], 1.5); }), {3},
              DType::boolean, {0, 1, 1});
  // A boolean in arithmetic counts as 0/1 of the other operand's type.
  expectF32(run(feeds, [](const Inputs& in) { return mul(greater(in["a"], 1.5), in["a"]); }), {3},
            {0, 2, 3});
}

TEST(EvalBinary, IntegerArithmeticTruncatesAndWraps) {
  const Feeds feeds = {{"a", i32({4}, {-7, 7, 2147483647, -5})}, {"b", i32({4}, {2, 2, 1, 3})}};
  expectValue(run(feeds, [](const Inputs& in) { return div(in["a"], in["b"]); }), {4}, DType::i32,
              {-3, 3, 2147483647, -1});
  expectValue(run(feeds, [](const Inputs& in) { return add(in["a"], in["b"]); }), {4}, DType::i32,
              {-5, 9, -2147483648.0, -2});
  const Feeds zero = {{"a", i32({1}, {1})}, {"b", i32({1}, {0})}};
  EXPECT_THROW(run(zero, [](const Inputs& in) { return div(in["a"], in["b"]); }), EvalError);
}

TEST(EvalWhere, BroadcastsConditionAndBranches) {
  const Feeds feeds = {{"c", Value({2, 1}, DType::boolean, {1, 0})},
                       {"a", iota({2, 3}, 1)},
                       {"b", f32({1}, {-1})}};
  expectF32(run(feeds, [](const Inputs& in) { return where(in["c"], in["a"], in["b"]); }), {2, 3},
            {1, 2, 3, -1, -1, -1});
}

TEST(EvalReduce, AxesKeepDimsAndNegativeAxes) {
  const Feeds feeds = {{"x", iota({2, 3}, 1)}};  // [[1, 2, 3], [4, 5, 6]]
  expectF32(run(feeds, [](const Inputs& in) { return sum(in["x"]); }), {}, {21});
  expectF32(run(feeds, [](const Inputs& in) { return mean(in["x"]); }), {}, {3.5});
  expectF32(run(feeds, [](const Inputs& in) { return sum(in["x"], -1); }), {2}, {6, 15});
  expectF32(run(feeds, [](const Inputs& in) { return sum(in["x"], 0, {.keepDims = true}); }),
            {1, 3}, {5, 7, 9});
  expectF32(run(feeds, [](const Inputs& in) { return mean(in["x"], -2); }), {3}, {2.5, 3.5, 4.5});
  expectF32(run(feeds, [](const Inputs& in) { return mean(in["x"], 1, {.keepDims = true}); }),
            {2, 1}, {2, 5});
  const Feeds ints = {{"x", i32({2, 2}, {1, 2, 3, 4})}};
  expectValue(run(ints, [](const Inputs& in) { return sum(in["x"], 1); }), {2}, DType::i32, {3, 7});
}

TEST(EvalReduce, ArgmaxAndArgminTakeTheFirstExtreme) {
  const Feeds feeds = {{"x", f32({2, 4}, {1, 3, 3, 0, 5, 2, 5, -1})}};
  expectValue(run(feeds, [](const Inputs& in) { return argmax(in["x"]); }), {2}, DType::i32,
              {1, 0});
  expectValue(run(feeds, [](const Inputs& in) { return argmin(in["x"], -1); }), {2}, DType::i32,
              {3, 3});
  expectValue(run(feeds, [](const Inputs& in) { return argmax(in["x"], 0); }), {4}, DType::i32,
              {1, 0, 1, 0});
}

}  // namespace
}  // namespace nndna::eval::testing
