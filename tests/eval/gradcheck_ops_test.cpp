// Finite-difference checks of the backward of every differentiable op of the model API, with
// broadcasting and negative axes where they apply.
#include "gradcheck.hpp"

namespace nndna::eval::testing {
namespace {

Feeds one(Shape shape, double lo = -1.0, double hi = 1.0, std::vector<double> avoid = {}) {
  return {{"x", randomF32(std::move(shape), 1, lo, hi, std::move(avoid))}};
}

void checkUnary(Tensor (*fn)(Tensor), double lo = -2.0, double hi = 2.0,
                std::vector<double> avoid = {}) {
  checkGradients(opProblem(one({2, 3}, lo, hi, std::move(avoid)),
                           [fn](const Inputs& in) { return fn(in["x"]); }));
}

TEST(GradCheck, UnaryMath) {
  checkUnary(sqrt, 0.2, 2.0);
  checkUnary(rsqrt, 0.2, 2.0);
  checkUnary(log, 0.2, 2.0);
  checkUnary(exp);
  checkUnary(neg);
  checkUnary(abs, -2, 2, {0.0});
  checkUnary(square);
  checkUnary(sin);
  checkUnary(cos);
  checkUnary(erf);
}

TEST(GradCheck, Activations) {
  checkUnary(relu, -2, 2, {0.0});
  checkUnary(tanh);
  checkUnary(sigmoid);
  checkUnary(silu);
  checkUnary(softplus);
  checkGradients(opProblem(one({2, 3}, -3, 3), [](const Inputs& in) { return gelu(in["x"]); }));
  checkGradients(opProblem(one({2, 3}, -3, 3), [](const Inputs& in) {
    return gelu(in["x"], {.approximate = GeluApproximate::tanh});
  }));
  checkGradients(opProblem(one({2, 3}, -2, 2, {0.0}),
                           [](const Inputs& in) { return leakyRelu(in["x"], 0.2); }));
  checkGradients(opProblem(one({3, 3}, -2, 2, {-0.5, 0.7}),
                           [](const Inputs& in) { return clamp(in["x"], -0.5, 0.7); }));
}

// d/dx x^p = p x^(p-1): a whole exponent over signed inputs, fractional and negative ones over
// positive inputs (where they are defined).
TEST(GradCheck, Pow) {
  checkGradients(opProblem(one({2, 3}, -2, 2), [](const Inputs& in) { return pow(in["x"], 3); }));
  checkGradients(opProblem(one({2, 3}, 0.5, 2), [](const Inputs& in) { return pow(in["x"], 1.5); }));
  checkGradients(opProblem(one({2, 3}, 0.5, 2), [](const Inputs& in) { return pow(in["x"], -0.5); }));
}

// a [2, 3] against b of each broadcastable shape, both orders.
void checkBinary(Tensor (*fn)(Tensor, Tensor), double lo = -2.0, double hi = 2.0) {
  for (const Shape& bShape : {Shape{2, 3}, Shape{3}, Shape{2, 1}, Shape{1, 3}, Shape{}}) {
    const Feeds feeds = {{"a", randomF32({2, 3}, 3, lo, hi)}, {"b", randomF32(bShape, 4, lo, hi)}};
    checkGradients(opProblem(feeds, [fn](const Inputs& in) { return fn(in["a"], in["b"]); }));
    checkGradients(opProblem(feeds, [fn](const Inputs& in) { return fn(in["b"], in["a"]); }));
  }
  // [2, 1] with [1, 3]: both operands broadcast.
  const Feeds outer = {{"a", randomF32({2, 1}, 5, lo, hi)}, {"b", randomF32({1, 3}, 6, lo, hi)}};
  checkGradients(opProblem(outer, [fn](const Inputs& in) { return fn(in["a"], in["b"]); }));
}

TEST(GradCheck, ArithmeticWithBroadcasting) {
  checkBinary(static_cast<Tensor (*)(Tensor, Tensor)>(add));
  checkBinary(static_cast<Tensor (*)(Tensor, Tensor)>(sub));
  checkBinary(static_cast<Tensor (*)(Tensor, Tensor)>(mul));
  checkBinary(static_cast<Tensor (*)(Tensor, Tensor)>(div), 0.5, 2.0);
  checkBinary(static_cast<Tensor (*)(Tensor, Tensor)>(min));
  checkBinary(static_cast<Tensor (*)(Tensor, Tensor)>(max));
}

TEST(GradCheck, ScalarOperands) {
  const Feeds feeds = one({2, 3}, 0.5, 2.0);
  checkGradients(opProblem(feeds, [](const Inputs& in) { return add(2.0, in["x"]); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return sub(1.0, in["x"]); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return sub(in["x"], 1.0); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return mul(in["x"], -3.0); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return div(1.0, in["x"]); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return div(in["x"], 4.0); }));
  checkGradients(opProblem(one({2, 3}, -2, 2, {0.3}),
                           [](const Inputs& in) { return max(in["x"], 0.3); }));
  checkGradients(opProblem(one({2, 3}, -2, 2, {0.3}),
                           [](const Inputs& in) { return min(in["x"], 0.3); }));
}

TEST(GradCheck, WhereWithBroadcasting) {
  const Feeds feeds = {{"c", Value({2, 1}, DType::boolean, {1, 0})},
                       {"a", randomF32({2, 3}, 7)},
                       {"b", randomF32({3}, 8)}};
  checkGradients(opProblem(feeds, [](const Inputs& in) { return where(in["c"], in["a"], in["b"]); }));
  // A condition computed from the data carries no gradient itself.
  checkGradients(opProblem(one({2, 3}, -2, 2, {0.0}), [](const Inputs& in) {
    return where(greater(in["x"], 0.0), square(in["x"]), neg(in["x"]));
  }));
}

TEST(GradCheck, ReductionsWithNegativeAxesAndKeepDims) {
  const Feeds feeds = one({2, 3, 4});
  checkGradients(opProblem(feeds, [](const Inputs& in) { return sum(in["x"]); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return mean(in["x"]); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return sum(in["x"], -1); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return mean(in["x"], -2); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return sum(in["x"], 0, {.keepDims = true}); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return mean(in["x"], 1, {.keepDims = true}); }));
}

TEST(GradCheck, ShapeOps) {
  const Feeds feeds = one({2, 3, 4});
  checkGradients(opProblem(feeds, [](const Inputs& in) { return reshape(in["x"], {4, -1}); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return permute(in["x"], {2, 0, 1}); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return swapAxes(in["x"], -1, 0); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return narrow(in["x"], -1, 1, 2); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return narrow(in["x"], 0, 1, 1); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) {
    const std::vector<Tensor> parts = split(in["x"], {1, 2}, -2);
    return add(mul(parts[0], 3.0), sum(parts[1], -2, {.keepDims = true}));
  }));
}

TEST(GradCheck, PadWithFillCropAndBoth) {
  const Feeds feeds = one({2, 3, 4});
  checkGradients(opProblem(feeds, [](const Inputs& in) { return pad(in["x"], {1, 2}, 0.5); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return pad(in["x"], {0, 1, 2, 0, 1, 1}); }));
  // Cropping one side of an axis while padding the other, and cropping a whole axis's edges.
  checkGradients(opProblem(feeds, [](const Inputs& in) { return pad(in["x"], {-1, 2, -1, -1}); }));
}

TEST(GradCheck, CumsumAlongEachAxis) {
  const Feeds feeds = one({2, 3, 4});
  checkGradients(opProblem(feeds, [](const Inputs& in) { return cumsum(in["x"], -1); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return cumsum(in["x"], 1); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return cumsum(in["x"], 0); }));
}

// The values' gradient reaches the chosen positions only (random inputs: no ties to flip).
TEST(GradCheck, TopkValues) {
  const Feeds feeds = one({2, 3, 5});
  checkGradients(opProblem(feeds, [](const Inputs& in) { return topk(in["x"], 2).values; }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return topk(in["x"], 3, 1).values; }));
}

// amax / amin: the gradient reaches the position argmax / argmin picks.
TEST(GradCheck, AmaxAndAmin) {
  const Feeds feeds = one({2, 3, 5});
  checkGradients(opProblem(feeds, [](const Inputs& in) { return amax(in["x"], -1); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return amin(in["x"], 1, {.keepDims = true}); }));
}

TEST(GradCheck, ConcatAndStack) {
  const Feeds feeds = {{"a", randomF32({2, 3}, 9)}, {"b", randomF32({2, 1}, 10)},
                       {"c", randomF32({2, 3}, 11)}};
  checkGradients(opProblem(feeds, [](const Inputs& in) { return concat({in["a"], in["b"], in["a"]}, -1); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return concat({in["a"], in["c"]}, 0); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return stack({in["a"], in["c"]}, -1); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return stack({in["a"], in["c"], in["a"]}, 0); }));
}

TEST(GradCheck, Matmul) {
  checkGradients(opProblem({{"a", randomF32({2, 3}, 12)}, {"b", randomF32({3, 4}, 13)}},
                           [](const Inputs& in) { return matmul(in["a"], in["b"]); }));
  // Batched on both sides.
  checkGradients(opProblem({{"a", randomF32({2, 2, 3}, 14)}, {"b", randomF32({2, 3, 2}, 15)}},
                           [](const Inputs& in) { return matmul(in["a"], in["b"]); }));
  // Batched left operand against one shared matrix.
  checkGradients(opProblem({{"a", randomF32({2, 2, 3}, 16)}, {"b", randomF32({3, 2}, 17)}},
                           [](const Inputs& in) { return matmul(in["a"], in["b"]); }));
}

TEST(GradCheck, MatmulBroadcastingBatchAxes) {
  // [2, 1, 2, 3] · [3, 2] broadcast on the left's size-1 axis against [1, 2, 3, 2] on the right.
  checkGradients(opProblem({{"a", randomF32({2, 1, 2, 3}, 30)}, {"b", randomF32({1, 2, 3, 2}, 31)}},
                           [](const Inputs& in) { return matmul(in["a"], in["b"]); }));
  // A shared left matrix against a batch, and a lower-rank right operand with batch axes.
  checkGradients(opProblem({{"a", randomF32({2, 3}, 32)}, {"b", randomF32({2, 3, 2}, 33)}},
                           [](const Inputs& in) { return matmul(in["a"], in["b"]); }));
  checkGradients(opProblem({{"a", randomF32({2, 2, 2, 3}, 34)}, {"b", randomF32({2, 3, 2}, 35)}},
                           [](const Inputs& in) { return matmul(in["a"], in["b"]); }));
}

TEST(GradCheck, BroadcastToExpandRepeatKv) {
  const Feeds feeds = {{"x", randomF32({2, 1, 3}, 36)}, {"kv", randomF32({1, 2, 2, 3}, 37)}};
  checkGradients(opProblem(feeds, [](const Inputs& in) { return broadcastTo(in["x"], {2, 2, 4, 3}); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return expand(in["x"], {-1, 3, -1}); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return repeatKv(in["kv"], 3); }));
}

TEST(GradCheck, ReductionsOverSeveralAxesAndConv1d) {
  const Feeds feeds = one({2, 3, 2, 2});
  checkGradients(opProblem(feeds, [](const Inputs& in) { return mean(in["x"], {-2, -1}); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return sum(in["x"], {0, 2}, {.keepDims = true}); }));
  const Feeds conv = {{"x", randomF32({2, 4, 7}, 40)}, {"w", randomF32({4, 2, 3}, 41)}};
  checkGradients(opProblem(conv, [](const Inputs& in) {
    return conv1d(in["x"], in["w"], {.stride = 2, .padding = 1, .groups = 2});
  }));
}

TEST(GradCheck, EmbeddingAndTakeAlongAxisWithRepeatedIndices) {
  checkGradients(opProblem({{"t", randomF32({4, 3}, 18)}, {"i", i32({2, 3}, {1, 3, 1, 0, 1, 3})}},
                           [](const Inputs& in) { return embedding(in["t"], in["i"]); }));
  // Row 1, the padding row, is read as zeros: nothing depends on it, and its gradient is zero.
  checkGradients(opProblem({{"t", randomF32({4, 3}, 18)}, {"i", i32({2, 3}, {1, 3, 1, 0, 1, 3})}},
                           [](const Inputs& in) { return embedding(in["t"], in["i"], 1); }));
  const Feeds feeds = {{"x", randomF32({2, 4}, 19)}, {"i", i32({2, 3}, {3, 3, 0, 1, 2, 1})},
                       {"r", i32({3, 4}, {0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 1})}};
  checkGradients(opProblem(feeds, [](const Inputs& in) { return takeAlongAxis(in["x"], in["i"], -1); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return takeAlongAxis(in["x"], in["r"], 0); }));
}

TEST(GradCheck, SoftmaxFamily) {
  const Feeds feeds = one({2, 3, 3}, -2, 2);
  checkGradients(opProblem(feeds, [](const Inputs& in) { return softmax(in["x"]); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return softmax(in["x"], 0); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return logSoftmax(in["x"], -2); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return logSoftmax(in["x"]); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return softmaxCausal(in["x"]); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return whereCausal(in["x"], -3.0); }));
  // The usual pairing: masked scores into softmax.
  checkGradients(opProblem(feeds, [](const Inputs& in) { return softmax(whereCausal(in["x"]), -1); }));
}

TEST(GradCheck, LossesWithEachReduction) {
  const Feeds feeds = {{"s", randomF32({2, 3, 4}, 20, -2, 2)},
                       {"t", i32({2, 3}, {0, 3, 1, 1, 2, 0})}};
  for (const Reduction r : {Reduction::mean, Reduction::sum, Reduction::none}) {
    checkGradients(opProblem(feeds, [r](const Inputs& in) {
      return crossEntropy(in["s"], in["t"], {.reduction = r});
    }));
    checkGradients(opProblem(feeds, [r](const Inputs& in) {
      return nllLoss(logSoftmax(in["s"]), in["t"], {.reduction = r});
    }));
    checkGradients(opProblem(feeds, [r](const Inputs& in) {
      return nllLoss(in["s"], in["t"], {.reduction = r});
    }));
  }
}

TEST(GradCheck, ConvolutionStridePaddingGroups) {
  const Feeds feeds = {{"x", randomF32({2, 4, 5, 5}, 21)}, {"w", randomF32({6, 2, 3, 3}, 22)},
                       {"v", randomF32({2, 4, 2, 3}, 23)}};
  checkGradients(opProblem(feeds, [](const Inputs& in) {
    return conv2d(in["x"], in["w"], {.stride = 2, .padding = 1, .groups = 2});
  }));
  checkGradients(opProblem(feeds, [](const Inputs& in) {
    return conv2d(in["x"], in["v"], {.stride = Hw(1, 2), .padding = Hw(0, 1), .groups = 1});
  }));
  // Dilated: the input and weight gradients visit the same spaced taps.
  checkGradients(opProblem(feeds, [](const Inputs& in) {
    return conv2d(in["x"], in["w"], {.padding = Hw(2, 1), .groups = 2, .dilation = Hw(2, 1)});
  }));
  const Feeds seq = {{"x", randomF32({2, 2, 9}, 24)}, {"w", randomF32({3, 2, 3}, 25)}};
  checkGradients(opProblem(seq, [](const Inputs& in) { return conv1d(in["x"], in["w"], {.stride = 2, .dilation = 3}); }));
}

TEST(GradCheck, TransposedConvolutionStridePaddingOutputPaddingGroups) {
  const Feeds feeds = {{"x", randomF32({2, 4, 3, 3}, 41)}, {"w", randomF32({4, 3, 3, 3}, 42)},
                       {"v", randomF32({4, 2, 2, 3}, 43)}};
  checkGradients(opProblem(feeds, [](const Inputs& in) {
    return convTranspose2d(in["x"], in["w"], {.stride = 2, .padding = 1, .outputPadding = 1, .groups = 2});
  }));
  checkGradients(opProblem(feeds, [](const Inputs& in) {
    return convTranspose2d(in["x"], in["v"], {.stride = Hw(1, 3), .padding = Hw(0, 1), .outputPadding = Hw(0, 2)});
  }));
}

TEST(GradCheck, PoolingAndUpsampling) {
  // Distinct values, so no window has a tie that a ±h step could flip.
  std::vector<double> distinct(2 * 2 * 5 * 5);
  for (std::size_t i = 0; i < distinct.size(); ++i) {
    distinct[i] = static_cast<double>((i * 37) % distinct.size()) / 10.0 - 5.0;
  }
  const Feeds feeds = {{"x", f32({2, 2, 5, 5}, distinct)}};
  checkGradients(opProblem(feeds, [](const Inputs& in) { return maxPool2d(in["x"], 2); }));
  // Overlapping windows (stride < kernel) and padding.
  checkGradients(opProblem(feeds, [](const Inputs& in) {
    return maxPool2d(in["x"], 3, {.stride = 1, .padding = 1});
  }));
  checkGradients(opProblem(one({1, 2, 2, 3}), [](const Inputs& in) { return nearestUpsample2d(in["x"], 2); }));
  checkGradients(opProblem(one({2, 8, 2, 3}), [](const Inputs& in) { return pixelShuffle(in["x"], 2); }));
  checkGradients(opProblem(one({1, 2, 4, 6}), [](const Inputs& in) { return pixelUnshuffle(in["x"], 2); }));
  // ceil_mode: 5 -> 3 windows, the last one partial (its mean over its one row or column inside).
  checkGradients(opProblem(feeds, [](const Inputs& in) { return maxPool2d(in["x"], 2, {.ceilMode = true}); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return avgPool2d(in["x"], 2, {.ceilMode = true}); }));
  // Bilinear: the edge taps clamp (both weights on one pixel), the others split.
  checkGradients(opProblem(feeds, [](const Inputs& in) { return bilinearUpsample2d(in["x"], 2); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return bilinearUpsample2d(in["x"], 3, {.alignCorners = true}); }));
  // Average pooling: non-overlapping, overlapping with padding (count_include_pad), adaptive.
  checkGradients(opProblem(feeds, [](const Inputs& in) { return avgPool2d(in["x"], 2); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) {
    return avgPool2d(in["x"], 3, {.stride = 2, .padding = 1});
  }));
  checkGradients(opProblem(one({2, 3, 4, 6}), [](const Inputs& in) { return adaptiveAvgPool2d(in["x"], {2, 3}); }));
  checkGradients(opProblem(one({2, 3, 4, 6}), [](const Inputs& in) { return adaptiveAvgPool2d(in["x"], 1); }));
}

TEST(GradCheck, AttentionLayoutAndRope) {
  const Feeds feeds = {{"q", randomF32({2, 3, 4}, 24)}, {"k", randomF32({2, 2, 3, 4}, 25)}};
  checkGradients(opProblem(feeds, [](const Inputs& in) { return splitHeads(in["q"], 2); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return mergeHeads(in["k"]); }));
  const Feeds qk = {{"q", randomF32({2, 2, 3, 4}, 26)}, {"k", randomF32({2, 2, 3, 4}, 27)}};
  checkGradients(opProblem(qk, [](const Inputs& in) {
    auto [q, k] = rope(in["q"], in["k"], {.base = 100.0});
    return add(q, mul(k, 2.0));
  }));
}

TEST(GradCheck, DropoutReusesItsMask) {
  checkGradients(opProblem(one({4, 5}), [](const Inputs& in) { return dropout(in["x"], 0.3); }));
}

TEST(GradCheck, CaptureIsAnIdentity) {
  checkGradients(opProblem(one({2, 3}), [](const Inputs& in) { return square(capture("c", in["x"])); }));
}

TEST(GradCheck, StopGradientBlocksOnlyItsPath) {
  // L = Σ stopGradient(x) · x: the gradient is x (through the second factor only).
  GradProblem p;
  const Value x = randomF32({2, 3}, 28);
  p.graph = traceFunction({{"x", {2, 3}}}, [](const Inputs& in) {
    return sum(mul(stopGradient(in["x"]), in["x"]));
  });
  p.leaves.inputs["x"] = x;
  const std::vector<ir::TensorId> wrt = {p.graph.inputs.at(0).tensor};
  const std::vector<ir::TensorId> grads = training::appendBackward(p.graph, wrt);
  ASSERT_NE(grads.at(0), ir::kNone);
  expectF32(evaluate(p.graph, p.leaves, grads).at(grads[0]), {2, 3}, x.data);
}

TEST(GradCheck, NormalisationLayers) {
  checkGradients(layerProblem({{"x", randomF32({2, 3, 4}, 29)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.layerNorm(in["x"]); },
                              {"layer_norm.weight", "layer_norm.bias"}));
  checkGradients(layerProblem({{"x", randomF32({3, 4}, 30)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.rmsNorm(in["x"]); },
                              {"rms_norm.weight"}));
  checkGradients(layerProblem({{"x", randomF32({3, 2, 2, 3}, 31)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.batchNorm(in["x"]); },
                              {"batch_norm.weight", "batch_norm.bias"}));
}

TEST(GradCheck, GroupNormOpAndLayer) {
  const Feeds feeds = {{"x", randomF32({2, 6, 2, 3}, 44)}, {"w", randomF32({6}, 45, 0.5, 1.5)},
                       {"b", randomF32({6}, 46)}};
  checkGradients(opProblem(feeds, [](const Inputs& in) { return groupNorm(in["x"], 3, in["w"], in["b"]); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return groupNorm(in["x"], 2); }));
  checkGradients(opProblem(one({3, 4, 5}), [](const Inputs& in) { return groupNorm(in["x"], 4); }));
  checkGradients(layerProblem({{"x", randomF32({2, 4, 3, 3}, 47)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.groupNorm(in["x"]); },
                              {"group_norm.weight", "group_norm.bias"}));
}

// A frozen BatchNorm2d in a training trace: the running statistics' affine map, differentiated
// w.r.t. the input, the weight and the bias.
TEST(GradCheck, FrozenBatchNorm) {
  checkGradients(layerProblem({{"x", randomF32({3, 2, 2, 3}, 48)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.frozenBatchNorm(in["x"]); },
                              {"frozen_batch_norm.weight", "frozen_batch_norm.bias"}));
}

// The sequence layers: every parameter of each (both LSTM layers), and the input.
TEST(GradCheck, SequenceLayers) {
  checkGradients(layerProblem({{"x", randomF32({2, 3, 2}, 50)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.lstm(in["x"]); },
                              {"lstm.weight_ih_l0", "lstm.weight_hh_l0", "lstm.bias_ih_l0", "lstm.bias_hh_l0",
                               "lstm.weight_ih_l1", "lstm.weight_hh_l1", "lstm.bias_ih_l1", "lstm.bias_hh_l1"}));
  checkGradients(layerProblem({{"x", randomF32({2, 3, 2}, 51)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.gru(in["x"]); },
                              {"gru.weight_ih_l0", "gru.weight_hh_l0", "gru.bias_ih_l0", "gru.bias_hh_l0"}));
  // From a given state, through the last state: the gradients reach h0 and c0 too.
  checkGradients(layerProblem({{"x", randomF32({2, 3, 2}, 56)}, {"h0", randomF32({2, 2, 3}, 57)},
                               {"c0", randomF32({2, 2, 3}, 58)}},
                              [](eval_layers::Layers& m, const Inputs& in) {
                                const LSTMResult r = m.lstm(in["x"], {in["h0"], in["c0"]});
                                return mul(r.state.h, r.state.c);
                              },
                              {"lstm.weight_hh_l0", "lstm.weight_hh_l1"}));
  checkGradients(layerProblem({{"x", randomF32({2, 3, 2}, 59)}, {"h0", randomF32({1, 2, 3}, 60)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.gru(in["x"], in["h0"]).h; },
                              {"gru.weight_hh_l0"}));
  checkGradients(layerProblem({{"x", randomF32({2, 3, 4}, 52)}},
                              [](eval_layers::Layers& m, const Inputs& in) {
                                return m.attn(in["x"], in["x"], in["x"], {.causal = true});
                              },
                              {"attn.in_proj_weight", "attn.in_proj_bias", "attn.out_proj.weight", "attn.out_proj.bias"}));
  checkGradients(layerProblem({{"x", randomF32({2, 2, 4}, 84)}, {"k", randomF32({2, 3, 3}, 85)}, {"v", randomF32({2, 3, 5}, 86)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.crossAttn(in["x"], in["k"], in["v"]); },
                              {"cross_attn.q_proj_weight", "cross_attn.k_proj_weight", "cross_attn.v_proj_weight",
                               "cross_attn.in_proj_bias"}));
  checkGradients(layerProblem({{"x", randomF32({2, 2, 1, 2}, 87)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.layerNormOverAxes(in["x"]); },
                              {"layer_norm_axes.weight", "layer_norm_axes.bias"}));
}

TEST(GradCheck, Einsum) {
  const Feeds feeds = {{"q", randomF32({2, 2, 3, 4}, 54)}, {"k", randomF32({2, 2, 5, 4}, 55)}};
  checkGradients(opProblem(feeds, [](const Inputs& in) { return einsum("bhqd,bhkd->bhqk", {in["q"], in["k"]}); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return einsum("bhqd,bhkd->qk", {in["q"], in["k"]}); }));
  checkGradients(opProblem(feeds, [](const Inputs& in) { return einsum("bhqd->dqb", {in["q"]}); }));
}

TEST(GradCheck, OneDimensionalPoolingAndInstanceNorm) {
  checkGradients(opProblem(one({2, 2, 7}), [](const Inputs& in) { return maxPool1d(in["x"], 3, {.stride = 2, .padding = 1}); }));
  checkGradients(opProblem(one({2, 2, 7}), [](const Inputs& in) { return avgPool1d(in["x"], 2, {.padding = 1}); }));
  checkGradients(layerProblem({{"x", randomF32({2, 2, 3, 3}, 53)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.instanceNorm(in["x"]); },
                              {"instance_norm.weight", "instance_norm.bias"}));
}

TEST(GradCheck, LinearEmbeddingConvLayers) {
  checkGradients(layerProblem({{"x", randomF32({2, 4, 3}, 32)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.linear(in["x"]); },
                              {"linear.weight", "linear.bias"}));
  checkGradients(layerProblem({{"x", randomF32({1, 1}, 33)}, {"i", i32({2, 2}, {4, 0, 4, 2})}},
                              [](eval_layers::Layers& m, const Inputs& in) {
                                return mul(m.embedding(in["i"]), in["x"]);
                              },
                              {"embedding.weight"}));
  checkGradients(layerProblem({{"x", randomF32({2, 2, 4, 4}, 34)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.conv(in["x"]); },
                              {"conv.weight", "conv.bias"}));
  checkGradients(layerProblem({{"x", randomF32({2, 4, 3, 3}, 49)}},
                              [](eval_layers::Layers& m, const Inputs& in) { return m.convTranspose(in["x"]); },
                              {"conv_transpose.weight", "conv_transpose.bias"}));
}

}  // namespace
}  // namespace nndna::eval::testing
