// The op table is the single source of truth: every kind has every rule docs/ops.md lists, the
// per-kind tables agree with the table's flags, and real graphs exercise every kind's shape
// rule, adjoint, evaluator kernel and JSON form.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "diagram/metrics.hpp"
#include "grad/rules.hpp"
#include "ir/shape_rules.hpp"
#include "nndna/eval.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "nndna/training.hpp"

namespace nndna {
namespace {

using ir::OpKind;

std::vector<OpKind> allKinds() {
  std::vector<OpKind> kinds;
  for (std::size_t i = 0; i < ir::kOpKindCount; ++i) kinds.push_back(ir::opKindAt(i));
  return kinds;
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(OpTable, NamesAreUniqueAndReadBack) {
  std::set<std::string_view> names;
  for (OpKind kind : allKinds()) {
    const std::string_view name = ir::opKindName(kind);
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(ir::opKindFromName(name), kind) << name;
  }
  EXPECT_EQ(names.size(), 118u);  // the rows of NNDNA_OP_KINDS
  EXPECT_FALSE(ir::opKindFromName("teleport").has_value());
}

TEST(OpTable, RowsAreConsistent) {
  for (OpKind kind : allKinds()) {
    const ir::OpInfo& info = ir::opInfo(kind);
    SCOPED_TRACE(info.name);
    EXPECT_LE(info.minInputs, info.maxInputs);
    if (ir::isLeafKind(kind)) {
      EXPECT_EQ(info.maxInputs, 0);
      EXPECT_EQ(info.attrs, ir::attr::name);
      EXPECT_EQ(info.grad, ir::Grad::blocked);
    }
    // Nothing made after the forward has an adjoint (no second-order autodiff).
    if (ir::isInternalKind(kind)) {
      EXPECT_EQ(info.grad, ir::Grad::unsupported);
    }
    if (ir::isStochasticKind(kind)) {
      EXPECT_TRUE(ir::usesAttr(kind, ir::attr::seed));
    }
    if (ir::isElementwiseBinary(kind)) {
      EXPECT_TRUE(ir::usesAttr(kind, ir::attr::number));
    }
    // Elementwise unary kinds and views read one input.
    if (ir::isElementwiseUnary(kind) || ir::isViewKind(kind)) {
      EXPECT_EQ(info.maxInputs, 1);
    }
  }
}

// The checklist of docs/ops.md, for every kind.
TEST(OpTable, EveryKindHasEveryRule) {
  std::size_t adjoints = 0, flopRules = 0;
  for (OpKind kind : allKinds()) {
    SCOPED_TRACE(ir::opKindName(kind));
    // One shape and dtype rule (leaves: their type is declared).
    EXPECT_EQ(ir::hasShapeRule(kind), !ir::isLeafKind(kind));
    // One adjoint exactly where the table says gradients flow through it.
    EXPECT_EQ(grad::adjointFor(kind) != nullptr, ir::isDifferentiable(kind));
    adjoints += ir::isDifferentiable(kind);
    // One evaluator kernel; views evaluated as views.
    EXPECT_TRUE(eval::isEvaluable(kind));
    EXPECT_EQ(eval::isEvaluatedAsView(kind), ir::isViewKind(kind));
    // Kernels from the flags: leaves and views launch none.
    EXPECT_EQ(training::isKernelKind(kind), !ir::isLeafKind(kind) && !ir::isViewKind(kind));
    flopRules += diagram::detail::countsFlops(kind);
  }
  EXPECT_EQ(adjoints, 63u);
  // FLOPs count matrix multiplies and convolutions, forward and backward (the seed's rule).
  EXPECT_EQ(flopRules, 5u);
  for (OpKind kind : {OpKind::matmul, OpKind::conv2d, OpKind::conv_transpose2d,
                      OpKind::conv2d_input_grad, OpKind::conv2d_weight_grad}) {
    EXPECT_TRUE(diagram::detail::countsFlops(kind)) << ir::opKindName(kind);
  }
  // One definition of a view: the four layouts and the two identities.
  std::set<OpKind> views;
  for (OpKind kind : allKinds()) {
    if (ir::isViewKind(kind)) views.insert(kind);
  }
  EXPECT_EQ(views, (std::set<OpKind>{OpKind::reshape, OpKind::permute, OpKind::split_heads,
                                     OpKind::broadcast_to, OpKind::stop_gradient, OpKind::capture}));
}

// Every internal kind is documented where docs/ops.md says (docs/ir.md), and the checklist names
// the places a new kind touches.
TEST(OpTable, DocsListEveryInternalKindAndTheChecklist) {
  const std::filesystem::path root = NNDNA_SOURCE_DIR;
  const std::string ir = readFile(root / "docs/ir.md");
  for (OpKind kind : allKinds()) {
    if (!ir::isInternalKind(kind)) continue;
    EXPECT_NE(ir.find("`" + std::string(ir::opKindName(kind)) + "("), std::string::npos)
        << ir::opKindName(kind) << " is not documented in docs/ir.md";
  }
  const std::string ops = readFile(root / "docs/ops.md");
  for (std::string_view place : {"include/nndna/op_kind.hpp", "src/ir/shape_rules.cpp",
                                 "src/grad/adjoints.cpp", "src/eval/evaluator.cpp",
                                 "src/diagram/metrics.cpp", "tests/core/specs/all_ops.cpp"}) {
    EXPECT_NE(ops.find(place), std::string::npos) << place << " is missing from docs/ops.md";
  }
}

// The kinds of a graph.
void collect(const ir::Graph& g, std::set<OpKind>& kinds) {
  for (const ir::Op& op : g.ops) kinds.insert(op.kind);
}

// A graph's JSON form reads back (every op re-checked by its shape rule) to the same document.
void expectRoundTrip(const ir::TracedModel& model) {
  const std::string text = ir::toJson(model);
  EXPECT_EQ(ir::toJson(ir::tracedModelFromJson(text)), text);
}

// Evaluates a training step once from fresh parameters, zeros for the index inputs.
void evaluateStep(const ir::Graph& step, const Optimizer& optimizer) {
  eval::Leaves leaves = eval::initialLeaves(step);
  for (const ir::NamedTensor& input : step.inputs) {
    const ir::TensorInfo& t = step.tensor(input.tensor);
    leaves.inputs[input.name] = eval::Value::filled(t.shape, t.dtype == DType::f32 ? 0.25 : 0.0, t.dtype);
  }
  for (const auto& [name, value] : training::stepScalars(optimizer, 0)) {
    leaves.inputs[name] = eval::Value::scalar(value);
  }
  const eval::Results results = eval::evaluate(step, leaves);
  EXPECT_TRUE(std::isfinite(results.at(step.outputs[0]).item()));
}

TEST(OpTable, TheAllOpsSpecCoversEveryKind) {
  const LoadedSpec spec = loadSpec(*findSpec("all_ops"));
  ir::TracedModel model = traceModel(spec);
  expectRoundTrip(model);
  std::set<OpKind> kinds;
  collect(model.train, kinds);
  collect(model.infer, kinds);
  for (const Optimizer& optimizer : {Optimizer(Adam{}), Optimizer(SGD{.lr = 0.1, .momentum = 0.9})}) {
    ir::TracedModel step = model;
    step.train = training::buildTrainingStep(model.train, optimizer);
    step.spec.optimizer = optimizer;
    expectRoundTrip(step);
    collect(step.train, kinds);
    evaluateStep(step.train, optimizer);
  }
  for (OpKind kind : allKinds()) EXPECT_TRUE(kinds.contains(kind)) << ir::opKindName(kind) << " is never made";
  EXPECT_EQ(kinds.size(), ir::kOpKindCount);
}

}  // namespace
}  // namespace nndna
