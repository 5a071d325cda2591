// Forward values of shape, layout, indexing and constant ops against hand-computed values.
#include "eval_test_util.hpp"

namespace nndna::eval::testing {
namespace {

TEST(EvalLayout, ReshapeKeepsRowMajorOrder) {
  const Feeds feeds = {{"x", iota({2, 3})}};
  expectF32(run(feeds, [](const Inputs& in) { return reshape(in["x"], {3, -1}); }), {3, 2},
            {0, 1, 2, 3, 4, 5});
}

TEST(EvalLayout, PermuteAndSwapAxes) {
  const Feeds feeds = {{"x", iota({2, 3, 4})}};  // x[i, j, k] = 12i + 4j + k
  // out[k, i, j] = x[i, j, k]
  expectF32(run(feeds, [](const Inputs& in) { return permute(in["x"], {2, 0, 1}); }), {4, 2, 3},
            {0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21,
             2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
  const Feeds m = {{"x", iota({2, 3})}};
  expectF32(run(m, [](const Inputs& in) { return swapAxes(in["x"], -1, -2); }), {3, 2},
            {0, 3, 1, 4, 2, 5});
}

TEST(EvalLayout, BroadcastToRepeatKvAndBroadcastMatmul) {
  const Feeds feeds = {{"x", f32({1, 2, 1, 1}, {5, 7})}, {"row", f32({1, 3}, {1, 2, 3})}};
  // Key/value head h serves query heads 2h and 2h + 1.
  expectF32(run(feeds, [](const Inputs& in) { return repeatKv(in["x"], 2); }), {1, 4, 1, 1},
            {5, 5, 7, 7});
  expectF32(run(feeds, [](const Inputs& in) { return expand(in["row"], {2, -1}); }), {2, 3},
            {1, 2, 3, 1, 2, 3});
  // a [1, 2, 2] against b [2, 2, 1] (b picks column 0, then column 1 of a).
  const Feeds ab = {{"a", f32({1, 2, 2}, {1, 2, 3, 4})}, {"b", f32({2, 2, 1}, {1, 0, 0, 1})}};
  expectF32(run(ab, [](const Inputs& in) { return matmul(in["a"], in["b"]); }), {2, 2, 1},
            {1, 3, 2, 4});
}

TEST(EvalLayout, MeanAndSumOverSeveralAxes) {
  const Feeds feeds = {{"x", iota({2, 2, 3})}};  // x[i, j, k] = 6i + 3j + k
  // Over j and k: the mean of 0..5 and of 6..11.
  expectF32(run(feeds, [](const Inputs& in) { return mean(in["x"], {-2, -1}); }), {2}, {2.5, 8.5});
  // Over i and k (not adjacent): Σ_{i,k} = 2·3·(3j) + 3·(0 + 6) + 2·(0 + 1 + 2) = 18j + 24.
  expectF32(run(feeds, [](const Inputs& in) { return sum(in["x"], {0, 2}, {.keepDims = true}); }),
            {1, 2, 1}, {24, 42});
}

TEST(EvalLayout, NarrowConcatStackSplit) {
  const Feeds feeds = {{"x", iota({2, 3})}, {"y", f32({2, 1}, {10, 11})}};
  expectF32(run(feeds, [](const Inputs& in) { return narrow(in["x"], -1, 1, 2); }), {2, 2},
            {1, 2, 4, 5});
  expectF32(run(feeds, [](const Inputs& in) { return narrow(in["x"], 0, 1, 1); }), {1, 3},
            {3, 4, 5});
  expectF32(run(feeds, [](const Inputs& in) { return concat({in["x"], in["y"]}, -1); }), {2, 4},
            {0, 1, 2, 10, 3, 4, 5, 11});
  expectF32(run(feeds, [](const Inputs& in) { return concat({in["x"], in["x"]}, 0); }), {4, 3},
            {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5});
  const Feeds ab = {{"a", f32({2}, {1, 2})}, {"b", f32({2}, {3, 4})}};
  expectF32(run(ab, [](const Inputs& in) { return stack({in["a"], in["b"]}, 0); }), {2, 2},
            {1, 2, 3, 4});
  expectF32(run(ab, [](const Inputs& in) { return stack({in["a"], in["b"]}, -1); }), {2, 2},
            {1, 3, 2, 4});
  expectF32(run(feeds, [](const Inputs& in) { return split(in["x"], {1, 2}, -1)[1]; }), {2, 2},
            {1, 2, 4, 5});
}

TEST(EvalLayout, PadInPyTorchOrderAndCrop) {
  const Feeds feeds = {{"x", iota({2, 3})}, {"i", i32({2}, {4, 5})}};  // x = [[0, 1, 2], [3, 4, 5]]
  // The last axis: one 9 in front.
  expectF32(run(feeds, [](const Inputs& in) { return pad(in["x"], {1, 0}, 9); }), {2, 4},
            {9, 0, 1, 2, 9, 3, 4, 5});
  // The last axis one zero after, the first axis one zero row in front.
  expectF32(run(feeds, [](const Inputs& in) { return pad(in["x"], {0, 1, 1, 0}); }), {3, 4},
            {0, 0, 0, 0, 0, 1, 2, 0, 3, 4, 5, 0});
  // Crop one in front, pad one 7 after: out[i] = x[i + 1].
  expectF32(run(feeds, [](const Inputs& in) { return pad(in["x"], {-1, 1}, 7); }), {2, 3},
            {1, 2, 7, 4, 5, 7});
  expectValue(run(feeds, [](const Inputs& in) { return pad(in["i"], {2, 1}, -1); }), {5}, DType::i32,
              {-1, -1, 4, 5, -1});
}

TEST(EvalLayout, SplitAndMergeHeads) {
  const Feeds feeds = {{"x", iota({1, 2, 4})}};  // x[0, t, d] = 4t + d
  // [B, T, D] -> [B, H, T, D/H]: head h holds features 2h, 2h + 1.
  expectF32(run(feeds, [](const Inputs& in) { return splitHeads(in["x"], 2); }), {1, 2, 2, 2},
            {0, 1, 4, 5, 2, 3, 6, 7});
  expectF32(run(feeds, [](const Inputs& in) { return mergeHeads(splitHeads(in["x"], 2)); }),
            {1, 2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
}

TEST(EvalLayout, Matmul) {
  const Feeds feeds = {{"a", iota({2, 3}, 1)}, {"b", f32({3, 2}, {1, 0, 0, 1, 1, 1})}};
  // [[1, 2, 3], [4, 5, 6]] · [[1, 0], [0, 1], [1, 1]]
  expectF32(run(feeds, [](const Inputs& in) { return matmul(in["a"], in["b"]); }), {2, 2},
            {4, 5, 10, 11});
  // Batched: [2, 1, 2] · [2, 2, 1].
  const Feeds batched = {{"a", f32({2, 1, 2}, {1, 2, 3, 4})}, {"b", f32({2, 2, 1}, {5, 6, 7, 8})}};
  expectF32(run(batched, [](const Inputs& in) { return matmul(in["a"], in["b"]); }), {2, 1, 1},
            {17, 53});
  // A batched left operand against one [K, N] matrix.
  const Feeds shared = {{"a", f32({2, 1, 2}, {1, 2, 3, 4})}, {"b", f32({2, 1}, {1, -1})}};
  expectF32(run(shared, [](const Inputs& in) { return matmul(in["a"], in["b"]); }), {2, 1, 1},
            {-1, -1});
}

TEST(EvalIndexing, OneHotEmbeddingTakeAlongAxis) {
  const Feeds idx = {{"i", i32({3}, {2, 0, 1})}};
  expectF32(run(idx, [](const Inputs& in) { return oneHot(in["i"], 3); }), {3, 3},
            {0, 0, 1, 1, 0, 0, 0, 1, 0});
  const Feeds emb = {{"t", iota({3, 2})}, {"i", i32({2, 2}, {2, 2, 0, 1})}};
  expectF32(run(emb, [](const Inputs& in) { return embedding(in["t"], in["i"]); }), {2, 2, 2},
            {4, 5, 4, 5, 0, 1, 2, 3});
  // The padding row (2, or -1 from the end) reads as zeros.
  for (const std::int64_t padding : {2, -1}) {
    expectF32(run(emb, [&](const Inputs& in) { return embedding(in["t"], in["i"], padding); }), {2, 2, 2},
              {0, 0, 0, 0, 0, 1, 2, 3});
  }
  const Feeds take = {{"x", f32({2, 3}, {10, 11, 12, 20, 21, 22})},
                      {"i", i32({2, 2}, {2, 0, 1, 1})},
                      {"r", i32({1, 3}, {1, 0, 1})}};
  expectF32(run(take, [](const Inputs& in) { return takeAlongAxis(in["x"], in["i"], -1); }),
            {2, 2}, {12, 10, 21, 21});
  expectF32(run(take, [](const Inputs& in) { return takeAlongAxis(in["x"], in["r"], 0); }), {1, 3},
            {20, 11, 22});
  const Feeds bad = {{"i", i32({1}, {3})}};
  EXPECT_THROW(run(bad, [](const Inputs& in) { return oneHot(in["i"], 3); }), EvalError);
  expectValue(run(idx, [](const Inputs& in) { return oneHot(in["i"], 3, DType::i32); }), {3, 3}, DType::i32,
              {0, 0, 1, 1, 0, 0, 0, 1, 0});
  expectValue(run(idx, [](const Inputs& in) { return oneHot(in["i"], 3, DType::boolean); }), {3, 3},
              DType::boolean, {0, 0, 1, 1, 0, 0, 0, 1, 0});
}

TEST(EvalReductions, CumsumAlongAnAxisAndOfAMask) {
  const Feeds feeds = {{"x", iota({2, 3})}, {"mask", i32({5}, {1, 1, 0, 1, 1})}};
  expectF32(run(feeds, [](const Inputs& in) { return cumsum(in["x"], -1); }), {2, 3},
            {0, 1, 3, 3, 7, 12});
  expectF32(run(feeds, [](const Inputs& in) { return cumsum(in["x"], 0); }), {2, 3},
            {0, 1, 2, 3, 5, 7});
  // Position ids of a padded sequence: cumsum(mask) - 1 (HF's trick), i32 throughout.
  expectValue(run(feeds, [](const Inputs& in) { return sub(cumsum(in["mask"], 0), 1.0); }), {5},
              DType::i32, {0, 1, 1, 2, 3});
}

TEST(EvalReductions, TopkLargestFirstTiesByLowerIndex) {
  const Feeds feeds = {{"x", f32({2, 4}, {1, 3, 3, 2, 5, -1, 7, 5})}};
  // Row 0: the two 3s, index 1 before 2; row 1: 7, then the 5 at index 0 before the one at 3.
  expectF32(run(feeds, [](const Inputs& in) { return topk(in["x"], 3).values; }), {2, 3},
            {3, 3, 2, 7, 5, 5});
  expectValue(run(feeds, [](const Inputs& in) { return topk(in["x"], 3).indices; }), {2, 3}, DType::i32,
              {1, 2, 3, 2, 0, 3});
  // Down the columns: the larger of each pair.
  expectF32(run(feeds, [](const Inputs& in) { return topk(in["x"], 1, 0).values; }), {1, 4},
            {5, 3, 7, 5});
  expectValue(run(feeds, [](const Inputs& in) { return topk(in["x"], 1, 0).indices; }), {1, 4},
              DType::i32, {1, 0, 1, 1});
}

// PyTorch's amax / amin over one axis (torch.max(x, dim).values), axis dropped or kept.
TEST(EvalReductions, AmaxAndAminAlongAnAxis) {
  const Feeds feeds = {{"x", f32({2, 4}, {1, 3, 3, 2, 5, -1, 7, 5})}};
  expectF32(run(feeds, [](const Inputs& in) { return amax(in["x"], -1); }), {2}, {3, 7});
  expectF32(run(feeds, [](const Inputs& in) { return amin(in["x"], -1); }), {2}, {1, -1});
  expectF32(run(feeds, [](const Inputs& in) { return amax(in["x"], 0); }), {4}, {5, 3, 7, 5});
  expectF32(run(feeds, [](const Inputs& in) { return amin(in["x"], 0, {.keepDims = true}); }), {1, 4},
            {1, -1, 3, 2});
  // The stable softmax's shift: x - amax(x, -1, keepDims) is 0 at each row's largest.
  expectF32(run(feeds, [](const Inputs& in) { return sub(in["x"], amax(in["x"], -1, {.keepDims = true})); }),
            {2, 4}, {-2, 0, 0, -1, -2, -8, 0, -2});
}

TEST(EvalConstants, ZerosOnesArange) {
  const Feeds none = {{"x", f32({1}, {0})}};
  expectValue(run(none, [](const Inputs&) { return arange(4); }), {4}, DType::i32, {0, 1, 2, 3});
  expectF32(run(none, [](const Inputs&) { return arange(3, DType::f32); }), {3}, {0, 1, 2});
  // ceil((end - start) / step) values: ceil(8/3) = 3, ceil(-10/-3) = 4, ceil(2/0.5) = 4.
  expectValue(run(none, [](const Inputs&) { return arange(2, 10, 3); }), {3}, DType::i32, {2, 5, 8});
  expectValue(run(none, [](const Inputs&) { return arange(10, 0, -3); }), {4}, DType::i32, {10, 7, 4, 1});
  expectF32(run(none, [](const Inputs&) { return arange(-1, 1, 0.5, DType::f32); }), {4}, {-1, -0.5, 0, 0.5});
  expectF32(run(none, [](const Inputs& in) { return add(ones({2}), in["x"]); }), {2}, {1, 1});
  expectF32(run(none, [](const Inputs& in) { return add(zeros({2}), in["x"]); }), {2}, {0, 0});
}

TEST(EvalConstants, RandnIsDeterministicPerRunSeedAndStandardNormal) {
  const Feeds none = {{"x", f32({1}, {0})}};
  auto draw = [&](std::uint64_t seed) {
    return run(none, [](const Inputs&) { return randn({20000}); }, seed);
  };
  const Value a = draw(1);
  EXPECT_EQ(a.data, draw(1).data);
  EXPECT_NE(a.data, draw(2).data);
  double mean = 0, sq = 0;
  for (const double v : a.data) {
    mean += v;
    sq += v * v;
  }
  mean /= 20000;
  // The sample mean has standard error 1/sqrt(20000) ≈ 0.007.
  EXPECT_NEAR(mean, 0.0, 0.03);
  EXPECT_NEAR(sq / 20000 - mean * mean, 1.0, 0.05);
}

TEST(EvalConvolution, Conv2dStridePaddingGroups) {
  const Feeds feeds = {{"x", iota({1, 1, 3, 3}, 1)},  // [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
                       {"w", f32({1, 1, 2, 2}, {1, 0, 0, -1})}};
  // out[y, x] = in[y, x] - in[y + 1, x + 1]
  expectF32(run(feeds, [](const Inputs& in) { return conv2d(in["x"], in["w"]); }), {1, 1, 2, 2},
            {-4, -4, -4, -4});
  // Zero padding 1, stride 2: windows start at (-1, -1), (-1, 1), (1, -1), (1, 1).
  expectF32(run(feeds, [](const Inputs& in) {
              return conv2d(in["x"], in["w"], {.stride = 2, .padding = 1});
            }),
            {1, 1, 2, 2}, {-1, -3, -7, -4});
  // Rectangular stride and padding: stride (1, 2), padding (0, 1).
  expectF32(run(feeds, [](const Inputs& in) {
              return conv2d(in["x"], in["w"], {.stride = Hw(1, 2), .padding = Hw(0, 1)});
            }),
            {1, 1, 2, 2}, {-4, -4, -7, -4});
  const Feeds two = {{"x", iota({1, 2, 2, 2}, 1)},  // channel 0: 1..4, channel 1: 5..8
                     {"g", f32({2, 1, 1, 1}, {2, -1})},
                     {"s", f32({1, 2, 1, 1}, {1, 1})}};
  expectF32(run(two, [](const Inputs& in) { return conv2d(in["x"], in["g"], {.groups = 2}); }),
            {1, 2, 2, 2}, {2, 4, 6, 8, -5, -6, -7, -8});
  expectF32(run(two, [](const Inputs& in) { return conv2d(in["x"], in["s"]); }), {1, 1, 2, 2},
            {6, 8, 10, 12});
}

// Taps d apart: with w = [1, 10] and dilation 2, out[i] = x[i] + 10·x[i + 2].
TEST(EvalConvolution, DilatedTaps) {
  const Feeds seq = {{"x", f32({1, 1, 5}, {1, 2, 3, 4, 5})}, {"w", f32({1, 1, 2}, {1, 10})}};
  expectF32(run(seq, [](const Inputs& in) { return conv1d(in["x"], in["w"], {.dilation = 2}); }), {1, 1, 3},
            {31, 42, 53});
  // Padding 2 as well: x[-2..6] with zeros outside.
  expectF32(run(seq, [](const Inputs& in) { return conv1d(in["x"], in["w"], {.padding = 2, .dilation = 2}); }),
            {1, 1, 7}, {10, 20, 31, 42, 53, 4, 5});
  const Feeds img = {{"x", iota({1, 1, 3, 3}, 1)}, {"w", f32({1, 1, 2, 2}, {1, 0, 0, -1})}};
  // Dilation 2 on a 3x3 image: one window, in[0, 0] - in[2, 2].
  expectF32(run(img, [](const Inputs& in) { return conv2d(in["x"], in["w"], {.dilation = 2}); }), {1, 1, 1, 1},
            {-8});
}

TEST(EvalConvolution, MaxPool2dAndUpsample) {
  const Feeds feeds = {{"x", f32({1, 1, 4, 4}, {1, 5, 2, 0,  //
                                               3, 4, 9, 1,  //
                                               7, 0, 2, 8,  //
                                               6, 3, 1, 4})}};
  expectF32(run(feeds, [](const Inputs& in) { return maxPool2d(in["x"], 2); }), {1, 1, 2, 2},
            {5, 9, 7, 8});
  // Padding counts as -inf: a 3x3 window at (-1, -1) sees only the top-left 2x2.
  expectF32(run(feeds, [](const Inputs& in) {
              return maxPool2d(in["x"], 3, {.stride = 2, .padding = 1});
            }),
            {1, 1, 2, 2}, {5, 9, 7, 9});
  const Feeds neg = {{"x", f32({1, 1, 2, 2}, {-5, -6, -7, -8})}};
  expectF32(run(neg, [](const Inputs& in) {
              return maxPool2d(in["x"], 2, {.stride = 1, .padding = 1});
            }),
            {1, 1, 3, 3}, {-5, -5, -6, -5, -5, -6, -7, -7, -8});
  // ceil_mode: a last window that runs past the input. Max over what is inside; the mean divides
  // by the part inside the padded input (PyTorch's F.avg_pool2d(..., ceil_mode=True)).
  const Feeds five = {{"x", f32({1, 1, 1, 5}, {1, 2, 3, 4, 5})}};
  expectF32(run(five, [](const Inputs& in) { return maxPool2d(in["x"], {1, 2}, {.ceilMode = true}); }),
            {1, 1, 1, 3}, {2, 4, 5});
  const Feeds three = {{"x", f32({1, 1, 1, 3}, {1, 2, 3})}};
  expectF32(run(three, [](const Inputs& in) { return avgPool2d(in["x"], {1, 2}, {.ceilMode = true}); }),
            {1, 1, 1, 2}, {1.5, 3});
  // Padding 1, kernel 3, stride 2 over 1, 2, 3, 4: windows from -1, 1, 3; the padding counts, the
  // last window's third tap (6 - 1 = 5, past the padding) does not: 3/3, 9/3, 4/2.
  const Feeds four = {{"x", f32({1, 1, 1, 4}, {1, 2, 3, 4})}};
  expectF32(run(four, [](const Inputs& in) {
              return avgPool2d(in["x"], {1, 3}, {.stride = Hw{1, 2}, .padding = Hw{0, 1}, .ceilMode = true});
            }),
            {1, 1, 1, 3}, {1, 3, 2});
  // Pixel shuffle by 2 of channel k, column w holding 10k + w: output (y, x) reads channel
  // (y % 2)·2 + x % 2 at column x / 2 — row 0: 0, 10, 1, 11; row 1: 20, 30, 21, 31.
  const Feeds packed = {{"x", f32({1, 4, 1, 2}, {0, 1, 10, 11, 20, 21, 30, 31})}};
  expectF32(run(packed, [](const Inputs& in) { return pixelShuffle(in["x"], 2); }), {1, 1, 2, 4},
            {0, 10, 1, 11, 20, 30, 21, 31});
  expectF32(run(packed, [](const Inputs& in) { return pixelUnshuffle(pixelShuffle(in["x"], 2), 2); }), {1, 4, 1, 2},
            {0, 1, 10, 11, 20, 21, 30, 31});
  // Two output channels of 2·2 each, no batch axis: channel 1's block follows channel 0's.
  const Feeds eight = {{"x", f32({8, 1, 1}, {1, 2, 3, 4, 5, 6, 7, 8})}};
  expectF32(run(eight, [](const Inputs& in) { return pixelShuffle(in["x"], 2); }), {2, 2, 2},
            {1, 2, 3, 4, 5, 6, 7, 8});
  const Feeds grid = {{"x", f32({1, 4, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})}};
  // Unshuffle by 2 of a 4×4 plane: channel i·2 + j holds the pixels (2y + i, 2x + j).
  expectF32(run(grid, [](const Inputs& in) { return pixelUnshuffle(in["x"], 2); }), {4, 2, 2},
            {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15});
  const Feeds up = {{"x", f32({1, 1, 1, 2}, {1, 2})}};
  expectF32(run(up, [](const Inputs& in) { return nearestUpsample2d(in["x"], 2); }), {1, 1, 2, 4},
            {1, 1, 2, 2, 1, 1, 2, 2});
  // Bilinear, PyTorch's sampling: output o reads (o + 1/2)/2 - 1/2 (clamped to [0, W - 1]) = 0,
  // 1/4, 3/4, 5/4 -> 1, 1.25, 1.75, 2; one row stays one row, repeated.
  expectF32(run(up, [](const Inputs& in) { return bilinearUpsample2d(in["x"], 2); }), {1, 1, 2, 4},
            {1, 1.25, 1.75, 2, 1, 1.25, 1.75, 2});
  // align_corners: o·(W - 1)/(2W - 1) = 0, 1/3, 2/3, 1.
  expectF32(run(up, [](const Inputs& in) { return bilinearUpsample2d(in["x"], 2, {.alignCorners = true}); }),
            {1, 1, 2, 4}, {1, 4.0 / 3, 5.0 / 3, 2, 1, 4.0 / 3, 5.0 / 3, 2});
  // [[1, 2], [3, 4]]: rows mix by the same weights, 0, 1/4, 3/4 and the last row (PyTorch's
  // F.interpolate(x, scale_factor=2, mode='bilinear') gives these 16 numbers).
  const Feeds square = {{"x", f32({1, 1, 2, 2}, {1, 2, 3, 4})}};
  expectF32(run(square, [](const Inputs& in) { return bilinearUpsample2d(in["x"], 2); }), {1, 1, 4, 4},
            {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
}

// Each input pixel stamps the kernel, scaled, at (i·s - p, j·s - p); overlaps add.
TEST(EvalConvolution, ConvTranspose2d) {
  const Feeds feeds = {{"x", iota({1, 1, 2, 2}, 1)},  // [[1, 2], [3, 4]]
                       {"w", f32({1, 1, 2, 2}, {1, 10, 100, 1000})},
                       {"ones", f32({1, 1, 2, 2}, {1, 1, 1, 1})},
                       {"one", f32({1, 1, 1, 1}, {1})}};
  expectF32(run(feeds, [](const Inputs& in) { return convTranspose2d(in["x"], in["w"], {.stride = 2}); }),
            {1, 1, 4, 4},
            {1, 10, 2, 20, 100, 1000, 200, 2000, 3, 30, 4, 40, 300, 3000, 400, 4000});
  // Stride 1: the stamps overlap; the centre gets all four pixels.
  expectF32(run(feeds, [](const Inputs& in) { return convTranspose2d(in["x"], in["ones"]); }),
            {1, 1, 3, 3}, {1, 3, 2, 4, 10, 6, 3, 7, 4});
  // Padding 1 crops one pixel off each side: (2 - 1) - 2 + 2 = 1.
  expectF32(run(feeds, [](const Inputs& in) { return convTranspose2d(in["x"], in["ones"], {.padding = 1}); }),
            {1, 1, 1, 1}, {10});
  // outputPadding adds a row and column at the end: (2 - 1)·2 + 1 + 1 = 4.
  expectF32(run(feeds, [](const Inputs& in) {
              return convTranspose2d(in["x"], in["one"], {.stride = 2, .outputPadding = 1});
            }),
            {1, 1, 4, 4}, {1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0});
  // Weight [inC, outC/groups, 1, 1]: out[oc] = Σ_ic x[ic]·w[ic, oc]; with 2 groups, w[ic, 0].
  const Feeds channels = {{"x", f32({1, 2, 1, 1}, {1, 2})},
                          {"w", f32({2, 2, 1, 1}, {1, 2, 3, 4})},
                          {"g", f32({2, 1, 1, 1}, {3, 5})}};
  expectF32(run(channels, [](const Inputs& in) { return convTranspose2d(in["x"], in["w"]); }),
            {1, 2, 1, 1}, {7, 10});
  expectF32(run(channels, [](const Inputs& in) { return convTranspose2d(in["x"], in["g"], {.groups = 2}); }),
            {1, 2, 1, 1}, {3, 10});
}

TEST(EvalConvolution, AvgPool2dCountsPaddingAndAdaptiveWindows) {
  const Feeds feeds = {{"x", f32({1, 1, 4, 4}, {1, 5, 2, 0,  //
                                               3, 4, 9, 1,  //
                                               7, 0, 2, 8,  //
                                               6, 3, 1, 4})}};
  expectF32(run(feeds, [](const Inputs& in) { return avgPool2d(in["x"], 2); }), {1, 1, 2, 2},
            {13.0 / 4, 12.0 / 4, 16.0 / 4, 15.0 / 4});
  // Every 3x3 window divides by 9, padding included: sums 13, 21, 23, 32.
  expectF32(run(feeds, [](const Inputs& in) { return avgPool2d(in["x"], 3, {.stride = 2, .padding = 1}); }),
            {1, 1, 2, 2}, {13.0 / 9, 21.0 / 9, 23.0 / 9, 32.0 / 9});
  expectF32(run(feeds, [](const Inputs& in) { return adaptiveAvgPool2d(in["x"], 1); }), {1, 1, 1, 1},
            {56.0 / 16});
  expectF32(run(feeds, [](const Inputs& in) { return adaptiveAvgPool2d(in["x"], {2, 1}); }), {1, 1, 2, 1},
            {25.0 / 8, 31.0 / 8});
}

}  // namespace
}  // namespace nndna::eval::testing
