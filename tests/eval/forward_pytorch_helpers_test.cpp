// The PyTorch helpers built from other ops (squeeze, unsqueeze, select, chunk, the hard
// activations, the element-wise losses): values against hand computations, gradients by finite
// differences, names kept, and errors that name the helper the user called.
#include <cmath>
#include <limits>

#include "gradcheck.hpp"

namespace nndna::eval::testing {
namespace {

// The message of the TraceError `fn` raises, without the calls that led to it.
std::string errorOf(const Feeds& feeds, const Fn& fn) {
  try {
    traceFunction(declsOf(feeds), fn);
  } catch (const TraceError& e) {
    const std::string message = e.message();
    return message.substr(0, message.find(" (called from "));
  }
  return "no error";
}

TEST(EvalPytorchHelpers, SqueezeAndUnsqueezeRemoveAndInsertOneAxis) {
  const Feeds feeds = {{"x", f32({2, 1, 3}, {1, 2, 3, 4, 5, 6})}};
  expectF32(run(feeds, [](const Inputs& in) { return squeeze(in["x"], 1); }), {2, 3}, {1, 2, 3, 4, 5, 6});
  expectF32(run(feeds, [](const Inputs& in) { return squeeze(in["x"], -2); }), {2, 3}, {1, 2, 3, 4, 5, 6});
  expectF32(run(feeds, [](const Inputs& in) { return unsqueeze(in["x"], 0); }), {1, 2, 1, 3}, {1, 2, 3, 4, 5, 6});
  // After the last axis, as PyTorch allows.
  expectF32(run(feeds, [](const Inputs& in) { return unsqueeze(in["x"], -1); }), {2, 1, 3, 1}, {1, 2, 3, 4, 5, 6});
  expectF32(run(feeds, [](const Inputs& in) { return unsqueeze(in["x"], 3); }), {2, 1, 3, 1}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(errorOf(feeds, [](const Inputs& in) { return squeeze(in["x"], 0); }),
            "squeeze: axis 0 of [2, 1, 3] has size 2, not 1");
  EXPECT_NE(errorOf(feeds, [](const Inputs& in) { return unsqueeze(in["x"], 4); }).find("unsqueeze: "),
            std::string::npos);
}

TEST(EvalPytorchHelpers, SelectTakesOnePositionAndDropsItsAxis) {
  // [2, 3, 2]: x[:, 0] is BERT's [CLS] state, x[:, -1] the last step's.
  const Feeds feeds = {{"x", f32({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})}};
  expectF32(run(feeds, [](const Inputs& in) { return select(in["x"], 1, 0); }), {2, 2}, {0, 1, 6, 7});
  expectF32(run(feeds, [](const Inputs& in) { return select(in["x"], 1, -1); }), {2, 2}, {4, 5, 10, 11});
  expectF32(run(feeds, [](const Inputs& in) { return select(in["x"], -1, 1); }), {2, 3}, {1, 3, 5, 7, 9, 11});
  EXPECT_EQ(errorOf(feeds, [](const Inputs& in) { return select(in["x"], 1, 3); }),
            "select: index 3 is out of range for axis 1 of [2, 3, 2] (size 3)");
  EXPECT_EQ(errorOf(feeds, [](const Inputs& in) { return select(in["x"], 1, -4); }),
            "select: index -4 is out of range for axis 1 of [2, 3, 2] (size 3)");
}

TEST(EvalPytorchHelpers, ChunkCutsEqualPiecesTheLastSmaller) {
  const Feeds feeds = {{"x", f32({1, 5}, {0, 1, 2, 3, 4})}};
  auto pieces = [&](std::int64_t chunks) {
    std::vector<Shape> shapes;
    traceFunction(declsOf(feeds), [&](const Inputs& in) {
      for (const Tensor& t : chunk(in["x"], chunks, -1)) shapes.push_back(t.shape());
      return in["x"];
    });
    return shapes;
  };
  // ceil(5 / 2) = 3: [3, 2]; ceil(5 / 3) = 2: [2, 2, 1]; ceil(5 / 4) = 2: three pieces, not four
  // (PyTorch's rule); 5 / 5: five of one.
  EXPECT_EQ(pieces(2), (std::vector<Shape>{{1, 3}, {1, 2}}));
  EXPECT_EQ(pieces(3), (std::vector<Shape>{{1, 2}, {1, 2}, {1, 1}}));
  EXPECT_EQ(pieces(4), (std::vector<Shape>{{1, 2}, {1, 2}, {1, 1}}));
  EXPECT_EQ(pieces(5).size(), 5u);
  expectF32(run(feeds, [](const Inputs& in) { return chunk(in["x"], 2, 1)[1]; }), {1, 2}, {3, 4});
  EXPECT_EQ(errorOf(feeds, [](const Inputs& in) { return chunk(in["x"], 0, 1)[0]; }),
            "chunk: chunks must be positive, got 0");
}

// Named axes pass through: unsqueeze's new axis and select's dropped one leave the others' names.
TEST(EvalPytorchHelpers, ViewsKeepTheAxesNames) {
  constexpr Dim B{"B", 2, "batch"}, T{"T", 3, "steps"}, D{"D", 4, "width"};
  auto namesOf = [&](const Fn& fn) {
    const ir::Graph g = traceFunction({{"x", {B, T, D}}}, fn);
    return g.tensor(g.outputs.at(0)).names;
  };
  EXPECT_EQ(namesOf([](const Inputs& in) { return select(in["x"], 1, 0); }), (ir::DimNames{"B", "D"}));
  EXPECT_EQ(namesOf([](const Inputs& in) { return squeeze(unsqueeze(in["x"], 1), 1); }), (ir::DimNames{"B", "T", "D"}));
  EXPECT_EQ(namesOf([](const Inputs& in) { return chunk(in["x"], 2, -1)[0]; }), (ir::DimNames{"B", "T", ""}));
}

TEST(EvalPytorchHelpers, HardActivationsAsPytorchDefinesThem) {
  const Feeds feeds = {{"x", f32({6}, {-4, -3, -1.5, 0, 2, 7})}};
  expectF32(run(feeds, [](const Inputs& in) { return relu6(in["x"]); }), {6}, {0, 0, 0, 0, 2, 6});
  // relu6(x + 3) / 6
  expectF32(run(feeds, [](const Inputs& in) { return hardsigmoid(in["x"]); }), {6}, {0, 0, 0.25, 0.5, 5.0 / 6, 1});
  expectF32(run(feeds, [](const Inputs& in) { return hardswish(in["x"]); }), {6}, {0, 0, -0.375, 0, 10.0 / 6, 7});
  // Away from the kinks at -3, 0 (relu6) and 3, 6.
  for (Tensor (*fn)(Tensor) : {relu6, hardsigmoid, hardswish}) {
    checkGradients(opProblem({{"x", randomF32({2, 3}, 5, -5, 8, {-3, 0, 3, 6})}},
                             [fn](const Inputs& in) { return fn(in["x"]); }));
  }
}

TEST(EvalPytorchHelpers, EluAndMishAsPytorchDefinesThem) {
  const Feeds feeds = {{"x", f32({4}, {-1000, -1, 0, 2})}};
  // alpha·(e^x − 1) below 0: -alpha far out (no overflow), e^-1 − 1 at -1; x above.
  expectF32(run(feeds, [](const Inputs& in) { return elu(in["x"]); }), {4}, {-1, std::exp(-1.0) - 1, 0, 2}, 1e-15);
  expectF32(run(feeds, [](const Inputs& in) { return elu(in["x"], 0.5); }), {4},
            {-0.5, 0.5 * (std::exp(-1.0) - 1), 0, 2}, 1e-15);
  // x · tanh(ln(1 + e^x)): 0 at 0, about -0 far below, x far above.
  auto mishOf = [](double x) { return x * std::tanh(std::log1p(std::exp(x))); };
  expectF32(run(feeds, [](const Inputs& in) { return mish(in["x"]); }), {4},
            {mishOf(-1000), mishOf(-1), 0, mishOf(2)}, 1e-12);
  // Large positive inputs to elu: e^x of the dropped branch is never formed, so no NaN gradient.
  checkGradients(opProblem({{"x", f32({3}, {800, -2, 1.5})}}, [](const Inputs& in) { return elu(in["x"]); }));
  checkGradients(opProblem({{"x", randomF32({2, 3}, 9, -4, 4, {0})}}, [](const Inputs& in) { return elu(in["x"], 0.7); }));
  checkGradients(opProblem({{"x", randomF32({2, 3}, 10, -4, 4)}}, [](const Inputs& in) { return mish(in["x"]); }));
}

TEST(EvalPytorchHelpers, NormalizeDividesByTheNormAlongDim) {
  // Rows [3, 4] and [0, 0] along dim 1 (the default): 5 and 0 -> eps, which keeps zeros zero.
  const Feeds feeds = {{"x", f32({2, 2}, {3, 4, 0, 0})}};
  expectF32(run(feeds, [](const Inputs& in) { return normalize(in["x"]); }), {2, 2}, {0.6, 0.8, 0, 0}, 1e-15);
  // Along dim 0: columns [3, 0] and [4, 0].
  expectF32(run(feeds, [](const Inputs& in) { return normalize(in["x"], {.dim = 0}); }), {2, 2}, {1, 1, 0, 0}, 1e-15);
  // p = 1: |1| + |-3| = 4.
  const Feeds l1 = {{"x", f32({1, 2}, {1, -3})}};
  expectF32(run(l1, [](const Inputs& in) { return normalize(in["x"], {.p = 1, .dim = -1}); }), {1, 2}, {0.25, -0.75},
            1e-15);
  // A norm below eps is eps.
  const Feeds tiny = {{"x", f32({1, 2}, {3e-13, 4e-13})}};
  expectF32(run(tiny, [](const Inputs& in) { return normalize(in["x"], {.eps = 1e-12}); }), {1, 2}, {0.3, 0.4}, 1e-15);
  checkGradients(opProblem({{"x", randomF32({3, 4}, 11, -2, 2)}}, [](const Inputs& in) { return normalize(in["x"]); }));
  // A zero row and one under eps divide by eps (gradient g / eps, finite: no square root of 0 on
  // the gradient's path); a row above eps by its norm.
  checkGradients(opProblem({{"x", f32({3, 3}, {0, 0, 0, 2, -1, 3, 0.3, 0.2, 0.1})}},
                           [](const Inputs& in) { return normalize(in["x"], {.eps = 1}); }));
  checkGradients(opProblem({{"x", randomF32({3, 4}, 12, 0.5, 2)}},
                           [](const Inputs& in) { return normalize(in["x"], {.p = 3, .dim = 0}); }));
  EXPECT_EQ(errorOf(feeds, [](const Inputs& in) { return normalize(in["x"], {.dim = 2}); }),
            "normalize: dim 2 is out of range for rank 2 (expected -2..1)");
  EXPECT_EQ(errorOf(feeds, [](const Inputs& in) { return normalize(in["x"], {.p = 0}); }),
            "normalize: p must be a positive number, got 0");
}

TEST(EvalPytorchHelpers, ElementwiseLossesWithEachReduction) {
  const Feeds feeds = {{"p", f32({2, 2}, {1, -2, 0.5, 3})}, {"t", f32({2, 2}, {0, 1, 0.5, 1})}};
  // Differences 1, -3, 0, 2.
  expectF32(run(feeds, [](const Inputs& in) { return mseLoss(in["p"], in["t"]); }), {}, {(1 + 9 + 0 + 4) / 4.0});
  expectF32(run(feeds, [](const Inputs& in) { return mseLoss(in["p"], in["t"], {.reduction = Reduction::sum}); }),
            {}, {14});
  expectF32(run(feeds, [](const Inputs& in) { return l1Loss(in["p"], in["t"], {.reduction = Reduction::none}); }),
            {2, 2}, {1, 3, 0, 2});
  expectF32(run(feeds, [](const Inputs& in) { return l1Loss(in["p"], in["t"]); }), {}, {1.5});
  // -(t·log σ(x) + (1 - t)·log(1 - σ(x))), element by element.
  auto bce = [](double x, double t) {
    const double s = 1 / (1 + std::exp(-x));
    return -(t * std::log(s) + (1 - t) * std::log(1 - s));
  };
  expectF32(run(feeds, [](const Inputs& in) {
              return binaryCrossEntropyWithLogits(in["p"], in["t"], {.reduction = Reduction::none});
            }),
            {2, 2}, {bce(1, 0), bce(-2, 1), bce(0.5, 0.5), bce(3, 1)}, 1e-12);
  // Large logits neither overflow nor lose the small terms: x = 100, t = 0 costs 100; x = -100,
  // t = 0 costs log(1 + e^-100).
  const Feeds big = {{"p", f32({2}, {100, -100})}, {"t", f32({2}, {0, 0})}};
  expectF32(run(big, [](const Inputs& in) {
              return binaryCrossEntropyWithLogits(in["p"], in["t"], {.reduction = Reduction::none});
            }),
            {2}, {100, std::log1p(std::exp(-100.0))}, 1e-12);
  for (const Fn& loss : {Fn([](const Inputs& in) { return mseLoss(in["p"], in["t"]); }),
                         Fn([](const Inputs& in) { return binaryCrossEntropyWithLogits(in["p"], in["t"]); })}) {
    checkGradients(opProblem({{"p", randomF32({2, 3}, 6)}, {"t", randomF32({2, 3}, 7, 0, 1)}}, loss, {"p"}));
  }
}

// Differences 0, 0.5, 2, -3. Huber with delta 1: 0.5·d² inside (0, 0.125), d·1 - 0.5 beyond
// (1.5, 2.5); delta 2: 0, 0.125, 2 (still inside), 2·3 - 2 = 4. Smooth L1 of beta 2 is Huber of
// delta 2 divided by 2; beta 0 is the L1 loss.
TEST(EvalPytorchHelpers, HuberAndSmoothL1LossesAsPytorchDefinesThem) {
  const Feeds feeds = {{"p", f32({4}, {0, 0.5, 2, -3})}, {"t", f32({4}, {0, 0, 0, 0})}};
  const auto none = Reduction::none;
  expectF32(run(feeds, [&](const Inputs& in) { return huberLoss(in["p"], in["t"], {.reduction = none}); }), {4},
            {0, 0.125, 1.5, 2.5});
  expectF32(run(feeds, [](const Inputs& in) { return huberLoss(in["p"], in["t"]); }), {}, {4.125 / 4});
  expectF32(run(feeds, [&](const Inputs& in) { return huberLoss(in["p"], in["t"], {.delta = 2, .reduction = none}); }),
            {4}, {0, 0.125, 2, 4});
  expectF32(run(feeds, [](const Inputs& in) { return smoothL1Loss(in["p"], in["t"], {.beta = 2, .reduction = Reduction::sum}); }),
            {}, {0 + 0.0625 + 1 + 2});
  expectF32(run(feeds, [&](const Inputs& in) { return smoothL1Loss(in["p"], in["t"], {.beta = 0, .reduction = none}); }),
            {4}, {0, 0.5, 2, 3});
  expectF32(run(feeds, [&](const Inputs& in) { return smoothL1Loss(in["p"], in["t"], {.reduction = none}); }), {4},
            {0, 0.125, 1.5, 2.5});
  // Differences away from 0 and from ±delta, on both sides of it.
  const Feeds spread = {{"p", f32({2, 3}, {-2.5, -0.7, -0.2, 0.3, 0.9, 1.6})}, {"t", f32({2, 3}, {0, 0, 0, 0, 0, 0})}};
  checkGradients(opProblem(spread, [](const Inputs& in) { return huberLoss(in["p"], in["t"]); }, {"p"}));
  checkGradients(opProblem(spread, [](const Inputs& in) { return smoothL1Loss(in["p"], in["t"], {.beta = 0.5}); }, {"p"}));
  EXPECT_EQ(errorOf(feeds, [](const Inputs& in) { return huberLoss(in["p"], in["t"], {.delta = 0}); }),
            "huberLoss: delta must be a positive number, got 0");
  EXPECT_EQ(errorOf(feeds, [](const Inputs& in) { return smoothL1Loss(in["p"], in["t"], {.beta = -1}); }),
            "smoothL1Loss: beta must be at least 0, got -1");
}

// log Σ exp over the last axis: 3 + log(1 + e^-1 + e^-2) for 1, 2, 3, and 1000 + log 3 for three
// 1000s (no exp overflows); its gradient is softmax.
TEST(EvalPytorchHelpers, LogsumexpIsShiftedByTheMaximum) {
  const Feeds feeds = {{"x", f32({2, 3}, {1, 2, 3, 1000, 1000, 1000})}};
  const double first = 3 + std::log(1 + std::exp(-1.0) + std::exp(-2.0));
  expectF32(run(feeds, [](const Inputs& in) { return logsumexp(in["x"], -1); }), {2}, {first, 1000 + std::log(3.0)},
            1e-12);
  expectF32(run(feeds, [](const Inputs& in) { return logsumexp(in["x"], 1, {.keepDims = true}); }), {2, 1},
            {first, 1000 + std::log(3.0)}, 1e-12);
  expectF32(run(feeds, [](const Inputs& in) { return logsumexp(in["x"], 0); }), {3},
            {1000 + std::log1p(std::exp(-999.0)), 1000 + std::log1p(std::exp(-998.0)), 1000 + std::log1p(std::exp(-997.0))},
            1e-12);
  checkGradients(opProblem({{"x", randomF32({3, 4}, 13, -3, 3)}}, [](const Inputs& in) { return logsumexp(in["x"], 1); }));
  // As PyTorch: a fully masked row is -inf (not NaN: the shift stays finite), a row holding +inf
  // is +inf, and a row with some -inf sums the rest (log 2 for two zeros).
  const double inf = std::numeric_limits<double>::infinity();
  const Feeds masked = {{"x", f32({3, 3}, {-inf, -inf, -inf, inf, 1, 2, -inf, 0, 0})}};
  expectF32(run(masked, [](const Inputs& in) { return logsumexp(in["x"], 1); }), {3}, {-inf, inf, std::log(2.0)},
            1e-12);
  EXPECT_EQ(errorOf(feeds, [](const Inputs& in) { return logsumexp(in["x"], 2); }),
            "logsumexp: axis 2 is out of range for rank 2 (expected -2..1)");
}

TEST(EvalPytorchHelpers, LossesNameAMismatchedTarget) {
  const Feeds wide = {{"p", f32({2, 1}, {0, 0})}, {"t", f32({2}, {0, 0})}};
  EXPECT_EQ(errorOf(wide, [](const Inputs& in) { return mseLoss(in["p"], in["t"]); }),
            "mseLoss: the prediction [2, 1] and the target [2] must have one shape");
  const Feeds ints = {{"p", f32({2}, {0, 0})}, {"t", i32({2}, {0, 1})}};
  EXPECT_EQ(errorOf(ints, [](const Inputs& in) { return binaryCrossEntropyWithLogits(in["p"], in["t"]); }),
            "binaryCrossEntropyWithLogits: the logits and the target must be f32, got f32 and i32");
}

// A masked key gets no weight: attention with key 2 of 3 masked is attention over keys 0 and 1.
// keyPaddingMask marks it per sequence ([B, Tk]), mask for every query ([Tq, Tk], broadcast).
TEST(EvalPytorchHelpers, AttentionMasksDropTheMaskedKeys) {
  const Feeds feeds = {{"q", randomF32({2, 2, 3}, 11)},
                       {"k", randomF32({2, 3, 3}, 12)},
                       {"v", randomF32({2, 3, 2}, 13)},
                       {"pad", Value({2, 3}, DType::boolean, {0, 0, 1, 0, 0, 1})},
                       {"late", Value({2, 3}, DType::boolean, {0, 0, 1, 0, 0, 1})}};
  const Value twoKeys = run(feeds, [](const Inputs& in) {
    return scaledDotProductAttention(in["q"], narrow(in["k"], 1, 0, 2), narrow(in["v"], 1, 0, 2));
  });
  const Value padded = run(feeds, [](const Inputs& in) {
    return scaledDotProductAttention(in["q"], in["k"], in["v"], {.keyPaddingMask = in["pad"]});
  });
  expectF32(padded, {2, 2, 2}, twoKeys.data, 1e-12);
  // The same key masked for both queries by an attention mask [Tq, Tk] = [2, 3].
  const Value byMask = run(feeds, [](const Inputs& in) {
    return scaledDotProductAttention(in["q"], in["k"], in["v"], {.mask = narrow(in["late"], 0, 0, 1)});
  });
  expectF32(byMask, {2, 2, 2}, twoKeys.data, 1e-12);
  // Without a mask the third key counts.
  const Value all = run(feeds, [](const Inputs& in) { return scaledDotProductAttention(in["q"], in["k"], in["v"]); });
  EXPECT_NE(all.data, twoKeys.data);
  // Gradients flow to q, k and v around the masked key.
  checkGradients(opProblem(feeds, [](const Inputs& in) {
    return scaledDotProductAttention(in["q"], in["k"], in["v"], {.keyPaddingMask = in["pad"]});
  }, {"q", "k", "v"}));
  EXPECT_EQ(errorOf(feeds, [](const Inputs& in) {
              return scaledDotProductAttention(in["q"], in["k"], in["v"], {.keyPaddingMask = in["q"]});
            }),
            "scaledDotProductAttention: keyPaddingMask must be boolean (true: masked), got f32");
  EXPECT_EQ(errorOf(feeds, [](const Inputs& in) {
              return scaledDotProductAttention(in["q"], in["k"], in["v"], {.keyPaddingMask = narrow(in["pad"], 1, 0, 2)});
            }),
            "scaledDotProductAttention: keyPaddingMask must be [B, Tk] = [2, 3] for the scores [2, 2, 3], got [2, 2]");
}

}  // namespace
}  // namespace nndna::eval::testing
