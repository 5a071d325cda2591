// Axis names through the shape rules (src/ir/shape_rules.cpp): each family of kinds on inputs
// named by hand, and the rules' checks of OpAttrs::names.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/shape_rules.hpp"

namespace nndna::ir {
namespace {

const std::string kDot = "\xC2\xB7";  // "·"

TensorInfo t(Shape shape, DimNames names, DType dtype = DType::f32) {
  return {std::move(shape), dtype, kNone, std::move(names)};
}

TensorType typeOf(OpKind kind, const OpAttrs& attrs, const std::vector<TensorInfo>& inputs) {
  std::vector<const TensorInfo*> pointers;
  for (const TensorInfo& in : inputs) pointers.push_back(&in);
  return inferOutput(kind, attrs, pointers);
}

DimNames namesOf(OpKind kind, const OpAttrs& attrs, const std::vector<TensorInfo>& inputs) {
  return typeOf(kind, attrs, inputs).names;
}

// The ShapeRuleError's message, or "" (and a test failure) when the rule accepts.
std::string errorOf(OpKind kind, const OpAttrs& attrs, const std::vector<TensorInfo>& inputs) {
  try {
    typeOf(kind, attrs, inputs);
  } catch (const ShapeRuleError& e) {
    return e.message();
  }
  ADD_FAILURE() << "expected a ShapeRuleError";
  return "";
}

OpAttrs withAxis(std::int64_t axis) {
  OpAttrs a;
  a.axis = axis;
  return a;
}

const TensorInfo kBTD = t({8, 16, 32}, {"B", "T", "D"});

TEST(RuleNames, ConstantsTakeTheirAttributeNames) {
  OpAttrs a;
  a.dims = {8, 16};
  a.names = {"B", "T"};
  EXPECT_EQ(namesOf(OpKind::zeros, a, {}), (DimNames{"B", "T"}));
  EXPECT_EQ(namesOf(OpKind::randn, a, {}), (DimNames{"B", "T"}));
  a.names = {"", ""};
  EXPECT_EQ(namesOf(OpKind::ones, a, {}), DimNames{});  // normalized: nothing named
  a.names = {"B"};
  EXPECT_EQ(errorOf(OpKind::ones, a, {}), "names must be one per size (dims) (2), got 1");
  a.names = {"B", "2D"};
  EXPECT_EQ(errorOf(OpKind::zeros, a, {}),
            "names[1] '2D' is not an axis name (a dim's name or a product such as H" + kDot + "Dh or D/H)");
  OpAttrs r;
  r.count = 16;
  r.scalar2 = 1;
  r.dtype = DType::i32;
  EXPECT_EQ(namesOf(OpKind::arange, r, {}), DimNames{});
  r.names = {"T"};
  EXPECT_EQ(namesOf(OpKind::arange, r, {}), (DimNames{"T"}));
  r.names = {"T", "U"};
  EXPECT_EQ(errorOf(OpKind::arange, r, {}), "names must be one per length (count) (1), got 2");
}

TEST(RuleNames, KindsWithoutNamesRejectThem) {
  OpAttrs a;
  a.dims = {0, 2, 1};
  a.names = {"B", "D", "T"};
  EXPECT_EQ(errorOf(OpKind::permute, a, {kBTD}), "sets the attribute 'names', which permute does not use");
  OpAttrs r;
  r.names = {"B", "T", "D"};
  EXPECT_EQ(errorOf(OpKind::relu, r, {kBTD}), "sets the attribute 'names', which relu does not use");
  EXPECT_EQ(unusedAttribute(OpKind::tensor_input, r), "names");
  EXPECT_EQ(unusedAttribute(OpKind::reshape, r), "");
}

TEST(RuleNames, InputsNamesAreOnePerAxis) {
  EXPECT_EQ(errorOf(OpKind::sum, withAxis(2), {t({8, 16, 32}, {"B", "T"})}), "input 0 [8, 16, 32] has 2 axis names");
  EXPECT_EQ(errorOf(OpKind::add, {}, {kBTD, t({32}, {"D", "E"})}), "input 1 [32] has 2 axis names");
}

TEST(RuleNames, SameShapeKindsKeepTheInputsNames) {
  const DimNames btd = {"B", "T", "D"};
  EXPECT_EQ(namesOf(OpKind::relu, {}, {kBTD}), btd);
  EXPECT_EQ(namesOf(OpKind::softmax, withAxis(2), {kBTD}), btd);
  EXPECT_EQ(namesOf(OpKind::cumsum, withAxis(1), {kBTD}), btd);
  OpAttrs clamp;
  clamp.scalar = -1;
  clamp.scalar2 = 1;
  EXPECT_EQ(namesOf(OpKind::clamp, clamp, {kBTD}), btd);
  OpAttrs cube;
  cube.scalar = 3;
  EXPECT_EQ(namesOf(OpKind::pow, cube, {kBTD}), btd);
  OpAttrs capture;
  capture.name = "h";
  EXPECT_EQ(namesOf(OpKind::capture, capture, {kBTD}), btd);
  OpAttrs norm;
  norm.scalar = 1e-5;
  EXPECT_EQ(namesOf(OpKind::layer_norm, norm, {kBTD, t({32}, {"D"})}), btd);
  OpAttrs rope;
  rope.scalar = 10000;
  EXPECT_EQ(namesOf(OpKind::rope, rope, {kBTD}), btd);
  EXPECT_EQ(namesOf(OpKind::relu_grad, {}, {kBTD, t({8, 16, 32}, {})}), btd);
  EXPECT_EQ(namesOf(OpKind::relu, {}, {t({8, 16, 32}, {})}), DimNames{});
}

TEST(RuleNames, BinaryOpsBroadcastNames) {
  // Each axis takes the first name among the operands of the output's size on it: a broadcast
  // 1 names nothing ("X" is dropped).
  const TensorInfo a = t({8, 1, 32}, {"B", "X", ""});
  const TensorInfo b = t({16, 32}, {"T", "D"});
  EXPECT_EQ(namesOf(OpKind::add, {}, {a, b}), (DimNames{"B", "T", "D"}));
  EXPECT_EQ(namesOf(OpKind::mul, {}, {b, a}), (DimNames{"B", "T", "D"}));
  EXPECT_EQ(namesOf(OpKind::sub, {}, {t({8, 1, 32}, {}), t({16, 32}, {})}), DimNames{});
  OpAttrs number;
  number.scalarOperand = true;
  number.scalar = 2;
  EXPECT_EQ(namesOf(OpKind::less, number, {b}), (DimNames{"T", "D"}));
  const TensorInfo mask = t({16, 16}, {"T", "S"}, DType::boolean);
  EXPECT_EQ(namesOf(OpKind::where, {}, {mask, t({8, 1, 1}, {"B", "", ""}), t({16}, {})}),
            (DimNames{"B", "T", "S"}));
}

TEST(RuleNames, ReductionsDropTheAxis) {
  EXPECT_EQ(namesOf(OpKind::sum, withAxis(1), {kBTD}), (DimNames{"B", "D"}));
  OpAttrs keep = withAxis(1);
  keep.keepDims = true;
  EXPECT_EQ(namesOf(OpKind::mean, keep, {kBTD}), (DimNames{"B", "", "D"}));
  OpAttrs all;
  all.allAxes = true;
  EXPECT_EQ(namesOf(OpKind::sum, all, {kBTD}), DimNames{});
  EXPECT_EQ(namesOf(OpKind::argmax, withAxis(2), {kBTD}), (DimNames{"B", "T"}));
  EXPECT_EQ(namesOf(OpKind::categorical, withAxis(2), {kBTD}), (DimNames{"B", "T"}));
  EXPECT_EQ(namesOf(OpKind::sum, withAxis(0), {t({8, 16}, {"B", ""})}), DimNames{});
  OpAttrs topk = withAxis(2);
  topk.count = 4;
  EXPECT_EQ(namesOf(OpKind::topk, topk, {kBTD}), (DimNames{"B", "T", ""}));
  topk.names = {"K"};
  EXPECT_EQ(namesOf(OpKind::topk, topk, {kBTD}), (DimNames{"B", "T", "K"}));
  EXPECT_EQ(namesOf(OpKind::topk, topk, {t({8, 16, 32}, {})}), (DimNames{"", "", "K"}));
}

OpAttrs reshapeTo(Shape dims, DimNames names = {}) {
  OpAttrs a;
  a.dims = std::move(dims);
  a.names = std::move(names);
  return a;
}

TEST(RuleNames, ReshapeMergesAndSplitsNames) {
  // [B, T, V] -> {-1, V} (resolved to [128, 64] by the builder): [B·T, V].
  const TensorInfo btv = t({8, 16, 64}, {"B", "T", "V"});
  EXPECT_EQ(namesOf(OpKind::reshape, reshapeTo({128, 64}), {btv}), (DimNames{"B" + kDot + "T", "V"}));
  // reshape(x, {B, T, H, -1}) of [B, T, D] with H named: [B, T, H, D/H].
  const TensorInfo btd = t({8, 16, 1024}, {"B", "T", "D"});
  EXPECT_EQ(namesOf(OpKind::reshape, reshapeTo({8, 16, 16, 64}, {"B", "T", "H", ""}), {btd}),
            (DimNames{"B", "T", "H", "D/H"}));
  // Without H's name the split axes are unknown; the one-to-one axes keep theirs.
  EXPECT_EQ(namesOf(OpKind::reshape, reshapeTo({8, 16, 16, 64}), {btd}), (DimNames{"B", "T", "", ""}));
  // Merging back: [B, T, H, D/H] -> [B, T, H·(D/H)] = [B, T, D].
  const TensorInfo heads = t({8, 16, 16, 64}, {"B", "T", "H", "D/H"});
  EXPECT_EQ(namesOf(OpKind::reshape, reshapeTo({8, 16, 1024}), {heads}), (DimNames{"B", "T", "D"}));
  // A merge with an unknown part is unknown.
  EXPECT_EQ(namesOf(OpKind::reshape, reshapeTo({128, 64}), {t({8, 16, 64}, {"B", "", "V"})}),
            (DimNames{"", "V"}));
  // Size-1 axes name nothing, and take no part in the runs around them.
  EXPECT_EQ(namesOf(OpKind::reshape, reshapeTo({8, 1, 16}), {t({8, 16}, {"B", "T"})}), (DimNames{"B", "", "T"}));
  EXPECT_EQ(namesOf(OpKind::reshape, reshapeTo({8, 16}), {t({8, 1, 16}, {"B", "O", "T"})}), (DimNames{"B", "T"}));
  // Several axes into several (the sizes do not line up): unknown.
  EXPECT_EQ(namesOf(OpKind::reshape, reshapeTo({4, 6}), {t({6, 4}, {"A", "C"})}), DimNames{});
  // A name given in the attribute wins over the inferred one.
  EXPECT_EQ(namesOf(OpKind::reshape, reshapeTo({128, 64}, {"N", ""}), {btv}), (DimNames{"N", "V"}));
  EXPECT_EQ(errorOf(OpKind::reshape, reshapeTo({128, 64}, {"N"}), {btv}),
            "names must be one per target axis (dims) (2), got 1");
}

TEST(RuleNames, PermuteAndBroadcastTo) {
  OpAttrs perm;
  perm.dims = {0, 2, 1};
  EXPECT_EQ(namesOf(OpKind::permute, perm, {kBTD}), (DimNames{"B", "D", "T"}));
  // [1, D] to [B, T, D]: B from the attribute, T unknown (the input's 1 is broadcast), D aligned.
  OpAttrs to;
  to.dims = {8, 16, 32};
  to.names = {"B", "", ""};
  EXPECT_EQ(namesOf(OpKind::broadcast_to, to, {t({1, 32}, {"U", "D"})}), (DimNames{"B", "", "D"}));
  to.names = {};
  EXPECT_EQ(namesOf(OpKind::broadcast_to, to, {t({16, 32}, {"T", "D"})}), (DimNames{"", "T", "D"}));
}

TEST(RuleNames, MatmulTakesMFromTheLeftAndNFromTheRight) {
  EXPECT_EQ(namesOf(OpKind::matmul, {}, {kBTD, t({32, 64}, {"D", "V"})}), (DimNames{"B", "T", "V"}));
  // Batch axes broadcast: [B, 1, T, Dh] · [G, Dh, S] -> [B, G, T, S].
  EXPECT_EQ(namesOf(OpKind::matmul, {}, {t({8, 1, 16, 32}, {"B", "", "T", "Dh"}), t({4, 32, 16}, {"G", "Dh", "S"})}),
            (DimNames{"B", "G", "T", "S"}));
  EXPECT_EQ(namesOf(OpKind::matmul, {}, {t({16, 32}, {}), t({32, 64}, {"D", ""})}), DimNames{});
}

TEST(RuleNames, IndexingKinds) {
  OpAttrs oneHot;
  oneHot.count = 100;
  oneHot.names = {"V"};
  const TensorInfo tokens = t({8, 16}, {"B", "T"}, DType::i32);
  EXPECT_EQ(namesOf(OpKind::one_hot, oneHot, {tokens}), (DimNames{"B", "T", "V"}));
  EXPECT_EQ(namesOf(OpKind::one_hot, oneHot, {t({8, 16}, {}, DType::i32)}), (DimNames{"", "", "V"}));
  const TensorInfo table = t({100, 32}, {"V", "D"});
  EXPECT_EQ(namesOf(OpKind::embedding, {}, {table, tokens}), (DimNames{"B", "T", "D"}));
  EXPECT_EQ(namesOf(OpKind::embedding, {}, {t({100, 32}, {}), tokens}), (DimNames{"B", "T", ""}));
  // The indices' names, and the input's on axes other than `axis`.
  EXPECT_EQ(namesOf(OpKind::take_along_axis, withAxis(1), {t({8, 100}, {"B", "V"}), t({8, 1}, {}, DType::i32)}),
            (DimNames{"B", ""}));
  EXPECT_EQ(namesOf(OpKind::take_along_axis, withAxis(1),
                    {t({8, 100}, {"B", "V"}), t({8, 5}, {"N", "K"}, DType::i32)}),
            (DimNames{"N", "K"}));
}

TEST(RuleNames, SlicingAndJoining) {
  OpAttrs narrow = withAxis(1);
  narrow.count = 4;
  EXPECT_EQ(namesOf(OpKind::narrow, narrow, {kBTD}), (DimNames{"B", "", "D"}));
  narrow.names = {"W"};
  EXPECT_EQ(namesOf(OpKind::narrow, narrow, {kBTD}), (DimNames{"B", "W", "D"}));
  OpAttrs whole = withAxis(1);
  whole.count = 16;
  EXPECT_EQ(namesOf(OpKind::narrow, whole, {kBTD}), (DimNames{"B", "T", "D"}));
  OpAttrs pad;
  pad.dims = {0, 0, 1, 0, 0, 0};
  EXPECT_EQ(namesOf(OpKind::pad, pad, {kBTD}), (DimNames{"B", "", "D"}));
  // concat: "2·D" when both share D; unknown when they differ; other axes as broadcast.
  EXPECT_EQ(namesOf(OpKind::concat, withAxis(2), {kBTD, kBTD}), (DimNames{"B", "T", "2" + kDot + "D"}));
  EXPECT_EQ(namesOf(OpKind::concat, withAxis(2), {kBTD, t({8, 16, 32}, {"", "T", "E"})}), (DimNames{"B", "T", ""}));
  EXPECT_EQ(namesOf(OpKind::concat, withAxis(0), {t({8, 4}, {"B", ""}), t({8, 4}, {"B", "K"})}),
            (DimNames{"2" + kDot + "B", "K"}));
  EXPECT_EQ(namesOf(OpKind::stack, withAxis(0), {kBTD, kBTD, kBTD}), (DimNames{"", "B", "T", "D"}));
}

TEST(RuleNames, SplitAndMergeHeads) {
  OpAttrs split;
  split.count = 16;
  split.names = {"H"};
  const TensorInfo x = t({8, 1024, 1024}, {"B", "T", "D"});
  const DimNames heads = {"B", "H", "T", "D/H"};
  EXPECT_EQ(namesOf(OpKind::split_heads, split, {x}), heads);
  // Merging back: H·(D/H) = D.
  EXPECT_EQ(namesOf(OpKind::merge_heads, {}, {t({8, 16, 1024, 64}, heads)}), (DimNames{"B", "T", "D"}));
  EXPECT_EQ(namesOf(OpKind::merge_heads, {}, {t({8, 16, 1024, 64}, {"B", "H", "T", "Dh"})}),
            (DimNames{"B", "T", "H" + kDot + "Dh"}));
  split.names = {};
  EXPECT_EQ(namesOf(OpKind::split_heads, split, {x}), (DimNames{"B", "", "T", ""}));
  split.names = {"H", "K"};
  EXPECT_EQ(errorOf(OpKind::split_heads, split, {x}), "names must be one per head count (count) (1), got 2");
}

OpAttrs window(std::int64_t kernel, std::int64_t stride, std::int64_t padding) {
  OpAttrs a;
  a.kernel = {kernel, kernel};
  a.stride = {stride, stride};
  a.padding = {padding, padding};
  return a;
}

TEST(RuleNames, ConvolutionAndPooling) {
  const TensorInfo image = t({2, 8, 32, 32}, {"N", "C", "S", "S"});
  const TensorInfo weight = t({16, 8, 3, 3}, {"F", "C", "", ""});
  EXPECT_EQ(namesOf(OpKind::conv2d, window(3, 2, 1), {image, weight}), (DimNames{"N", "F", "S/2", "S/2"}));
  EXPECT_EQ(namesOf(OpKind::conv2d, window(3, 1, 1), {image, weight}), (DimNames{"N", "F", "S", "S"}));
  EXPECT_EQ(namesOf(OpKind::conv2d, window(3, 1, 0), {image, weight}), (DimNames{"N", "F", "", ""}));  // 30
  EXPECT_EQ(namesOf(OpKind::max_pool2d, window(2, 2, 0), {image}), (DimNames{"N", "C", "S/2", "S/2"}));
  // Pooling S/2 again makes S/4.
  EXPECT_EQ(namesOf(OpKind::avg_pool2d, window(2, 2, 0), {t({2, 8, 16, 16}, {"N", "C", "S/2", "S/2"})}),
            (DimNames{"N", "C", "S/4", "S/4"}));
  // A window over the whole side (global pooling; adaptiveAvgPool2d to 1×1) leaves one element
  // whatever S is: drawn as 1, not as S/32 (which says it follows S).
  EXPECT_EQ(namesOf(OpKind::avg_pool2d, window(4, 4, 0), {t({2, 8, 4, 4}, {"N", "C", "S/8", "S/8"})}),
            (DimNames{"N", "C", "", ""}));
  EXPECT_EQ(namesOf(OpKind::max_pool2d, window(32, 32, 0), {image}), (DimNames{"N", "C", "", ""}));
  // The transposed convolution undoes the stride: S/2 -> S; its channels are the weight's axis 1.
  OpAttrs up = window(2, 2, 0);
  up.dims = {2, 4, 32, 32};
  EXPECT_EQ(namesOf(OpKind::conv_transpose2d, up, {t({2, 8, 16, 16}, {"N", "F", "S/2", "S/2"}), t({8, 4, 2, 2}, {"F", "C", "", ""})}),
            (DimNames{"N", "C", "S", "S"}));
  OpAttrs nearest;
  nearest.count = 2;
  EXPECT_EQ(namesOf(OpKind::nearest_upsample2d, nearest, {image}),
            (DimNames{"N", "C", "2" + kDot + "S", "2" + kDot + "S"}));
  OpAttrs bilinear = nearest;
  bilinear.alignCorners = true;
  EXPECT_EQ(namesOf(OpKind::bilinear_upsample2d, bilinear, {image}),
            (DimNames{"N", "C", "2" + kDot + "S", "2" + kDot + "S"}));
  // Pixel shuffle by 2 divides the channels by 4 and multiplies each side by 2; unshuffle the
  // reverse, so the pair gives the names back.
  EXPECT_EQ(namesOf(OpKind::pixel_shuffle, nearest, {image}),
            (DimNames{"N", "C/4", "2" + kDot + "S", "2" + kDot + "S"}));
  EXPECT_EQ(namesOf(OpKind::pixel_unshuffle, nearest, {image}),
            (DimNames{"N", "4" + kDot + "C", "S/2", "S/2"}));
  EXPECT_EQ(namesOf(OpKind::pixel_shuffle, nearest, {t({2, 16, 8, 8}, {"N", "4" + kDot + "C", "S/2", "S/2"})}),
            (DimNames{"N", "C", "S", "S"}));
}

// ceil_mode's extra window is where the last one ends; a graph from a file may make that product
// overflow (a huge side and stride): no extra window then, and no overflow.
TEST(RuleNames, CeilModeWithAHugeStrideDoesNotOverflow) {
  OpAttrs pool;
  pool.kernel = {1, 2};
  pool.stride = {1, std::int64_t{1} << 62};
  pool.ceilMode = true;
  // (2^62 + 3 - 2) / 2^62 + 1 = 2 windows, remainder 1; a third would start at 2·2^62 > int64.
  const TensorInfo huge = t({1, 1, 1, (std::int64_t{1} << 62) + 3}, {});
  EXPECT_EQ(typeOf(OpKind::max_pool2d, pool, {huge}).shape, (Shape{1, 1, 1, 2}));
  // (11 - 2) / 4 + 1 = 3 windows, remainder 1: a 4th would start at 12, past the 11 inputs; with
  // 13 inputs it starts inside them, and counts.
  pool.stride = {1, 4};
  EXPECT_EQ(typeOf(OpKind::max_pool2d, pool, {t({1, 1, 1, 11}, {})}).shape, (Shape{1, 1, 1, 3}));
  EXPECT_EQ(typeOf(OpKind::max_pool2d, pool, {t({1, 1, 1, 13}, {})}).shape, (Shape{1, 1, 1, 4}));
}

TEST(RuleNames, LossesNameOnlyAnUnreducedResult) {
  const TensorInfo logits = t({8, 16, 100}, {"B", "T", "V"});
  const TensorInfo targets = t({8, 16}, {"B", "T"}, DType::i32);
  EXPECT_EQ(namesOf(OpKind::cross_entropy, {}, {logits, targets}), DimNames{});
  OpAttrs none;
  none.reduction = Reduction::none;
  EXPECT_EQ(namesOf(OpKind::cross_entropy, none, {logits, targets}), (DimNames{"B", "T"}));
}

}  // namespace
}  // namespace nndna::ir
