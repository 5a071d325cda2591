// The spec-facing types that nndna.hpp keeps light for the compiler's sake (ForwardFn,
// SpecOptimizer, the out-of-line InputDecl/DimDecl/LearningRate) behave like the std types
// they replaced: what a spec can write still means the same.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "nndna/trace.hpp"
#include "trace/tensor_access.hpp"

namespace {

using namespace nndna;

// A "tensor" that only says which forward made it (nothing is traced here).
Tensor tagged(std::uint32_t id) { return detail::TensorAccess::make(id, 0); }
std::uint32_t idOf(const Tensor& t) { return detail::TensorAccess::id(t); }

struct Net : Module {
  int calls = 0;
};

// Each forward returns a distinct "tensor" handle, so a test can tell which one ran.
Tensor first(Net& net, const Inputs&) {
  ++net.calls;
  return tagged(1);
}
Tensor second(Net& net, const Inputs&) {
  ++net.calls;
  return tagged(2);
}
Tensor overBase(Module&, const Inputs&) { return tagged(3); }

TEST(ForwardFn, EmptyByDefaultFromBracesAndFromNullptr) {
  const ForwardFn<Net> a;
  const ForwardFn<Net> b = {};
  const ForwardFn<Net> c = nullptr;
  const ForwardFn<Net> d = static_cast<ForwardFn<Net>::Function>(nullptr);
  EXPECT_FALSE(a);
  EXPECT_FALSE(b);
  EXPECT_FALSE(c);
  EXPECT_FALSE(d);
}

TEST(ForwardFn, CallsAPlainFunctionWithTheModel) {
  Net net;
  const ForwardFn<Net> fn = first;
  ASSERT_TRUE(fn);
  EXPECT_EQ(idOf(fn(net, Inputs{})), 1u);
  EXPECT_EQ(net.calls, 1);
}

TEST(ForwardFn, CallsLambdasWithAndWithoutCaptures) {
  Net net;
  const ForwardFn<Net> plain = [](Net& m, const Inputs&) {
    ++m.calls;
    return tagged(4);
  };
  std::uint32_t handle = 5;
  auto owned = std::make_shared<int>(0);  // a capture with a destructor: the copy is owned
  const ForwardFn<Net> capturing = [handle, owned](Net& m, const Inputs&) {
    ++m.calls;
    ++*owned;
    return tagged(handle);
  };
  handle = 99;  // captured by value: the stored copy keeps 5
  EXPECT_EQ(idOf(plain(net, Inputs{})), 4u);
  EXPECT_EQ(idOf(capturing(net, Inputs{})), 5u);
  EXPECT_EQ(net.calls, 2);
  EXPECT_EQ(*owned, 1);
  EXPECT_EQ(owned.use_count(), 2);  // this test's pointer and the one inside `capturing`
}

TEST(ForwardFn, AcceptsAFunctionOverTheBaseModuleAndAStdFunction) {
  Net net;
  const ForwardFn<Net> base = overBase;
  const std::function<Tensor(Net&, const Inputs&)> stdFn = second;
  const ForwardFn<Net> wrapped = stdFn;
  EXPECT_EQ(idOf(base(net, Inputs{})), 3u);
  EXPECT_EQ(idOf(wrapped(net, Inputs{})), 2u);
}

TEST(ForwardFn, CopiesOwnTheirCallableAndMovesEmptyTheSource) {
  Net net;
  auto owned = std::make_shared<int>(0);
  ForwardFn<Net> original = [owned](Net&, const Inputs&) { return tagged(7); };
  {
    const ForwardFn<Net> copy = original;  // NOLINT(performance-unnecessary-copy-initialization)
    EXPECT_EQ(owned.use_count(), 3);
    EXPECT_EQ(idOf(copy(net, Inputs{})), 7u);
  }
  EXPECT_EQ(owned.use_count(), 2);  // the copy's callable was destroyed with it
  ForwardFn<Net> moved = std::move(original);
  EXPECT_FALSE(original);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  EXPECT_EQ(owned.use_count(), 2);
  EXPECT_EQ(idOf(moved(net, Inputs{})), 7u);

  // Assignment replaces (and destroys) the old callable.
  moved = first;
  EXPECT_EQ(owned.use_count(), 1);
  EXPECT_EQ(idOf(moved(net, Inputs{})), 1u);
  ForwardFn<Net> other = second;
  other = moved;
  EXPECT_EQ(idOf(other(net, Inputs{})), 1u);
}

TEST(ForwardFn, TheLibraryCallsItThroughTheBaseModule) {
  Net net;
  const ForwardFn<Net> fn = first;
  const detail::ForwardCallable& erased = fn;
  Module& base = net;
  EXPECT_EQ(idOf(erased(base, Inputs{})), 1u);
  EXPECT_EQ(net.calls, 1);
}

TEST(SpecOptimizer, HoldsWhicheverOptimizerWasGiven) {
  const SpecOptimizer byDefault;
  ASSERT_TRUE(std::holds_alternative<Adam>(byDefault.get()));
  EXPECT_DOUBLE_EQ(std::get<Adam>(byDefault.get()).lr.value, 1e-3);

  const SpecOptimizer adamW = AdamW{.lr = 3e-4, .weightDecay = 0.1};
  ASSERT_TRUE(std::holds_alternative<AdamW>(adamW.get()));
  EXPECT_DOUBLE_EQ(std::get<AdamW>(adamW.get()).lr.value, 3e-4);
  EXPECT_DOUBLE_EQ(std::get<AdamW>(adamW.get()).weightDecay, 0.1);

  const SpecOptimizer sgd = SGD{.lr = lr::multiStep(0.1, {10, 20}, 0.5), .momentum = 0.9};
  ASSERT_TRUE(std::holds_alternative<SGD>(sgd.get()));
  EXPECT_EQ(std::get<SGD>(sgd.get()).lr.milestones, (std::vector<std::int64_t>{10, 20}));

  const Optimizer variant = SGD{.lr = 0.5};
  const SpecOptimizer fromVariant = variant;
  EXPECT_DOUBLE_EQ(std::get<SGD>(fromVariant.get()).lr.value, 0.5);
}

TEST(SpecOptimizer, CopiesAndMovesKeepTheValue) {
  SpecOptimizer a = SGD{.lr = lr::multiStep(0.1, {5}, 0.5)};
  const SpecOptimizer b = a;  // NOLINT(performance-unnecessary-copy-initialization)
  SpecOptimizer c = std::move(a);
  EXPECT_EQ(std::get<SGD>(b.get()).lr.milestones, (std::vector<std::int64_t>{5}));
  EXPECT_EQ(std::get<SGD>(c.get()).lr.milestones, (std::vector<std::int64_t>{5}));
  c = AdamW{};
  EXPECT_TRUE(std::holds_alternative<AdamW>(c.get()));
  c = b;
  EXPECT_TRUE(std::holds_alternative<SGD>(c.get()));
  const Optimizer& read = c;  // reads as an Optimizer
  EXPECT_TRUE(std::holds_alternative<SGD>(read));
}

TEST(SpecDecls, InputsAndDimsFromWhatASpecWrites) {
  const std::vector<InputDecl> inputs = {{"x", {256, 32}}, {"ids", {4, 8}, i32}, {"s", {}}};
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_EQ(inputs[0].name, "x");
  EXPECT_EQ(inputs[0].shape, (Shape{256, 32}));
  EXPECT_EQ(inputs[0].dtype, DType::f32);
  EXPECT_EQ(inputs[1].dtype, DType::i32);
  EXPECT_TRUE(inputs[2].shape.empty());
  const Shape shape{2, 3};
  const std::string name = "y";
  const InputDecl fromValues(name, shape);
  EXPECT_EQ(fromValues.name, "y");
  EXPECT_EQ(fromValues.shape, shape);

  const std::vector<DimDecl> dims = {{256, "B", "batch"}, {32, "D", "width", "#ff0000"}, {8, "T"}};
  EXPECT_EQ(dims[0].size, 256);
  EXPECT_EQ(dims[0].desc, "batch");
  EXPECT_EQ(dims[1].color, "#ff0000");
  EXPECT_EQ(dims[2].name, "T");
  EXPECT_TRUE(dims[2].desc.empty());
}

// A spec as NNDNA_SPEC builds it: the erased spec carries every field, and its forward
// functions call the typed ones on the built model.
Spec<Net> specBody() {
  return {.label = "L",
          .description = "D",
          .loss = first,
          .inputs = {{"x", {2, 3}}},
          .optimizer = SGD{.lr = 0.25},
          .predict = [](Net&, const Inputs&) { return tagged(8); },
          .predictInputs = {{"z", {1}}},
          .dims = {{2, "B"}}};
}

// A Spec's input and dim lists (SpecInputs, SpecDims) take what a std::vector would: braces,
// empty braces, a vector, dims as Dim values; copies and moves keep every entry.
TEST(SpecFields, InputAndDimListsTakeBracesVectorsAndDims) {
  const std::vector<InputDecl> vector = {{"a", {1}}, {"b", {2, 3}, i32}};
  constexpr Dim kTime{"T", 8};
  const Spec<Net> spec{.inputs = vector, .predictInputs = {}, .dims = {{4, "B", "batch"}, kTime}};
  ASSERT_EQ(spec.inputs.items().size(), 2u);
  EXPECT_EQ(spec.inputs.items()[1].name, "b");
  EXPECT_EQ(spec.inputs.items()[1].shape, (Shape{2, 3}));
  EXPECT_EQ(spec.inputs.items()[1].dtype, DType::i32);
  EXPECT_TRUE(spec.predictInputs.items().empty());
  ASSERT_EQ(spec.dims.items().size(), 2u);
  EXPECT_EQ(spec.dims.items()[0].desc, "batch");
  EXPECT_EQ(spec.dims.items()[1].name, "T");
  EXPECT_EQ(spec.dims.items()[1].size, 8);

  SpecInputs copy = spec.inputs;
  SpecInputs moved = std::move(copy);
  ASSERT_EQ(moved.items().size(), 2u);
  EXPECT_EQ(moved.items()[0].name, "a");
  moved = SpecInputs{{"c", {5}}};
  ASSERT_EQ(moved.items().size(), 1u);
  EXPECT_EQ(moved.items()[0].shape, (Shape{5}));
  SpecDims dims = {kTime};
  dims = spec.dims;
  EXPECT_EQ(dims.items().size(), 2u);
}

TEST(SpecRegistration, BuildSpecErasesEveryField) {
  detail::ModelSlot slot;
  detail::ErasedSpec spec;
  detail::buildSpec<Net, &specBody>(slot, spec);
  const std::unique_ptr<Module>& model = slot.model;
  ASSERT_NE(dynamic_cast<Net*>(model.get()), nullptr);
  EXPECT_EQ(spec.label, "L");
  EXPECT_EQ(spec.description, "D");
  ASSERT_EQ(spec.inputs.size(), 1u);
  EXPECT_EQ(spec.inputs[0].shape, (Shape{2, 3}));
  EXPECT_DOUBLE_EQ(std::get<SGD>(spec.optimizer).lr.value, 0.25);
  ASSERT_EQ(spec.predictInputs.size(), 1u);
  EXPECT_EQ(spec.predictInputs[0].name, "z");
  ASSERT_EQ(spec.dims.size(), 1u);
  EXPECT_EQ(spec.dims[0].name, "B");
  ASSERT_TRUE(spec.loss);
  ASSERT_TRUE(spec.predict);
  EXPECT_EQ(idOf(spec.loss(*model, Inputs{})), 1u);
  EXPECT_EQ(static_cast<Net&>(*model).calls, 1);
  EXPECT_EQ(idOf(spec.predict(*model, Inputs{})), 8u);
}

Spec<Net> lossOnly() { return {.loss = first, .predict = {}}; }

TEST(SpecRegistration, AnEmptyPredictStaysEmpty) {
  detail::ModelSlot slot;
  detail::ErasedSpec spec;
  detail::buildSpec<Net, &lossOnly>(slot, spec);
  EXPECT_TRUE(spec.loss);
  EXPECT_FALSE(spec.predict);
  EXPECT_TRUE(std::holds_alternative<Adam>(spec.optimizer));  // the default
}

}  // namespace
