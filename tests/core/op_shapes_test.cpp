// Shape and dtype rules of every op of the model API, and their errors.
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "nndna/trace.hpp"

namespace nndna {
namespace {

using Fn = std::function<Tensor(const Inputs&)>;

ir::TensorInfo outOf(const std::vector<InputDecl>& inputs, const Fn& fn) {
  const ir::Graph g = traceFunction(inputs, fn);
  return g.tensor(g.outputs.at(0));
}

Shape shapeOf(const std::vector<InputDecl>& inputs, const Fn& fn) { return outOf(inputs, fn).shape; }

// The detail of the TraceError `fn` raises ("" and a test failure when it raises none).
std::string errorOf(const std::vector<InputDecl>& inputs, const Fn& fn) {
  try {
    traceFunction(inputs, fn);
  } catch (const TraceError& e) {
    return e.op() + ": " + e.detail();
  }
  ADD_FAILURE() << "expected a TraceError";
  return "";
}

const std::vector<InputDecl> kX = {{"x", {2, 3, 4}}};

// max(x, -1) would read as PyTorch's torch.max(x, dim): min and max take a tensor or a double,
// and an integer does not compile.
template <class T>
concept MaxTakes = requires(Tensor x, T v) { max(x, v); };
template <class T>
concept MinTakes = requires(Tensor x, T v) { min(x, v); };
static_assert(MaxTakes<Tensor> && MaxTakes<double> && MaxTakes<float> && MinTakes<double>);
static_assert(!MaxTakes<int> && !MaxTakes<std::int64_t> && !MinTakes<int> && !MinTakes<long>);

// amax / amin: argmax (argmin), the input taken at its index, the axis dropped unless kept.
TEST(ReductionShapes, AmaxAndAmin) {
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return amax(in["x"], -1); }), (Shape{2, 3}));
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return amin(in["x"], 0); }), (Shape{3, 4}));
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return amax(in["x"], 1, {.keepDims = true}); }), (Shape{2, 1, 4}));
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return amax(in["x"], 3); }),
            "amax: axis 3 is out of range for rank 3 (expected -3..2)");
  const ir::Graph g = traceFunction(kX, [](const Inputs& in) { return amax(in["x"], -1); });
  using ir::OpKind;
  std::vector<OpKind> kinds;
  for (const ir::Op& op : g.ops) {
    if (op.kind != OpKind::tensor_input) kinds.push_back(op.kind);
  }
  EXPECT_EQ(kinds, (std::vector<OpKind>{OpKind::argmax, OpKind::reshape, OpKind::take_along_axis, OpKind::reshape}));
}

TEST(ElementwiseShapes, UnaryOpsKeepShape) {
  for (auto op : {&sqrt, &rsqrt, &log, &exp, &neg, &abs, &square, &sin, &cos, &erf, &relu, &tanh,
                  &sigmoid, &silu, &softplus}) {
    EXPECT_EQ(shapeOf(kX, [&](const Inputs& in) { return op(in["x"]); }), (Shape{2, 3, 4}));
  }
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return gelu(in["x"], {.approximate = GeluApproximate::tanh}); }),
            (Shape{2, 3, 4}));
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return leakyRelu(in["x"], 0.2); }), (Shape{2, 3, 4}));
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return clamp(in["x"], -1, 1); }), (Shape{2, 3, 4}));
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return pow(in["x"], 2.5); }), (Shape{2, 3, 4}));
}

TEST(Einsum, ShapesOfCommonEquations) {
  const std::vector<InputDecl> qk = {{"q", {2, 4, 5, 8}}, {"k", {2, 4, 7, 8}}, {"v", {2, 4, 7, 3}}};
  EXPECT_EQ(shapeOf(qk, [](const Inputs& in) { return einsum("bhqd,bhkd->bhqk", {in["q"], in["k"]}); }), (Shape{2, 4, 5, 7}));
  EXPECT_EQ(shapeOf(qk, [](const Inputs& in) {
              return einsum("bhqk,bhkd->bqhd", {einsum("bhqd,bhkd->bhqk", {in["q"], in["k"]}), in["v"]});
            }),
            (Shape{2, 5, 4, 3}));
  const std::vector<InputDecl> m = {{"a", {3, 4}}, {"b", {4, 5}}, {"u", {3}}, {"w", {6}}};
  EXPECT_EQ(shapeOf(m, [](const Inputs& in) { return einsum("ij,jk->ik", {in["a"], in["b"]}); }), (Shape{3, 5}));
  EXPECT_EQ(shapeOf(m, [](const Inputs& in) { return einsum("ij,jk", {in["a"], in["b"]}); }), (Shape{3, 5}));  // implicit
  EXPECT_EQ(shapeOf(m, [](const Inputs& in) { return einsum("ij->ji", {in["a"]}); }), (Shape{4, 3}));
  EXPECT_EQ(shapeOf(m, [](const Inputs& in) { return einsum("ij->", {in["a"]}); }), (Shape{}));
  EXPECT_EQ(shapeOf(m, [](const Inputs& in) { return einsum("i,j->ij", {in["u"], in["w"]}); }), (Shape{3, 6}));
  EXPECT_EQ(shapeOf(m, [](const Inputs& in) { return einsum("ij,i->", {in["a"], in["u"]}); }), (Shape{}));
}

TEST(Einsum, ErrorsNameTheEquation) {
  const std::vector<InputDecl> m = {{"a", {3, 4}}, {"b", {5, 6}}};
  EXPECT_EQ(errorOf(m, [](const Inputs& in) { return einsum("ij,jk->ik", {in["a"], in["b"]}); }),
            "einsum: \"ij,jk->ik\": 'j' is 4 in one place and 5 in another");
  EXPECT_EQ(errorOf(m, [](const Inputs& in) { return einsum("ijk->i", {in["a"]}); }),
            "einsum: \"ijk->i\": operand 0 is [3, 4], of rank 2, but \"ijk\" names 3 axes");
  EXPECT_EQ(errorOf(m, [](const Inputs& in) { return einsum("ii->i", {in["a"]}); }),
            "einsum: \"ii->i\": 'i' appears twice in one operand (a diagonal): not supported");
  EXPECT_EQ(errorOf(m, [](const Inputs& in) { return einsum("ij->iz", {in["a"]}); }),
            "einsum: \"ij->iz\": the output's 'z' is in no operand");
  EXPECT_EQ(errorOf(m, [](const Inputs& in) { return einsum("...j->j", {in["a"]}); }),
            "einsum: \"...j->j\": an ellipsis (...) is not supported: name every axis");
  EXPECT_EQ(errorOf(m, [](const Inputs& in) { return einsum("ij,jk->ik", {in["a"]}); }),
            "einsum: \"ij,jk->ik\": it names 2 operand(s), 1 given");
  EXPECT_EQ(errorOf(m, [](const Inputs& in) { return einsum("i,j,k", {in["a"], in["a"], in["b"]}); }),
            "einsum: \"i,j,k\": one or two operands are supported, 3 given");
}

TEST(PoolingShapes, OneDimensionalPoolingOfNCL) {
  const std::vector<InputDecl> ncl = {{"x", {2, 3, 10}}};
  EXPECT_EQ(shapeOf(ncl, [](const Inputs& in) { return maxPool1d(in["x"], 3); }), (Shape{2, 3, 3}));
  EXPECT_EQ(shapeOf(ncl, [](const Inputs& in) { return maxPool1d(in["x"], 3, {.stride = 2, .padding = 1}); }),
            (Shape{2, 3, 5}));
  EXPECT_EQ(shapeOf(ncl, [](const Inputs& in) { return avgPool1d(in["x"], 2); }), (Shape{2, 3, 5}));
  EXPECT_EQ(errorOf({{"x", {2, 3}}}, [](const Inputs& in) { return maxPool1d(in["x"], 2); }),
            "maxPool1d: input must be [N, C, L], got [2, 3]");
  EXPECT_EQ(errorOf(ncl, [](const Inputs& in) { return avgPool1d(in["x"], 0); }),
            "avgPool1d: kernel (0) and stride (0) must be positive and padding (0) at least 0");
}

TEST(ElementwiseShapes, PowTakesAFiniteExponentOfAFloatTensor) {
  const ir::Graph g = traceFunction(kX, [](const Inputs& in) { return pow(in["x"], 2); });
  ASSERT_EQ(g.ops.size(), 2u);
  EXPECT_EQ(g.ops[1].kind, ir::OpKind::pow);
  EXPECT_EQ(g.ops[1].attrs->scalar, 2.0);
  EXPECT_EQ(errorOf({{"i", {3}, i32}}, [](const Inputs& in) { return pow(in["i"], 2); }),
            "pow: input must be f32, got [3] i32");
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return pow(in["x"], std::numeric_limits<double>::infinity()); }),
            "pow: exponent must be finite, got inf");
}

TEST(ElementwiseShapes, FloatOnlyOpsRejectIntegers) {
  EXPECT_EQ(errorOf({{"i", {3}, i32}}, [](const Inputs& in) { return exp(in["i"]); }),
            "exp: input must be f32, got [3] i32");
  EXPECT_EQ(outOf({{"i", {3}, i32}}, [](const Inputs& in) { return neg(in["i"]); }).dtype, DType::i32);
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return clamp(in["x"], 2, 1); }),
            "clamp: bounds must satisfy lo <= hi, got lo = 2, hi = 1");
}

TEST(ElementwiseShapes, BinaryBroadcastsWithTrailingAlignment) {
  const std::vector<InputDecl> in2 = {{"a", {8, 1, 6, 1}}, {"b", {7, 1, 5}}};
  EXPECT_EQ(shapeOf(in2, [](const Inputs& in) { return add(in["a"], in["b"]); }), (Shape{8, 7, 6, 5}));
  EXPECT_EQ(shapeOf(in2, [](const Inputs& in) { return max(in["b"], in["a"]); }), (Shape{8, 7, 6, 5}));
  const std::vector<InputDecl> scalarAndVector = {{"s", {}}, {"v", {5}}};
  EXPECT_EQ(shapeOf(scalarAndVector, [](const Inputs& in) { return mul(in["s"], in["v"]); }), (Shape{5}));
  EXPECT_EQ(errorOf({{"a", {2, 3}}, {"b", {4, 3}}}, [](const Inputs& in) { return sub(in["a"], in["b"]); }),
            "sub: shapes [2, 3] and [4, 3] do not broadcast (axis -2: 2 vs 4)");
}

TEST(ElementwiseShapes, ScalarOperandIsAnAttributeNotAnInput) {
  const ir::Graph g = traceFunction(kX, [](const Inputs& in) { return div(1.0, mul(in["x"], 0.5)); });
  const ir::Op& divide = g.producer(g.outputs[0]);
  EXPECT_EQ(divide.kind, ir::OpKind::div);
  EXPECT_EQ(divide.inputs.size(), 1u);
  EXPECT_TRUE(divide.attrs->scalarOperand);
  EXPECT_TRUE(divide.attrs->scalarLeft);
  EXPECT_EQ(divide.attrs->scalar, 1.0);
  const ir::Op& times = g.producer(divide.inputs[0]);
  EXPECT_FALSE(times.attrs->scalarLeft);
  EXPECT_EQ(times.attrs->scalar, 0.5);
  EXPECT_EQ(g.ops.size(), 3u);  // input, mul, div: no constant nodes
}

TEST(ElementwiseShapes, ComparisonsAndWhere) {
  const auto cmp = outOf(kX, [](const Inputs& in) { return less(in["x"], 0.0); });
  EXPECT_EQ(cmp.dtype, DType::boolean);
  EXPECT_EQ(cmp.shape, (Shape{2, 3, 4}));
  const std::vector<InputDecl> w = {{"x", {2, 3, 4}}, {"y", {4}}};
  EXPECT_EQ(shapeOf(w, [](const Inputs& in) { return where(greater(in["x"], in["y"]), in["x"], in["y"]); }),
            (Shape{2, 3, 4}));
  EXPECT_EQ(errorOf(w, [](const Inputs& in) { return where(in["x"], in["x"], in["y"]); }),
            "where: the condition must be boolean (from less/greater), got [2, 3, 4] f32");
  // Booleans join arithmetic as 0/1; f32 and i32 never mix.
  EXPECT_EQ(outOf(kX, [](const Inputs& in) { return mul(greater(in["x"], 0.0), in["x"]); }).dtype, DType::f32);
  EXPECT_EQ(errorOf({{"x", {3}}, {"i", {3}, i32}}, [](const Inputs& in) { return add(in["x"], in["i"]); }),
            "add: operand dtypes differ: [3] f32 and [3] i32 (use arange(n, f32) or zeros(.., f32) for float math)");
}

TEST(Reductions, AxisKeepDimsAndAll) {
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return mean(in["x"]); }), (Shape{}));
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return sum(in["x"], -1); }), (Shape{2, 3}));
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return mean(in["x"], 1, {.keepDims = true}); }), (Shape{2, 1, 4}));
  const auto am = outOf(kX, [](const Inputs& in) { return argmax(in["x"]); });
  EXPECT_EQ(am.shape, (Shape{2, 3}));
  EXPECT_EQ(am.dtype, DType::i32);
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return argmin(in["x"], 0); }), (Shape{3, 4}));
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return sum(in["x"], 3); }),
            "sum: axis 3 is out of range for rank 3 (expected -3..2)");
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return mean(in["x"], -4); }),
            "mean: axis -4 is out of range for rank 3 (expected -3..2)");
}

TEST(Reductions, CumsumAndTopk) {
  const std::vector<InputDecl> in2 = {{"x", {2, 3, 4}}, {"i", {5}, i32}, {"b", {5}, DType::boolean}};
  EXPECT_EQ(shapeOf(in2, [](const Inputs& in) { return cumsum(in["x"], -1); }), (Shape{2, 3, 4}));
  EXPECT_EQ(outOf(in2, [](const Inputs& in) { return cumsum(in["i"], 0); }).dtype, DType::i32);
  EXPECT_EQ(errorOf(in2, [](const Inputs& in) { return cumsum(in["x"], 3); }),
            "cumsum: axis 3 is out of range for rank 3 (expected -3..2)");
  EXPECT_EQ(errorOf(in2, [](const Inputs& in) { return cumsum(in["b"], 0); }),
            "cumsum: input must be f32 or i32, got [5] bool");
  const ir::Graph g = traceFunction(in2, [](const Inputs& in) {
    const TopK top = topk(in["x"], 2);
    EXPECT_EQ(top.values.shape(), (Shape{2, 3, 2}));
    EXPECT_EQ(top.indices.shape(), (Shape{2, 3, 2}));
    EXPECT_EQ(topk(in["x"], 3, 1).values.shape(), (Shape{2, 3, 4}));
    return top.indices;
  });
  EXPECT_EQ(g.tensor(g.outputs[0]).dtype, DType::i32);
  EXPECT_EQ(g.producer(g.outputs[0]).kind, ir::OpKind::topk);
  EXPECT_EQ(g.producer(g.outputs[0]).attrs->count, 2);
  EXPECT_EQ(g.producer(g.outputs[0]).attrs->axis, 2);
  EXPECT_EQ(errorOf(in2, [](const Inputs& in) { return topk(in["x"], 5).values; }),
            "topk: k must be in 1..4 (axis 2 of [2, 3, 4]), got 5");
  EXPECT_EQ(errorOf(in2, [](const Inputs& in) { return topk(in["x"], 0, 0).values; }),
            "topk: k must be in 1..2 (axis 0 of [2, 3, 4]), got 0");
}

TEST(ShapeOps, PadInPyTorchOrder) {
  const std::vector<InputDecl> in2 = {{"x", {2, 3, 4}}, {"i", {5}, i32}};
  EXPECT_EQ(shapeOf(in2, [](const Inputs& in) { return pad(in["x"], {1, 2}); }), (Shape{2, 3, 7}));
  EXPECT_EQ(shapeOf(in2, [](const Inputs& in) { return pad(in["x"], {1, 1, 2, 0}); }), (Shape{2, 5, 6}));
  EXPECT_EQ(shapeOf(in2, [](const Inputs& in) { return pad(in["x"], {0, 0, 0, 0, 1, 1}); }), (Shape{4, 3, 4}));
  EXPECT_EQ(shapeOf(in2, [](const Inputs& in) { return pad(in["x"], {-1, 0}); }), (Shape{2, 3, 3}));
  // The IR holds one (before, after) pair per axis, in axis order.
  const ir::Graph g = traceFunction(in2, [](const Inputs& in) { return pad(in["x"], {1, 2, 3, 4}, -1.5); });
  EXPECT_EQ(g.producer(g.outputs[0]).attrs->dims, (std::vector<std::int64_t>{0, 0, 3, 4, 1, 2}));
  EXPECT_EQ(g.producer(g.outputs[0]).attrs->scalar, -1.5);
  EXPECT_EQ(errorOf(in2, [](const Inputs& in) { return pad(in["x"], {1}); }),
            "pad: amounts [1] must be (before, after) pairs for up to the 3 axes of the input, last axis first");
  EXPECT_EQ(errorOf(in2, [](const Inputs& in) { return pad(in["x"], {1, 1, 1, 1, 1, 1, 1, 1}); }),
            "pad: amounts [1, 1, 1, 1, 1, 1, 1, 1] must be (before, after) pairs for up to the 3 axes of "
            "the input, last axis first");
  EXPECT_EQ(errorOf(in2, [](const Inputs& in) { return pad(in["x"], {-2, -2}); }),
            "pad: axis 2: 4 padded by -2 and -2 leaves no elements");
  EXPECT_EQ(errorOf(in2, [](const Inputs& in) { return pad(in["x"], {0, 0, -4, 5}); }),
            "pad: axis 1: a crop of 4 is more than the axis's 3 elements");
  EXPECT_EQ(errorOf(in2, [](const Inputs& in) { return pad(in["i"], {1, 1}, 0.5); }),
            "pad: an i32 tensor takes a whole fill value within i32, got 0.5");
}

TEST(ShapeOps, ReshapeInfersOneDimension) {
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return reshape(in["x"], {-1, 4}); }), (Shape{6, 4}));
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return reshape(in["x"], {24}); }), (Shape{24}));
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return reshape(in["x"], {-1, -1}); }),
            "reshape: only one -1 is allowed, got [-1, -1]");
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return reshape(in["x"], {5, -1}); }),
            "reshape: cannot reshape [2, 3, 4] (24 elements) to [5, -1]: 24 is not a multiple of 5");
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return reshape(in["x"], {5, 5}); }),
            "reshape: cannot reshape [2, 3, 4] (24 elements) to [5, 5] (25 elements)");
}

TEST(ShapeOps, PermuteAndSwapAxes) {
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return permute(in["x"], {2, 0, 1}); }), (Shape{4, 2, 3}));
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return permute(in["x"], {-1, -3, -2}); }), (Shape{4, 2, 3}));
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return swapAxes(in["x"], -1, -2); }), (Shape{2, 4, 3}));
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return permute(in["x"], {0, 0, 1}); }),
            "permute: axes [0, 0, 1] repeat axis 0");
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return permute(in["x"], {0, 1}); }),
            "permute: axes [0, 1] must list each of the 3 axes of [2, 3, 4] once");
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return swapAxes(in["x"], 0, 5); }),
            "swapAxes: second axis 5 is out of range for rank 3 (expected -3..2)");
}

TEST(ShapeOps, NarrowConcatStackSplit) {
  EXPECT_EQ(shapeOf(kX, [](const Inputs& in) { return narrow(in["x"], -1, 1, 2); }), (Shape{2, 3, 2}));
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return narrow(in["x"], 1, 2, 2); }),
            "narrow: range start 2 length 2 does not fit axis 1 of size 3 in [2, 3, 4]");
  const std::vector<InputDecl> two = {{"a", {2, 3}}, {"b", {2, 5}}};
  EXPECT_EQ(shapeOf(two, [](const Inputs& in) { return concat({in["a"], in["b"]}, -1); }), (Shape{2, 8}));
  EXPECT_EQ(errorOf(two, [](const Inputs& in) { return concat({in["a"], in["b"]}, 0); }),
            "concat: tensor 1 has shape [2, 5], which differs from tensor 0's [2, 3] outside axis 0");
  EXPECT_EQ(shapeOf(two, [](const Inputs& in) { return stack({in["a"], in["a"], in["a"]}, 1); }),
            (Shape{2, 3, 3}));
  EXPECT_EQ(shapeOf(two, [](const Inputs& in) { return stack({in["a"]}, -1); }), (Shape{2, 3, 1}));
  EXPECT_EQ(errorOf(two, [](const Inputs& in) { return stack({in["a"], in["b"]}, 0); }),
            "stack: every tensor must have the same shape and dtype: tensor 1 is [2, 5] f32, tensor 0 is [2, 3] f32");
  const ir::Graph g = traceFunction(two, [](const Inputs& in) {
    std::vector<Tensor> parts = split(in["b"], {1, 4}, -1);
    EXPECT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].shape(), (Shape{2, 1}));
    EXPECT_EQ(parts[1].shape(), (Shape{2, 4}));
    return parts[1];
  });
  EXPECT_EQ(g.producer(g.outputs[0]).kind, ir::OpKind::narrow);
  EXPECT_EQ(g.producer(g.outputs[0]).attrs->start, 1);
  EXPECT_EQ(errorOf(two, [](const Inputs& in) { return split(in["b"], {1, 2}, 1)[0]; }),
            "split: sizes [1, 2] must add up to axis 1 of [2, 5] (5)");
}

TEST(LinearAlgebra, MatmulPlainAndBatched) {
  EXPECT_EQ(shapeOf({{"a", {5, 7, 3}}, {"b", {3, 4}}}, [](const Inputs& in) { return matmul(in["a"], in["b"]); }),
            (Shape{5, 7, 4}));
  EXPECT_EQ(shapeOf({{"a", {2, 5, 7, 3}}, {"b", {2, 5, 3, 9}}},
                    [](const Inputs& in) { return matmul(in["a"], in["b"]); }),
            (Shape{2, 5, 7, 9}));
  EXPECT_EQ(errorOf({{"a", {256, 32}}, {"b", {64, 128}}}, [](const Inputs& in) { return matmul(in["a"], in["b"]); }),
            "matmul: inner dimensions differ: [256, 32] · [64, 128]");
  EXPECT_EQ(errorOf({{"a", {2, 7, 3}}, {"b", {4, 3, 9}}}, [](const Inputs& in) { return matmul(in["a"], in["b"]); }),
            "matmul: batch dimensions do not broadcast: [2, 7, 3] · [4, 3, 9] (batch axis -1: 2 vs 4)");
  EXPECT_EQ(errorOf({{"a", {3, 2, 7, 3}}, {"b", {2, 2, 3, 9}}}, [](const Inputs& in) { return matmul(in["a"], in["b"]); }),
            "matmul: batch dimensions do not broadcast: [3, 2, 7, 3] · [2, 2, 3, 9] (batch axis -2: 3 vs 2)");
  EXPECT_EQ(errorOf({{"a", {2, 3}}, {"b", {3}}}, [](const Inputs& in) { return matmul(in["a"], in["b"]); }),
            "matmul: the right operand must have rank >= 2, got [3]");
  EXPECT_EQ(errorOf({{"a", {3}}, {"b", {3, 9}}}, [](const Inputs& in) { return matmul(in["a"], in["b"]); }),
            "matmul: the left operand must have rank >= 2, got [3]");
}

TEST(LinearAlgebra, MatmulBroadcastsSizeOneBatchAxes) {
  // Grouped-query attention: [B, Hkv, G, T, Dh] · [B, Hkv, 1, Dh, T] -> [B, Hkv, G, T, T].
  EXPECT_EQ(shapeOf({{"q", {2, 4, 3, 16, 8}}, {"kt", {2, 4, 1, 8, 16}}},
                    [](const Inputs& in) { return matmul(in["q"], in["kt"]); }),
            (Shape{2, 4, 3, 16, 16}));
  // Both operands broadcast, and ranks differ.
  EXPECT_EQ(shapeOf({{"a", {5, 1, 7, 3}}, {"b", {6, 3, 2}}}, [](const Inputs& in) { return matmul(in["a"], in["b"]); }),
            (Shape{5, 6, 7, 2}));
  EXPECT_EQ(shapeOf({{"a", {7, 3}}, {"b", {4, 3, 2}}}, [](const Inputs& in) { return matmul(in["a"], in["b"]); }),
            (Shape{4, 7, 2}));
}

TEST(ShapeOps, BroadcastToExpandRepeatKv) {
  const std::vector<InputDecl> cls = {{"cls", {1, 1, 8}}, {"x", {4, 16, 8}}, {"kv", {2, 3, 5, 4}}};
  EXPECT_EQ(shapeOf(cls, [](const Inputs& in) { return broadcastTo(in["cls"], {4, 1, 8}); }), (Shape{4, 1, 8}));
  EXPECT_EQ(shapeOf(cls, [](const Inputs& in) { return broadcastTo(in["cls"], {2, 4, 3, 8}); }), (Shape{2, 4, 3, 8}));
  EXPECT_EQ(shapeOf(cls, [](const Inputs& in) { return expand(in["cls"], {4, -1, -1}); }), (Shape{4, 1, 8}));
  // ViT: the class token joins the batch with one concat (the broadcast is a view).
  const ir::Graph vit = traceFunction(cls, [](const Inputs& in) {
    return concat({expand(in["cls"], {in["x"].dim(0), -1, -1}), in["x"]}, 1);
  });
  EXPECT_EQ(vit.tensor(vit.outputs[0]).shape, (Shape{4, 17, 8}));
  EXPECT_EQ(vit.producer(vit.producer(vit.outputs[0]).inputs[0]).kind, ir::OpKind::broadcast_to);
  // repeatKv: [B, Hkv, T, Dh] -> [B, Hkv·3, T, Dh] by reshape, broadcast_to, reshape.
  const ir::Graph gqa = traceFunction(cls, [](const Inputs& in) { return repeatKv(in["kv"], 3); });
  EXPECT_EQ(gqa.tensor(gqa.outputs[0]).shape, (Shape{2, 9, 5, 4}));
  const ir::Op& merged = gqa.producer(gqa.outputs[0]);
  EXPECT_EQ(merged.kind, ir::OpKind::reshape);
  EXPECT_EQ(gqa.producer(merged.inputs[0]).attrs->dims, (Shape{2, 3, 3, 5, 4}));
  EXPECT_EQ(errorOf(cls, [](const Inputs& in) { return broadcastTo(in["x"], {4, 1, 8}); }),
            "broadcastTo: cannot broadcast [4, 16, 8] to [4, 1, 8]");
  EXPECT_EQ(errorOf(cls, [](const Inputs& in) { return broadcastTo(in["cls"], {8}); }),
            "broadcastTo: cannot broadcast [1, 1, 8] to [8]");
  EXPECT_EQ(errorOf(cls, [](const Inputs& in) { return broadcastTo(in["cls"], {0, 1, 8}); }),
            "broadcastTo: sizes must be positive, got [0, 1, 8]");
  EXPECT_EQ(errorOf(cls, [](const Inputs& in) { return expand(in["cls"], {-1, 4, -1, -1}); }),
            "expand: -1 is only allowed for an existing axis, got [-1, 4, -1, -1]");
  EXPECT_EQ(errorOf(cls, [](const Inputs& in) { return repeatKv(in["kv"], 0); }),
            "repeatKv: repeats must be positive, got 0");
  EXPECT_EQ(errorOf(cls, [](const Inputs& in) { return repeatKv(reshape(in["cls"], {1, 8}), 2); }),
            "repeatKv: x must be [..., heads, T, headDim], got [1, 8]");
}

TEST(Reductions, OverSeveralAxes) {
  const std::vector<InputDecl> img = {{"x", {8, 6, 28, 30}}};
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return mean(in["x"], {-2, -1}); }), (Shape{8, 6}));
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return sum(in["x"], {-1, 1}, {.keepDims = true}); }),
            (Shape{8, 1, 28, 1}));
  // Adjacent axes: one reshape (a view) and one reduction, as one kernel would.
  const ir::Graph g = traceFunction(img, [](const Inputs& in) { return mean(in["x"], {2, 3}); });
  const ir::Op& reduce = g.producer(g.outputs[0]);
  EXPECT_EQ(reduce.kind, ir::OpKind::mean);
  EXPECT_EQ(g.tensor(reduce.inputs[0]).shape, (Shape{8, 6, 840}));
  EXPECT_EQ(errorOf(img, [](const Inputs& in) { return mean(in["x"], {1, -3}); }),
            "mean: axes [1, 1] repeat an axis");
  EXPECT_EQ(errorOf(img, [](const Inputs& in) { return sum(in["x"], {4}); }),
            "sum: axis 4 is out of range for rank 4 (expected -4..3)");
  EXPECT_EQ(errorOf(img, [](const Inputs& in) { return sum(in["x"], std::vector<std::int64_t>{}); }),
            "sum: axes must not be empty");
}

TEST(Convolution, Conv1dIsAConv2dOfHeightOne) {
  const std::vector<InputDecl> seq = {{"x", {4, 6, 50}}, {"w", {12, 3, 5}}};
  // L: (50 + 2·2 - 5)/3 + 1 = 17.
  EXPECT_EQ(shapeOf(seq, [](const Inputs& in) {
              return conv1d(in["x"], in["w"], {.stride = 3, .padding = 2, .groups = 2});
            }),
            (Shape{4, 12, 17}));
  EXPECT_EQ(errorOf(seq, [](const Inputs& in) { return conv1d(in["w"], reshape(in["x"], {4, 6, 5, 10})); }),
            "conv1d: weight must be [outC, C/groups, K], got [4, 6, 5, 10]");
  EXPECT_EQ(errorOf(seq, [](const Inputs& in) { return conv1d(reshape(in["x"], {24, 50}), in["w"]); }),
            "conv1d: input must be [N, C, L], got [24, 50]");
}

// A k-tap kernel with dilation d spans d·(k - 1) + 1 positions.
TEST(Convolution, DilationWidensTheKernelsSpan) {
  const std::vector<InputDecl> img = {{"x", {2, 4, 20, 16}}, {"w", {8, 4, 3, 3}}};
  // H: (20 + 2·2 - (2·2 + 1))/1 + 1 = 20; W: (16 + 0 - (3·2 + 1))/2 + 1 = 5.
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) {
              return conv2d(in["x"], in["w"], {.stride = Hw(1, 2), .padding = Hw(2, 0), .dilation = Hw(2, 3)});
            }),
            (Shape{2, 8, 20, 5}));
  const std::vector<InputDecl> seq = {{"x", {2, 4, 30}}, {"w", {8, 4, 3}}};
  // A WaveNet layer: dilation 4, padding 4 keeps the length.
  EXPECT_EQ(shapeOf(seq, [](const Inputs& in) { return conv1d(in["x"], in["w"], {.padding = 4, .dilation = 4}); }),
            (Shape{2, 8, 30}));
  EXPECT_EQ(errorOf(img, [](const Inputs& in) { return conv2d(in["x"], in["w"], {.dilation = 0}); }),
            "conv2d: dilation must be positive, got (0, 0)");
  EXPECT_EQ(errorOf(seq, [](const Inputs& in) { return conv1d(in["x"], in["w"], {.dilation = 15}); }),
            "conv1d: the width kernel (3 taps at dilation 15: 31 wide) is larger than the padded input (30 + 2·0)");
}

TEST(Convolution, Conv2dPoolUpsample) {
  const std::vector<InputDecl> img = {{"x", {8, 6, 28, 30}}, {"w", {12, 3, 5, 3}}};
  // H: (28 + 2·2 - 5)/2 + 1 = 14; W: (30 + 2·1 - 3)/2 + 1 = 15.
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) {
              return conv2d(in["x"], in["w"], {.stride = 2, .padding = {2, 1}, .groups = 2});
            }),
            (Shape{8, 12, 14, 15}));
  EXPECT_EQ(errorOf(img, [](const Inputs& in) { return conv2d(in["x"], in["w"]); }),
            "conv2d: weight [12, 3, 5, 3] expects 3 input channels per group, input [8, 6, 28, 30] has 6 / 1 groups");
  EXPECT_EQ(errorOf({{"x", {1, 1, 2, 2}}, {"w", {1, 1, 3, 3}}},
                    [](const Inputs& in) { return conv2d(in["x"], in["w"]); }),
            "conv2d: the height kernel (3) is larger than the padded input (2 + 2·0)");
  // (28 - 2)/2 + 1 = 14; with stride 1 padding 1 kernel 3: 28.
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return maxPool2d(in["x"], 2); }), (Shape{8, 6, 14, 15}));
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return maxPool2d(in["x"], 3, {.stride = 1, .padding = 1}); }),
            (Shape{8, 6, 28, 30}));
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return nearestUpsample2d(in["x"], 2); }), (Shape{8, 6, 56, 60}));
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return bilinearUpsample2d(in["x"], 3); }), (Shape{8, 6, 84, 90}));
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return bilinearUpsample2d(in["x"], 2, {.alignCorners = true}); }),
            (Shape{8, 6, 56, 60}));
  EXPECT_EQ(errorOf(img, [](const Inputs& in) { return bilinearUpsample2d(in["x"], 0); }),
            "bilinearUpsample2d: factor must be >= 1, got 0");
  EXPECT_EQ(errorOf({{"x", {2, 3, 4}}}, [](const Inputs& in) { return bilinearUpsample2d(in["x"], 2); }),
            "bilinearUpsample2d: input ([N, C, H, W]) must have rank 4, got [2, 3, 4] f32");
  // Pixel shuffle by r needs channels in blocks of r²: 9 = 1·3² for 3; the image's 6 is no multiple of 2².
  EXPECT_EQ(shapeOf({{"x", {8, 9, 28, 30}}}, [](const Inputs& in) { return pixelShuffle(in["x"], 3); }),
            (Shape{8, 1, 84, 90}));
  EXPECT_EQ(shapeOf({{"x", {12, 5, 7}}}, [](const Inputs& in) { return pixelShuffle(in["x"], 2); }),
            (Shape{3, 10, 14}));  // no batch axis
  EXPECT_EQ(shapeOf({{"x", {2, 3, 4, 6, 8}}}, [](const Inputs& in) { return pixelShuffle(in["x"], 1); }),
            (Shape{2, 3, 4, 6, 8}));  // two leading axes kept; factor 1 changes nothing
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return pixelUnshuffle(in["x"], 2); }), (Shape{8, 24, 14, 15}));
  EXPECT_EQ(errorOf(img, [](const Inputs& in) { return pixelShuffle(in["x"], 2); }),
            "pixelShuffle: input channels (6) must be divisible by factor² (2·2 = 4)");
  EXPECT_EQ(errorOf(img, [](const Inputs& in) { return pixelUnshuffle(in["x"], 4); }),
            "pixelUnshuffle: input height and width (28, 30) must be divisible by the factor (4)");
  EXPECT_EQ(errorOf(img, [](const Inputs& in) { return pixelShuffle(in["x"], 0); }),
            "pixelShuffle: factor must be >= 1, got 0");
  EXPECT_EQ(errorOf({{"x", {4, 6}}}, [](const Inputs& in) { return pixelUnshuffle(in["x"], 2); }),
            "pixelUnshuffle: input must be [..., C, H, W] (rank >= 3), got [4, 6] f32");
  // ceil_mode: GoogLeNet's first pool, 112 -> ceil(109/2) + 1 = 56 (55 without); a last window
  // that would start in the right padding is not added: 5 + 2·1 padded, kernel 2, stride 2:
  // ceil(5/2) + 1 = 4, but the 4th window starts at 6 - 1 = 5, past the input: 3, as without.
  const std::vector<InputDecl> googlenet = {{"x", {1, 64, 112, 112}}};
  EXPECT_EQ(shapeOf(googlenet, [](const Inputs& in) { return maxPool2d(in["x"], 3, {.stride = 2, .ceilMode = true}); }),
            (Shape{1, 64, 56, 56}));
  EXPECT_EQ(shapeOf(googlenet, [](const Inputs& in) { return maxPool2d(in["x"], 3, {.stride = 2}); }),
            (Shape{1, 64, 55, 55}));
  EXPECT_EQ(shapeOf({{"x", {1, 1, 5, 5}}}, [](const Inputs& in) {
              return avgPool2d(in["x"], 2, {.padding = 1, .ceilMode = true});
            }),
            (Shape{1, 1, 3, 3}));
  // An exact fit gains nothing: (28 - 2) / 2 has no remainder.
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return maxPool2d(in["x"], 2, {.ceilMode = true}); }),
            (Shape{8, 6, 14, 15}));
  EXPECT_EQ(shapeOf({{"x", {2, 3, 7}}}, [](const Inputs& in) { return maxPool1d(in["x"], 2, {.ceilMode = true}); }),
            (Shape{2, 3, 4}));
  EXPECT_EQ(errorOf(img, [](const Inputs& in) { return maxPool2d(in["x"], 2, {.padding = 2}); }),
            "maxPool2d: padding (2, 2) must be between 0 and half the kernel (2, 2)");
}

// Output (H-1)·s - 2p + k + outputPadding, weight [inC, outC/groups, kH, kW].
TEST(Convolution, ConvTranspose2d) {
  const std::vector<InputDecl> grouped = {{"x", {2, 8, 5, 7}}, {"w", {8, 3, 3, 4}}};
  // H: 4·2 - 2·1 + 3 + 1 = 10; W: 6·3 - 0 + 4 + 2 = 24; outC = 3 · 2 groups.
  EXPECT_EQ(shapeOf(grouped, [](const Inputs& in) {
              return convTranspose2d(in["x"], in["w"], {.stride = {2, 3}, .padding = {1, 0},
                                                        .outputPadding = {1, 2}, .groups = 2});
            }),
            (Shape{2, 6, 10, 24}));
  const std::vector<InputDecl> up = {{"x", {1, 4, 3, 3}}, {"w", {4, 2, 2, 2}}};
  EXPECT_EQ(shapeOf(up, [](const Inputs& in) { return convTranspose2d(in["x"], in["w"], {.stride = 2}); }),
            (Shape{1, 2, 6, 6}));
  EXPECT_EQ(errorOf(up, [](const Inputs& in) {
              return convTranspose2d(in["x"], in["w"], {.stride = 2, .outputPadding = 2});
            }),
            "convTranspose2d: outputPadding (2, 2) must be >= 0 and smaller than the stride (2, 2)");
  EXPECT_EQ(errorOf({{"x", {1, 4, 3, 3}}, {"w", {3, 2, 2, 2}}},
                    [](const Inputs& in) { return convTranspose2d(in["x"], in["w"]); }),
            "convTranspose2d: weight [3, 2, 2, 2] expects 3 channels (its axis 0), input [1, 4, 3, 3] has 4");
  EXPECT_EQ(errorOf(up, [](const Inputs& in) { return convTranspose2d(in["x"], in["w"], {.groups = 0}); }),
            "convTranspose2d: groups must be positive, got 0");
  // (1 - 1)·1 - 2·2 + 2 = -2: no output left.
  EXPECT_EQ(errorOf({{"x", {1, 4, 1, 1}}, {"w", {4, 2, 2, 2}}},
                    [](const Inputs& in) { return convTranspose2d(in["x"], in["w"], {.padding = 2}); }),
            "convTranspose2d: output sizes (dims) must be positive, got [1, 2, -2, -2]");
}

TEST(Convolution, AverageAndAdaptivePooling) {
  const std::vector<InputDecl> img = {{"x", {8, 6, 28, 30}}};
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return avgPool2d(in["x"], 2); }), (Shape{8, 6, 14, 15}));
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return avgPool2d(in["x"], 3, {.stride = 1, .padding = 1}); }),
            (Shape{8, 6, 28, 30}));
  EXPECT_EQ(errorOf(img, [](const Inputs& in) { return avgPool2d(in["x"], 3, {.padding = 2}); }),
            "avgPool2d: padding (2, 2) must be between 0 and half the kernel (3, 3)");
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return adaptiveAvgPool2d(in["x"], 1); }), (Shape{8, 6, 1, 1}));
  EXPECT_EQ(shapeOf(img, [](const Inputs& in) { return adaptiveAvgPool2d(in["x"], {7, 5}); }),
            (Shape{8, 6, 7, 5}));
  EXPECT_EQ(errorOf(img, [](const Inputs& in) { return adaptiveAvgPool2d(in["x"], 5); }),
            "adaptiveAvgPool2d: output size (5, 5) must divide the input's (28, 30) (windows of one size)");
  EXPECT_EQ(errorOf({{"x", {6, 28, 30}}}, [](const Inputs& in) { return adaptiveAvgPool2d(in["x"], 1); }),
            "adaptiveAvgPool2d: input must be [N, C, H, W], got [6, 28, 30]");
}

TEST(Normalisation, GroupNorm) {
  const std::vector<InputDecl> x = {{"x", {2, 6, 4, 4}}, {"w", {6}}, {"b", {6}}, {"v", {5}}};
  EXPECT_EQ(shapeOf(x, [](const Inputs& in) { return groupNorm(in["x"], 3, in["w"], in["b"]); }),
            (Shape{2, 6, 4, 4}));
  EXPECT_EQ(shapeOf({{"x", {2, 6, 5}}}, [](const Inputs& in) { return groupNorm(in["x"], 6); }),
            (Shape{2, 6, 5}));
  EXPECT_EQ(errorOf(x, [](const Inputs& in) { return groupNorm(in["x"], 4, in["w"], in["b"]); }),
            "groupNorm: channels 6 (axis 1 of [2, 6, 4, 4]) must be divisible by groups = 4");
  EXPECT_EQ(errorOf(x, [](const Inputs& in) { return groupNorm(in["x"], 2, in["w"]); }),
            "groupNorm: takes the weight and the bias together (affine), or neither");
  EXPECT_EQ(errorOf(x, [](const Inputs& in) { return groupNorm(in["x"], 2, in["v"], in["v"]); }),
            "groupNorm: the input's channel axis is 6, but the weight is [5]");
  EXPECT_EQ(errorOf(x, [](const Inputs& in) { return groupNorm(in["w"], 1); }),
            "groupNorm: input must be [N, C, ...] (rank >= 2), got [6] f32");
}

TEST(Indexing, OneHotArangeEmbeddingTake) {
  const std::vector<InputDecl> idx = {{"i", {4, 5}, i32}, {"table", {100, 16}}, {"x", {4, 7}}};
  const auto oh = outOf(idx, [](const Inputs& in) { return oneHot(in["i"], 10); });
  EXPECT_EQ(oh.shape, (Shape{4, 5, 10}));
  EXPECT_EQ(oh.dtype, DType::f32);
  EXPECT_EQ(outOf(idx, [](const Inputs&) { return arange(6); }).dtype, DType::i32);
  EXPECT_EQ(outOf(idx, [](const Inputs&) { return arange(6, f32); }).dtype, DType::f32);
  EXPECT_EQ(outOf(idx, [](const Inputs& in) { return oneHot(in["i"], 10, i32); }).dtype, DType::i32);
  EXPECT_EQ(outOf(idx, [](const Inputs& in) { return oneHot(in["i"], 10, DType::boolean); }).dtype,
            DType::boolean);
  // PyTorch's length rule, ceil((end - start) / step).
  EXPECT_EQ(shapeOf(idx, [](const Inputs&) { return arange(2, 10, 3); }), (Shape{3}));
  EXPECT_EQ(shapeOf(idx, [](const Inputs&) { return arange(10, 0, -3); }), (Shape{4}));
  EXPECT_EQ(shapeOf(idx, [](const Inputs&) { return arange(0, 1, 0.1, f32); }), (Shape{10}));
  const ir::Graph g = traceFunction(idx, [](const Inputs&) { return arange(-3, 4, 2); });
  EXPECT_EQ(g.producer(g.outputs[0]).attrs->count, 4);
  EXPECT_EQ(g.producer(g.outputs[0]).attrs->scalar, -3);
  EXPECT_EQ(g.producer(g.outputs[0]).attrs->scalar2, 2);
  EXPECT_EQ(errorOf(idx, [](const Inputs&) { return arange(0, 10, 0); }), "arange: step must not be 0");
  EXPECT_EQ(errorOf(idx, [](const Inputs&) { return arange(0, 10, -1); }),
            "arange: the range from 0 to 10 by step -1 is empty (a negative step must lead down to a "
            "smaller end)");
  EXPECT_EQ(errorOf(idx, [](const Inputs&) { return arange(5, 5); }),
            "arange: the range from 5 to 5 by step 1 is empty (a positive step must lead up to a larger "
            "end)");
  EXPECT_EQ(errorOf(idx, [](const Inputs&) { return arange(0, 1, 0.5); }),
            "arange: an i32 range takes whole numbers, got start 0 and step 0.5 (f32 takes fractions)");
  EXPECT_EQ(errorOf(idx, [](const Inputs&) { return arange(0, 4e9, 1e9); }),
            "arange: the values 0 to 3000000000 do not fit i32");
  EXPECT_EQ(shapeOf(idx, [](const Inputs& in) { return embedding(in["table"], in["i"]); }), (Shape{4, 5, 16}));
  EXPECT_EQ(errorOf(idx, [](const Inputs& in) { return embedding(in["table"], in["x"]); }),
            "embedding: indices must be i32, got [4, 7] f32");
  EXPECT_EQ(shapeOf(idx, [](const Inputs& in) { return embedding(in["table"], in["i"], -100); }), (Shape{4, 5, 16}));
  EXPECT_EQ(errorOf(idx, [](const Inputs& in) { return embedding(in["table"], in["i"], 100); }),
            "embedding: paddingIdx 100 must be within the table's 100 rows ([-100, 100))");
  EXPECT_EQ(errorOf(idx, [](const Inputs& in) { return embedding(in["table"], in["i"], -101); }),
            "embedding: paddingIdx -101 must be within the table's 100 rows ([-100, 100))");
  EXPECT_EQ(shapeOf(idx, [](const Inputs& in) { return takeAlongAxis(in["x"], in["i"], -1); }), (Shape{4, 5}));
  EXPECT_EQ(errorOf(idx, [](const Inputs& in) { return takeAlongAxis(in["x"], in["i"], 0); }),
            "takeAlongAxis: indices [4, 5] must match the input [4, 7] on every axis but 0");
  EXPECT_EQ(shapeOf(idx, [](const Inputs&) { return zeros({3, 2}); }), (Shape{3, 2}));
  EXPECT_EQ(outOf(idx, [](const Inputs&) { return ones({3}, i32); }).dtype, DType::i32);
  EXPECT_EQ(shapeOf(idx, [](const Inputs&) { return randn({2, 2}); }), (Shape{2, 2}));
}

TEST(FusedOps, SoftmaxFamilyAndCategorical) {
  const std::vector<InputDecl> s = {{"s", {2, 4, 6, 6}}};
  EXPECT_EQ(shapeOf(s, [](const Inputs& in) { return softmax(in["s"]); }), (Shape{2, 4, 6, 6}));
  EXPECT_EQ(shapeOf(s, [](const Inputs& in) { return logSoftmax(in["s"], 1); }), (Shape{2, 4, 6, 6}));
  EXPECT_EQ(shapeOf(s, [](const Inputs& in) { return softmaxCausal(in["s"]); }), (Shape{2, 4, 6, 6}));
  EXPECT_EQ(shapeOf(s, [](const Inputs& in) { return whereCausal(in["s"], -1e9); }), (Shape{2, 4, 6, 6}));
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return softmaxCausal(in["x"]); }),
            "softmaxCausal: input must end in a square [T, T] score matrix, got [2, 3, 4]");
  const auto c = outOf(kX, [](const Inputs& in) { return categorical(in["x"]); });
  EXPECT_EQ(c.shape, (Shape{2, 3}));
  EXPECT_EQ(c.dtype, DType::i32);
}

TEST(FusedOps, AttentionLayout) {
  const std::vector<InputDecl> x = {{"x", {2, 10, 64}}};
  EXPECT_EQ(shapeOf(x, [](const Inputs& in) { return splitHeads(in["x"], 8); }), (Shape{2, 8, 10, 8}));
  EXPECT_EQ(shapeOf(x, [](const Inputs& in) { return mergeHeads(splitHeads(in["x"], 8)); }), (Shape{2, 10, 64}));
  EXPECT_EQ(errorOf(x, [](const Inputs& in) { return splitHeads(in["x"], 6); }),
            "splitHeads: D = 64 of [2, 10, 64] is not divisible by 6 heads");
  const ir::Graph g = traceFunction(x, [](const Inputs& in) {
    auto [q, k] = rope(splitHeads(in["x"], 8), splitHeads(in["x"], 8));
    EXPECT_EQ(q.shape(), (Shape{2, 8, 10, 8}));
    return add(q, k);
  });
  int ropes = 0;
  for (const ir::Op& op : g.ops) ropes += op.kind == ir::OpKind::rope;
  EXPECT_EQ(ropes, 2);  // one op per rotated tensor
  EXPECT_EQ(errorOf({{"x", {2, 3, 5}}}, [](const Inputs& in) { return rope(in["x"], in["x"]).first; }),
            "rope(q): input must be [..., T, Dh] with an even Dh, got [2, 3, 5]");
}

TEST(FusedOps, LossesAndReductions) {
  const std::vector<InputDecl> l = {{"logits", {4, 7, 10}}, {"t", {4, 7}, i32}};
  EXPECT_EQ(shapeOf(l, [](const Inputs& in) { return crossEntropy(in["logits"], in["t"]); }), (Shape{}));
  EXPECT_EQ(shapeOf(l, [](const Inputs& in) {
              return crossEntropy(in["logits"], in["t"], {.reduction = Reduction::none});
            }),
            (Shape{4, 7}));
  EXPECT_EQ(shapeOf(l, [](const Inputs& in) {
              return nllLoss(logSoftmax(in["logits"]), in["t"], {.reduction = Reduction::sum});
            }),
            (Shape{}));
  EXPECT_EQ(errorOf(l, [](const Inputs& in) { return crossEntropy(in["logits"], reshape(in["t"], {-1})); }),
            "crossEntropy: logits [..., C] and targets [...] must agree on the leading axes: [4, 7, 10] vs [28]");
}

TEST(FusedOps, DropoutStopGradientCapture) {
  const ir::Graph g = traceFunction(kX, [](const Inputs& in) {
    return capture("hidden", stopGradient(dropout(in["x"], 0.25)));
  });
  ASSERT_EQ(g.captures.size(), 1u);
  EXPECT_EQ(g.captures[0].name, "hidden");
  EXPECT_EQ(g.captures[0].tensor, g.outputs[0]);
  EXPECT_EQ(errorOf(kX, [](const Inputs& in) { return dropout(in["x"], 1.0); }),
            "dropout: p must be in [0, 1), got 1");
}

TEST(Sizes, ElementCountsAre64BitAndOverflowIsAnError) {
  // 2^31 elements is fine; 2^62 · 4 overflows.
  EXPECT_EQ(shapeOf({{"x", {65536, 32768}}}, [](const Inputs& in) { return relu(in["x"]); }),
            (Shape{65536, 32768}));
  EXPECT_EQ(errorOf({{"x", {std::int64_t{1} << 62}}}, [](const Inputs& in) { return stack({in["x"], in["x"], in["x"], in["x"]}, 0); }),
            "stack: the result's element count overflows 64 bits: [4, 4611686018427387904]");
}

TEST(Tracing, OpsOutsideATraceAreAnError) {
  EXPECT_THROW(relu(Tensor{}), TraceError);
  try {
    relu(Tensor{});
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), "relu: ops can only be called inside a forward function while nndna traces it");
  }
}

TEST(Tracing, UndefinedTensorIsAnError) {
  EXPECT_EQ(errorOf(kX, [](const Inputs&) { return relu(Tensor{}); }),
            "relu: input tensor is undefined (never assigned)");
}

TEST(Tracing, UnknownInputNameListsTheDeclaredOnes) {
  EXPECT_EQ(errorOf({{"a", {1}}, {"b", {1}}}, [](const Inputs& in) { return in["c"]; }),
            "inputs: no input named 'c' (declared: a, b)");
}

}  // namespace
}  // namespace nndna
