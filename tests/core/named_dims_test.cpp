// Named dims in the model API: Dim arithmetic (at compile time), names on traced tensors and op
// attributes, the legend the dims met make, and the errors a misuse gets (at the user's line).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "nndna/ir.hpp"
#include "nndna/trace.hpp"

namespace nndna {
namespace {

constexpr Dim B{"B", 4, "batch"};
constexpr Dim T{"T", 8, "context"};
constexpr Dim D{"D", 8, "width"};  // T = D: only the names tell them apart
constexpr Dim H{"H", 2, "heads"};
constexpr Dim Dh{"Dh", D / H, "head width"};

// `*` and `/` keep the names; the value is the integer one; other arithmetic gives an integer.
static_assert(Dh == 4 && Dh.definition().factorCount() == 2 && Dh.definition().named());
static_assert(H * Dh == 8 && (H * Dh).factorCount() == 2);
static_assert(((H * Dh) / H).factorCount() == 1 && ((H * Dh) / H).factor(0).name == "Dh");
static_assert((4 * D).numerator() == 4 && (D / 2).denominator() == 2 && (D / 2).named());
static_assert(D / 3 == 2 && !(D / 3).named());  // inexact: C++'s integer value, and no name
static_assert(T + 1 == 9 && T % 3 == 2 && T - 1 == 7);
constexpr int kWidth = 4 * D;
static_assert(kWidth == 32);

ir::Graph traced(std::vector<InputDecl> inputs, const std::function<Tensor(const Inputs&)>& fn) {
  return traceFunction(inputs, fn, /*training=*/false);
}

const ir::TensorInfo& outputOf(const ir::Graph& g) { return g.tensor(g.outputs.at(0)); }

TEST(NamedDims, InputsAndShapeArgumentsCarryNames) {
  const ir::Graph g = traced({{"x", {B, T, D}}}, [](const Inputs& in) {
    return reshape(in["x"], {B, T, H, Dh});
  });
  const ir::Op& input = g.producer(g.inputs.at(0).tensor);
  EXPECT_EQ(g.tensor(input.out).names, (ir::DimNames{"B", "T", "D"}));
  const ir::Op& reshapeOp = g.producer(g.outputs.at(0));
  EXPECT_EQ(reshapeOp.attrs->names, (ir::DimNames{"B", "T", "H", "Dh"}));
  EXPECT_EQ(outputOf(g).shape, (Shape{4, 8, 2, 4}));
  EXPECT_EQ(outputOf(g).names, (ir::DimNames{"B", "T", "H", "Dh"}));
}

// A Dim is an integer where the API takes a kernel or a stride too (Hw), and arithmetic on it
// gives the sizes an int would.
TEST(NamedDims, DimsWorkAsKernelSizes) {
  constexpr Dim S{"S", 8, "side"};
  constexpr Dim P{"P", 2, "pool"};
  const ir::Graph g = traced({{"x", {B, H, S, S}}}, [&](const Inputs& in) {
    return maxPool2d(in["x"], P, {.stride = P});
  });
  EXPECT_EQ(outputOf(g).shape, (Shape{4, 2, 4, 4}));
  EXPECT_EQ(outputOf(g).names, (ir::DimNames{"B", "H", "S/2", "S/2"}));
}

TEST(NamedDims, PlainIntsNameNothing) {
  const ir::Graph g = traced({{"x", {4, 8, 8}}}, [](const Inputs& in) { return reshape(in["x"], {4, 8, 2, 4}); });
  for (const ir::TensorInfo& t : g.tensors) EXPECT_TRUE(t.names.empty());
  for (const ir::Op& op : g.ops) EXPECT_TRUE(op.attrs->names.empty());
}

TEST(NamedDims, ProductsAndCountsAreNamed) {
  const ir::Graph g = traced({{"x", {B, T, D}}}, [](const Inputs& in) {
    Tensor heads = splitHeads(in["x"], H);  // [B, H, T, D/H]
    Tensor merged = reshape(swapAxes(heads, 1, 2), {B, T, H * Dh});
    return add(merged, zeros({4 * D / 4}));
  });
  const auto split = std::find_if(g.ops.begin(), g.ops.end(), [](const ir::Op& op) {
    return op.kind == ir::OpKind::split_heads;
  });
  ASSERT_NE(split, g.ops.end());
  EXPECT_EQ(split->attrs->names, ir::DimNames{"H"});
  EXPECT_EQ(g.tensor(split->out).names, (ir::DimNames{"B", "H", "T", "D/H"}));
  const auto reshapeOp = std::find_if(g.ops.begin(), g.ops.end(), [](const ir::Op& op) {
    return op.kind == ir::OpKind::reshape;
  });
  ASSERT_NE(reshapeOp, g.ops.end());
  EXPECT_EQ(reshapeOp->attrs->names, (ir::DimNames{"B", "T", "H·Dh"}));
  const auto zerosOp = std::find_if(g.ops.begin(), g.ops.end(), [](const ir::Op& op) {
    return op.kind == ir::OpKind::zeros;
  });
  ASSERT_NE(zerosOp, g.ops.end());
  EXPECT_EQ(zerosOp->attrs->names, ir::DimNames{"D"});  // 4·D/4 is D again
}

// A model whose loss reshapes its input by dims; `dims` is the spec's own list.
ir::TracedModel tracedModel(std::vector<DimDecl> dims) {
  LoadedSpec spec;
  spec.sourceFile = "model.cpp";
  spec.line = 7;
  spec.model = std::make_unique<Module>();
  spec.spec.inputs = {{"x", {4, 8, 8}}};
  spec.spec.dims = std::move(dims);
  spec.spec.loss = [](Module&, const Inputs& in) { return mean(reshape(in["x"], {B, T, H, Dh})); };
  return traceModel(spec);
}

TEST(NamedDims, TheDimsMetFillTheLegendAfterTheSpecsOwn) {
  const ir::TracedModel m = tracedModel({{4, "B", "samples"}});
  std::vector<std::string> names;
  for (const DimDecl& d : m.spec.dims) names.push_back(std::string(d.name) + "=" + std::to_string(d.size));
  // The spec's B first (its description kept), then as met: T, H, Dh (and D, H from Dh's
  // definition, D / H).
  EXPECT_EQ(names, (std::vector<std::string>{"B=4", "T=8", "H=2", "Dh=4", "D=8"}));
  EXPECT_EQ(m.spec.dims[0].desc, "samples");
  EXPECT_EQ(m.spec.dims[3].definition, "D/H");
  EXPECT_EQ(m.spec.dims[3].desc, "head width");
  EXPECT_EQ(DimDecl(Dh).definition, "D/H");
}

TEST(NamedDims, OneNameWithTwoSizesIsAnErrorAtTheSpecLine) {
  try {
    tracedModel({{16, "T", "context"}});
    FAIL() << "expected a TraceError";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), "model.cpp");
    EXPECT_EQ(e.line(), 7);
    EXPECT_EQ(e.detail(), "dim T is 8 in the forward functions but 16 elsewhere: one name, one size");
  }
}

TEST(NamedDims, AnInputsNamesMustFitItsShape) {
  LoadedSpec spec;
  spec.sourceFile = "model.cpp";
  spec.model = std::make_unique<Module>();
  InputDecl x{"x", {B, T}};
  x.shape = {4, 8, 8};  // changed after the names were taken
  spec.spec.inputs = {x};
  spec.spec.loss = [](Module&, const Inputs& in) { return mean(in["x"]); };
  try {
    trace(spec);
    FAIL() << "expected a TraceError";
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(), "model.cpp: inputs: input 'x' has 2 axis names for shape [4, 8, 8]");
  }
}

TEST(NamedDims, MisusedDimsAreErrorsAtTheUsersLine) {
  constexpr Dim spaced{"two words", 3};
  constexpr Dim otherT{"T", 9};
  auto expectError = [](const std::function<Tensor(const Inputs&)>& fn, int line, const std::string& detail) {
    try {
      traced({{"x", {B, T, D}}}, fn);
      FAIL() << "expected a TraceError: " << detail;
    } catch (const TraceError& e) {
      EXPECT_EQ(std::filesystem::path(e.file()).filename(), "named_dims_test.cpp");
      EXPECT_EQ(e.line(), line);
      EXPECT_EQ(e.detail(), detail);
    }
  };
  const int spacedLine = __LINE__ + 1;
  expectError([&](const Inputs& in) { return reshape(in["x"], {spaced, -1}); }, spacedLine,
              "dim name 'two words' must be an identifier (a letter, then letters, digits or '_', at most 64 "
              "characters)");
  const int twiceLine = __LINE__ + 1;
  expectError([&](const Inputs& in) { Tensor r = reshape(in["x"], {B, T, D}); return add(r, zeros({otherT, D})); }, twiceLine,
              "dim T is 9 here but 8 elsewhere: one name, one size");
}

}  // namespace
}  // namespace nndna
