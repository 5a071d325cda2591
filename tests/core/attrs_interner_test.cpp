// Shared attribute blocks: copies of a box share until one is edited, and the tracer, the IR
// reader and autodiff hand ops with identical attributes one block (ir::OpAttrsInterner).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "ir/attrs_interner.hpp"
#include "nndna/ir.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "nndna/training.hpp"

using namespace nndna;

namespace {

ir::OpAttrs withScalar(double v) {
  ir::OpAttrs a;
  a.scalar = v;
  a.scalarOperand = true;
  return a;
}

TEST(OpAttrsBox, CopiesShareUntilOneIsEdited) {
  ir::OpAttrsBox a = withScalar(0.5);
  ir::OpAttrsBox b = a;
  EXPECT_TRUE(b.shares(a));
  EXPECT_EQ(&*a, &*b);

  b.edit().scalar = 0.25;  // b is copied first: a keeps its value
  EXPECT_FALSE(b.shares(a));
  EXPECT_EQ(a->scalar, 0.5);
  EXPECT_EQ(b->scalar, 0.25);

  const ir::OpAttrs* own = &*b;
  b.edit().axis = 1;  // b's block is its own now: edited in place
  EXPECT_EQ(&*b, own);

  ir::OpAttrsBox c;
  c = a;  // assigned: shares
  EXPECT_TRUE(c.shares(a));
  c = c;  // NOLINT: self-assignment keeps the block
  EXPECT_TRUE(c.shares(a));
  ir::OpAttrsBox moved = std::move(c);
  EXPECT_TRUE(moved.shares(a));
  EXPECT_FALSE(c.any());  // NOLINT(bugprone-use-after-move): a moved-from box holds none

  // A shared block edited back to its defaults: the edit made a block of its own, which then
  // holds defaults and can be let go of; the other box keeps its value.
  ir::OpAttrsBox d = a;
  d.edit() = ir::OpAttrs{};
  EXPECT_EQ(a->scalar, 0.5);
  d.dropIfDefaults();
  EXPECT_FALSE(d.any());
  EXPECT_TRUE(a.any());

  ir::OpAttrsBox none;
  EXPECT_FALSE(none.shares(ir::OpAttrsBox{})) << "two boxes without attributes share nothing";
}

// Graphs are copied on several threads of `nndna serve`: the count of a block's boxes must stay
// exact, or ASan reports the block freed twice or leaked.
TEST(OpAttrsBox, BoxesCopiedOnManyThreadsFreeTheirBlockOnce) {
  std::vector<ir::Op> ops(64);
  ops[0].attrs = withScalar(0.5);
  for (ir::Op& op : ops) op.attrs = ops[0].attrs;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&ops] {
      for (int round = 0; round < 200; ++round) {
        std::vector<ir::Op> copy = ops;
        copy[static_cast<std::size_t>(round) % copy.size()].attrs.edit().axis = round;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const ir::Op& op : ops) {
    EXPECT_TRUE(op.attrs.shares(ops[0].attrs));
    EXPECT_EQ(op.attrs->axis, 0);
  }
}

TEST(OpAttrsInterner, IdenticalAttributesShareOneBlock) {
  ir::OpAttrsInterner interner;
  const ir::OpAttrsBox half = interner.intern(withScalar(0.5));
  EXPECT_TRUE(interner.intern(withScalar(0.5)).shares(half));
  EXPECT_FALSE(interner.intern(withScalar(0.25)).shares(half));

  // Zeros of either sign are equal but not identical: `mul(x, -0.0)` keeps its sign.
  const ir::OpAttrsBox zero = interner.intern(withScalar(0.0));
  const ir::OpAttrsBox negativeZero = interner.intern(withScalar(-0.0));
  EXPECT_FALSE(negativeZero.shares(zero));
  EXPECT_TRUE(std::signbit(negativeZero->scalar));
  EXPECT_TRUE(interner.intern(withScalar(-0.0)).shares(negativeZero));

  // NaN is never identical to anything: kept, not shared.
  const ir::OpAttrsBox nan = interner.intern(withScalar(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_TRUE(std::isnan(nan->scalar));
  EXPECT_FALSE(interner.intern(withScalar(std::numeric_limits<double>::quiet_NaN())).shares(nan));

  // Every field counts: names, dims and the rest.
  ir::OpAttrs named = withScalar(0.5);
  named.names = {"H"};
  EXPECT_FALSE(interner.intern(named).shares(half));
  EXPECT_TRUE(interner.intern(named).shares(interner.intern(named)));
  ir::OpAttrs dims;
  dims.dims = {2, 3};
  ir::OpAttrs otherDims;
  otherDims.dims = {3, 2};
  EXPECT_FALSE(interner.intern(dims).shares(interner.intern(otherDims)));

  // Defaults hold no block, whether given as values or as a box edited back to them.
  EXPECT_FALSE(interner.intern(ir::OpAttrs{}).any());
  ir::OpAttrsBox reset;
  reset.edit().count = 3;
  reset.edit().count = 0;
  EXPECT_FALSE(interner.intern(std::move(reset)).any());

  // A box handed in is kept as it is when nothing identical was seen: no copy.
  ir::OpAttrsBox fresh = withScalar(7.0);
  const ir::OpAttrs* block = &*fresh;
  EXPECT_EQ(&*interner.intern(std::move(fresh)), block);
}

TEST(OpAttrsInterner, RemembersABoundedNumberOfSets) {
  ir::OpAttrsInterner interner;
  for (std::size_t i = 0; i < ir::OpAttrsInterner::kCapacity + 10; ++i) {
    interner.intern(withScalar(static_cast<double>(i) + 1.0));
  }
  EXPECT_EQ(interner.size(), ir::OpAttrsInterner::kCapacity);
  // Past the bound, attributes are still kept right, only not shared.
  const double late = static_cast<double>(ir::OpAttrsInterner::kCapacity) + 5.0;
  const ir::OpAttrsBox a = interner.intern(withScalar(late));
  const ir::OpAttrsBox b = interner.intern(withScalar(late));
  EXPECT_EQ(a->scalar, late);
  EXPECT_FALSE(a.shares(b));
  EXPECT_TRUE(interner.intern(withScalar(1.0)).shares(interner.intern(withScalar(1.0))))
      << "the sets seen first are still shared";
}

// Every two ops of `phase` with identical attributes hold one block.
void expectIdenticalAttributesShared(const ir::Graph& graph, ir::Phase phase, const char* what) {
  std::vector<const ir::OpAttrsBox*> distinct;
  std::size_t held = 0;
  for (const ir::Op& op : graph.ops) {
    if (op.phase != phase || !op.attrs.any()) continue;
    ++held;
    const ir::OpAttrsBox* same = nullptr;
    for (const ir::OpAttrsBox* d : distinct) {
      if (ir::identicalAttrs(**d, *op.attrs)) same = d;
    }
    if (same == nullptr) {
      distinct.push_back(&op.attrs);
    } else {
      EXPECT_TRUE(op.attrs.shares(*same)) << what << ": " << ir::opKindName(op.kind);
    }
  }
  EXPECT_LT(distinct.size(), held) << what << ": some attributes repeat in a 3-layer transformer";
}

TEST(OpAttrsInterner, TracerReaderAndAutodiffShareRepeatedAttributes) {
  const ir::TracedModel traced = traceModel(loadSpec(*findSpec("char_transformer")));
  expectIdenticalAttributesShared(traced.train, ir::Phase::forward, "traced");
  const ir::TracedModel read = ir::tracedModelFromJson(ir::toJson(traced));
  expectIdenticalAttributesShared(read.train, ir::Phase::forward, "read");
  EXPECT_EQ(ir::toJson(read), ir::toJson(traced)) << "sharing changes no value";

  const ir::Graph step = training::buildTrainingStep(read.train, read.spec.optimizer);
  expectIdenticalAttributesShared(step, ir::Phase::backward, "autodiff");
  expectIdenticalAttributesShared(step, ir::Phase::forward, "the step's copy of the forward");
}

}  // namespace
