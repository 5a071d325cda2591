// ir::OpAttrsBox: an op's attributes out of line, held only when one differs from its default.
#include <gtest/gtest.h>

#include <cmath>

#include "nndna/ir.hpp"
#include "nndna/trace.hpp"

using namespace nndna;

namespace {

// The point of the box: a million-op graph carries a pointer per op, not 200 bytes of defaults.
TEST(OpAttrsBox, AnOpIsSmall) {
  EXPECT_LE(sizeof(ir::Op), 64u);
  EXPECT_EQ(sizeof(ir::OpAttrsBox), sizeof(void*));
}

TEST(OpAttrsBox, DefaultsAreHeldAsNoneAndReadAsDefaults) {
  const ir::OpAttrsBox none;
  EXPECT_FALSE(none.any());
  EXPECT_EQ(none->axis, 0);
  EXPECT_EQ(none->groups, 1);
  EXPECT_EQ(none->stride, (std::array<std::int64_t, 2>{1, 1}));
  EXPECT_TRUE(none->name.empty());
  EXPECT_EQ(*none, ir::OpAttrs{});

  const ir::OpAttrsBox fromDefaults = ir::OpAttrs{};
  EXPECT_FALSE(fromDefaults.any());
  ir::OpAttrs zeroAxis;
  zeroAxis.axis = 0;  // set, but to its default
  EXPECT_FALSE(ir::OpAttrsBox(zeroAxis).any());
}

TEST(OpAttrsBox, AnyAttributeOffItsDefaultIsHeld) {
  ir::OpAttrs a;
  a.axis = -1;
  const ir::OpAttrsBox axis = a;
  EXPECT_TRUE(axis.any());
  EXPECT_EQ(axis->axis, -1);

  ir::OpAttrs n;
  n.name = "x";
  EXPECT_TRUE(ir::OpAttrsBox(n).any());
  ir::OpAttrs g;
  g.groups = 2;
  EXPECT_TRUE(ir::OpAttrsBox(g).any());
}

// -0.0 == 0.0, but `mul(x, -0.0)` keeps its sign through the box.
TEST(OpAttrsBox, ANegativeZeroIsKept) {
  ir::OpAttrs a;
  a.scalar = -0.0;
  const ir::OpAttrsBox box = a;
  ASSERT_TRUE(box.any());
  EXPECT_TRUE(std::signbit(box->scalar));
  ir::OpAttrs b;
  b.scalar2 = -0.0;
  EXPECT_TRUE(ir::OpAttrsBox(b).any());
}

TEST(OpAttrsBox, CopiesAreValuesAndEditMakesTheOpsOwn) {
  ir::Op op;
  EXPECT_FALSE(op.attrs.any());
  op.attrs.edit().count = 4;  // made from the defaults
  EXPECT_TRUE(op.attrs.any());
  EXPECT_EQ(op.attrs->count, 4);
  EXPECT_EQ(op.attrs->groups, 1);

  ir::Op copy = op;
  copy.attrs.edit().count = 5;
  EXPECT_EQ(op.attrs->count, 4);
  EXPECT_EQ(copy.attrs->count, 5);

  copy = op;
  EXPECT_EQ(copy.attrs->count, 4);
  copy.attrs = ir::OpAttrs{};  // back to none
  EXPECT_FALSE(copy.attrs.any());
  EXPECT_TRUE(op.attrs.any());

  const ir::Op moved = std::move(op);
  EXPECT_EQ(moved.attrs->count, 4);
}

// What the tracer does once an op's attributes are set: attributes edited back to their defaults
// hold no block, any other stay as they are (the same block: nothing is copied).
TEST(OpAttrsBox, DropIfDefaultsLetsGoOfDefaultsOnly) {
  ir::OpAttrsBox none;
  none.dropIfDefaults();
  EXPECT_FALSE(none.any());

  ir::OpAttrsBox reset;
  reset.edit().count = 4;
  reset.edit().count = 0;
  ASSERT_TRUE(reset.any());
  reset.dropIfDefaults();
  EXPECT_FALSE(reset.any());
  EXPECT_EQ(reset->count, 0);

  ir::OpAttrsBox kept;
  kept.edit().axis = 1;
  const ir::OpAttrs* block = &*kept;
  kept.dropIfDefaults();
  ASSERT_TRUE(kept.any());
  EXPECT_EQ(&*kept, block);
  EXPECT_EQ(kept->axis, 1);

  ir::OpAttrsBox negativeZero;
  negativeZero.edit().scalar = -0.0;
  negativeZero.dropIfDefaults();
  ASSERT_TRUE(negativeZero.any()) << "-0.0 is kept, as the constructor keeps it";
  EXPECT_TRUE(std::signbit(negativeZero->scalar));
}

// What the tracer leaves in each op: no block for attributes its builder set back to their
// defaults, and no spare memory in the names of sizes given as plain numbers.
TEST(OpAttrsBox, TracedOpsHoldOnlyWhatTheyNeed) {
  const std::vector<InputDecl> x = {{"x", {2, 3, 4}}};
  const ir::Graph gelu = traceFunction(x, [](const Inputs& in) { return nndna::gelu(in["x"]); });
  EXPECT_EQ(gelu.ops.back().kind, ir::OpKind::gelu);
  EXPECT_FALSE(gelu.ops.back().attrs.any()) << "gelu's default approximation holds no block";

  const ir::Graph reshaped = traceFunction(x, [](const Inputs& in) { return reshape(in["x"], {6, 4}); });
  const ir::Op& reshape = reshaped.ops.back();
  EXPECT_EQ(reshape.attrs->dims, (std::vector<std::int64_t>{6, 4}));
  EXPECT_TRUE(reshape.attrs->names.empty());
  EXPECT_EQ(reshape.attrs->names.capacity(), 0u) << "unnamed sizes keep no room for names";

  const ir::Graph narrowed = traceFunction(x, [](const Inputs& in) { return narrow(in["x"], 2, 1, 2); });
  const ir::Op& narrow = narrowed.ops.back();
  EXPECT_EQ(narrow.attrs->count, 2);
  EXPECT_EQ(narrow.attrs->names.capacity(), 0u);
  EXPECT_EQ(narrowed.tensor(narrow.out).names.capacity(), 0u);
}

}  // namespace
