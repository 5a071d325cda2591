// Shared attribute blocks: copies of a box share until one is edited, and the IR reader and
// autodiff hand a loop's ops with identical attributes one block (ir::OpAttrsInterner).
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
  const ir::OpAttrsBox& self = c;
  c = self;  // self-assignment keeps the block
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

// Graphs are values a program may copy on several threads: the count of a block's boxes must
// stay exact, or ASan reports the block freed twice or leaked (a lost count shows only at times;
// memory orders would need ThreadSanitizer).
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

using ir::OpKind;

TEST(OpAttrsInterner, IdenticalAttributesOfAKindShareOneBlock) {
  ir::OpAttrsInterner interner;
  const ir::OpAttrsBox half = interner.intern(OpKind::mul, withScalar(0.5));
  EXPECT_TRUE(interner.intern(OpKind::mul, withScalar(0.5)).shares(half));
  EXPECT_FALSE(interner.intern(OpKind::mul, withScalar(0.25)).shares(half));
  EXPECT_FALSE(interner.intern(OpKind::add, withScalar(0.5)).shares(half)) << "kinds are kept apart";

  // Zeros of either sign are equal but not identical: `mul(x, -0.0)` keeps its sign.
  const ir::OpAttrsBox zero = interner.intern(OpKind::sub, withScalar(0.0));
  const ir::OpAttrsBox negativeZero = interner.intern(OpKind::sub, withScalar(-0.0));
  EXPECT_FALSE(negativeZero.shares(zero));
  EXPECT_TRUE(std::signbit(negativeZero->scalar));
  EXPECT_TRUE(interner.intern(OpKind::sub, withScalar(-0.0)).shares(negativeZero));

  // NaN is never identical to anything: kept, not shared.
  const double notANumber = std::numeric_limits<double>::quiet_NaN();
  const ir::OpAttrsBox nan = interner.intern(OpKind::div, withScalar(notANumber));
  EXPECT_TRUE(std::isnan(nan->scalar));
  EXPECT_FALSE(interner.intern(OpKind::div, withScalar(notANumber)).shares(nan));

  // Every field counts: names, dims and the rest.
  ir::OpAttrs named;
  named.count = 4;
  const ir::OpAttrsBox plain = interner.intern(OpKind::split_heads, named);
  named.names = {"H"};
  const ir::OpAttrsBox withName = interner.intern(OpKind::split_heads, named);
  EXPECT_FALSE(withName.shares(plain));
  EXPECT_TRUE(interner.intern(OpKind::split_heads, named).shares(withName));
  ir::OpAttrs dims;
  dims.dims = {2, 3};
  ir::OpAttrs otherDims;
  otherDims.dims = {3, 2};
  const ir::OpAttrsBox reshape = interner.intern(OpKind::reshape, dims);
  EXPECT_FALSE(interner.intern(OpKind::reshape, otherDims).shares(reshape));

  // Defaults hold no block, whether given as values or as a box edited back to them.
  EXPECT_FALSE(interner.intern(OpKind::mul, ir::OpAttrs{}).any());
  ir::OpAttrsBox reset;
  reset.edit().count = 3;
  reset.edit().count = 0;
  EXPECT_FALSE(interner.intern(OpKind::narrow, std::move(reset)).any());

  // A box handed in is kept as it is when nothing identical was seen: no copy.
  ir::OpAttrsBox fresh = withScalar(7.0);
  const ir::OpAttrs* block = &*fresh;
  EXPECT_EQ(&*interner.intern(OpKind::mul, std::move(fresh)), block);
}

TEST(OpAttrsInterner, RemembersTheLastFewSetsOfEachKind) {
  ir::OpAttrsInterner interner;
  constexpr std::size_t n = ir::OpAttrsInterner::kPerKind;
  std::vector<ir::OpAttrsBox> first;
  auto mul = [&interner](std::size_t i) {
    return interner.intern(OpKind::mul, withScalar(static_cast<double>(i) + 1.0));
  };
  for (std::size_t i = 0; i <= n; ++i) first.push_back(mul(i));
  // The first set was the oldest of n + 1: forgotten, so a repeat of it is kept but not shared.
  const ir::OpAttrsBox again = mul(0);
  EXPECT_EQ(again->scalar, 1.0);
  EXPECT_FALSE(again.shares(first[0]));
  // The repeat took the place of the second set; the last n - 1 are still shared.
  for (std::size_t i = 2; i <= n; ++i) {
    EXPECT_TRUE(mul(i).shares(first[i])) << i;
  }
  // Another kind's sets take none of these places.
  for (std::size_t i = 0; i < 3 * n; ++i) {
    interner.intern(OpKind::add, withScalar(static_cast<double>(i) + 100.0));
  }
  EXPECT_TRUE(mul(n).shares(first[n]));
}

// A loop's body repeats its attributes: every op of `phase` with attributes shares its block with
// the first op of its kind that had the same ones.
void expectLoopAttributesShared(const ir::Graph& graph, ir::Phase phase, const char* what) {
  std::vector<const ir::Op*> distinct;
  std::size_t held = 0;
  for (const ir::Op& op : graph.ops) {
    if (op.phase != phase || !op.attrs.any()) continue;
    ++held;
    const ir::Op* same = nullptr;
    for (const ir::Op* d : distinct) {
      if (d->kind == op.kind && ir::identicalAttrs(*d->attrs, *op.attrs)) same = d;
    }
    if (same == nullptr) {
      distinct.push_back(&op);
    } else {
      EXPECT_TRUE(op.attrs.shares(same->attrs)) << what << ": " << ir::opKindName(op.kind);
    }
  }
  EXPECT_GT(distinct.size(), 0u) << what << ": ops with attributes";
  EXPECT_GE(held, 4 * distinct.size()) << what << ": twelve iterations repeat their attributes";
}

// The IR reader and autodiff share; the tracer does not (a spec program's graph is written out and
// gone, and comparing each op's attributes with recent ones made tracing 7-23% slower).
TEST(OpAttrsInterner, ReaderAndAutodiffShareALoopsAttributes) {
  const ir::TracedModel traced = traceModel(loadSpec(*findSpec("attrs_loop")));
  const ir::TracedModel read = ir::tracedModelFromJson(ir::toJson(traced));
  expectLoopAttributesShared(read.train, ir::Phase::forward, "read");
  EXPECT_EQ(ir::toJson(read), ir::toJson(traced)) << "sharing changes no value";

  const ir::Graph step = training::buildTrainingStep(read.train, read.spec.optimizer);
  expectLoopAttributesShared(step, ir::Phase::backward, "autodiff");
  expectLoopAttributesShared(step, ir::Phase::forward, "the step's copy of the forward");
}

// Editing one of a loop's shared ops changes that op only.
TEST(OpAttrsInterner, EditingASharedOpChangesItAlone) {
  ir::TracedModel read =
      ir::tracedModelFromJson(ir::toJson(traceModel(loadSpec(*findSpec("attrs_loop")))));
  std::vector<std::size_t> halves;  // the twelve mul(h, 0.5)s
  for (std::size_t i = 0; i < read.train.ops.size(); ++i) {
    const ir::Op& op = read.train.ops[i];
    if (op.kind == OpKind::mul && op.attrs->scalarOperand) halves.push_back(i);
  }
  ASSERT_EQ(halves.size(), 12u);
  ASSERT_TRUE(read.train.ops[halves[5]].attrs.shares(read.train.ops[halves[0]].attrs));
  const std::string before = ir::toJson(read);

  read.train.ops[halves[5]].attrs.edit().scalar = 0.25;
  for (std::size_t k = 0; k < halves.size(); ++k) {
    EXPECT_EQ(read.train.ops[halves[k]].attrs->scalar, k == 5 ? 0.25 : 0.5) << k;
  }
  EXPECT_FALSE(read.train.ops[halves[5]].attrs.shares(read.train.ops[halves[0]].attrs));
  EXPECT_TRUE(read.train.ops[halves[6]].attrs.shares(read.train.ops[halves[0]].attrs));
  EXPECT_NE(ir::toJson(read), before);

  // Set back, the document is the same again: the edit changed nothing else.
  read.train.ops[halves[5]].attrs.edit().scalar = 0.5;
  EXPECT_EQ(ir::toJson(read), before);
}

// Attributes not yet in a block (autodiff's way in): shared, none for defaults, NaN kept apart.
TEST(OpAttrsInterner, AttributesNotYetInABlockAreSharedLikeBoxes) {
  ir::OpAttrsInterner interner;
  const ir::OpAttrsBox first = interner.intern(OpKind::mul, withScalar(0.5));
  ASSERT_TRUE(first.any());
  EXPECT_TRUE(interner.intern(OpKind::mul, withScalar(0.5)).shares(first));
  EXPECT_FALSE(interner.intern(OpKind::mul, ir::OpAttrs{}).any());
  const ir::OpAttrsBox nan = interner.intern(OpKind::mul, withScalar(std::nan("")));
  EXPECT_TRUE(std::isnan(nan->scalar));
  // A NaN set is not remembered, so it takes no place from the sets a loop repeats.
  for (int i = 0; i < 8; ++i) interner.intern(OpKind::mul, withScalar(std::nan("")));
  EXPECT_TRUE(interner.intern(OpKind::mul, withScalar(0.5)).shares(first));
}

}  // namespace
