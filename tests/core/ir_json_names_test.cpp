// Axis names in the IR's JSON form: written only when set, read back exactly, validated against
// each op's shape rule; and carried by autodiff into the training step.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "nndna/training.hpp"
#include "support/named_ir.hpp"

namespace nndna {
namespace {

using ir::OpKind;
using nlohmann::json;
using test::propagateNames;

std::size_t firstOp(const ir::Graph& g, OpKind kind) {
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    if (g.ops[i].kind == kind) return i;
  }
  ADD_FAILURE() << "no " << ir::opKindName(kind);
  return 0;
}

// char_transformer's training graph as a spec with named dims would trace it: the data inputs
// are [B, T], the embedding tables [V, D] (or [T, D]) and the heads are named H.
const ir::TracedModel& named() {
  static const ir::TracedModel model = [] {
    ir::TracedModel m = traceModel(loadSpec(*findSpec("char_transformer")));
    ir::Graph& g = m.train;
    for (const ir::NamedTensor& in : g.inputs) g.tensors[static_cast<std::size_t>(in.tensor)].names = {"B", "T"};
    for (ir::Op& op : g.ops) {
      if (op.kind == OpKind::embedding) {
        ir::TensorInfo& table = g.tensors[static_cast<std::size_t>(op.inputs[0])];
        if (g.producer(op.inputs[0]).kind == OpKind::param_input) table.names = {"V", "D"};
      }
      if (op.kind == OpKind::split_heads) op.attrs.edit().names = {"H"};
    }
    propagateNames(g);
    return m;
  }();
  return model;
}

TEST(IrJsonNames, RoundTripKeepsEveryName) {
  const ir::TracedModel& model = named();
  const std::string once = ir::toJson(model);
  const ir::TracedModel back = ir::tracedModelFromJson(once);
  EXPECT_EQ(ir::toJson(back), once);
  ASSERT_EQ(back.train.tensors.size(), model.train.tensors.size());
  std::size_t namedTensors = 0;
  for (std::size_t t = 0; t < model.train.tensors.size(); ++t) {
    EXPECT_EQ(back.train.tensors[t].names, model.train.tensors[t].names) << "tensor " << t;
    namedTensors += model.train.tensors[t].names.empty() ? 0 : 1;
  }
  EXPECT_GT(namedTensors, model.train.tensors.size() / 2);
  // The first split_heads: [B, T, D] (a linear layer's output, whose width the unnamed weight
  // leaves unknown) to [B, H, T, ""]; its attribute names the heads.
  const std::size_t split = firstOp(back.train, OpKind::split_heads);
  const ir::Op& op = back.train.ops[split];
  EXPECT_EQ(op.attrs->names, (ir::DimNames{"H"}));
  EXPECT_EQ(back.train.tensor(op.out).names, (ir::DimNames{"B", "H", "T", ""}));
  const std::size_t embedding = firstOp(back.train, OpKind::embedding);
  EXPECT_EQ(back.train.tensor(back.train.ops[embedding].out).names, (ir::DimNames{"B", "T", "D"}));
}

TEST(IrJsonNames, EveryKindRoundTripsWithNames) {
  // all_ops (every kind) with every leaf axis named after its size: each rule computes names the
  // reader then checks, in the forward and in the training step autodiff appends.
  ir::TracedModel model = traceModel(loadSpec(*findSpec("all_ops")));
  test::nameBySize(model.train);
  const std::string once = ir::toJson(model);
  const ir::TracedModel back = ir::tracedModelFromJson(once);
  EXPECT_EQ(ir::toJson(back), once);
  // Every tensor with an axis has a name on one (there are no size-1-only tensors in all_ops).
  for (std::size_t t = 0; t < back.train.tensors.size(); ++t) {
    const ir::TensorInfo& info = back.train.tensors[t];
    EXPECT_TRUE(info.shape.empty() || !info.names.empty()) << "tensor " << t << " of " << ir::opKindName(back.train.producer(static_cast<ir::TensorId>(t)).kind);
  }
  const ir::Graph step = training::buildTrainingStep(back.train, back.spec.optimizer);
  ir::validateGraph(step, "step");
  const ir::Graph stepBack = ir::tracedModelFromJson(ir::toJson(ir::TracedModel{back.spec, step, false, {}})).train;
  ASSERT_EQ(stepBack.tensors.size(), step.tensors.size());
  for (std::size_t t = 0; t < step.tensors.size(); ++t) EXPECT_EQ(stepBack.tensors[t].names, step.tensors[t].names);
}

TEST(IrJsonNames, WrittenOnlyWhenSet) {
  const json doc = json::parse(ir::toJson(named()));
  const json& ops = doc["train"]["ops"];
  const json& tensors = doc["train"]["tensors"];
  const std::size_t split = firstOp(named().train, OpKind::split_heads);
  EXPECT_EQ(ops[split]["attrs"]["names"], json::array({"H"}));
  EXPECT_EQ(tensors[ops[split]["out"].get<std::size_t>()]["names"], json::array({"B", "H", "T", ""}));
  // A tensor nothing names has no "names" (the loss, rank 0), and an op without names no
  // attrs.names; specs without named dims write what they wrote before.
  EXPECT_FALSE(tensors[named().train.outputs[0]].contains("names"));
  const json& reshape = ops[firstOp(named().train, OpKind::reshape)]["attrs"];  // of plain ints
  EXPECT_TRUE(reshape.contains("dims"));
  EXPECT_FALSE(reshape.contains("names"));
  const json plain = json::parse(ir::toJson(traceModel(loadSpec(*findSpec("char_transformer")))));
  for (const json& t : plain["train"]["tensors"]) ASSERT_FALSE(t.contains("names"));
}

TEST(IrJsonNames, TheTrainingStepCarriesTheRulesNames) {
  const ir::TracedModel& model = named();
  const ir::Graph step = training::buildTrainingStep(model.train, model.spec.optimizer);
  ir::validateGraph(step, "step");  // every appended op's names are its rule's
  // The gradient of a named forward tensor is named like it (e.g. the relu/gelu grads of the
  // MLP, the softmax grad of the attention scores).
  std::size_t namedBackward = 0;
  for (const ir::Op& op : step.ops) {
    if (op.phase == ir::Phase::backward && !step.tensor(op.out).names.empty()) ++namedBackward;
  }
  EXPECT_GT(namedBackward, 10u);
  const std::size_t grad = firstOp(step, OpKind::softmax_grad);
  EXPECT_EQ(step.tensor(step.ops[grad].out).names, (ir::DimNames{"B", "H", "T", "T"}));
}

// The reader's error for `mutate` applied to the named document.
std::string readError(const std::function<void(json&)>& mutate) {
  json doc = json::parse(ir::toJson(named()));
  mutate(doc);
  try {
    ir::tracedModelFromJson(doc.dump());
  } catch (const ir::IrFormatError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted the document";
  return "";
}

TEST(IrJsonNames, ReaderRejectsBadNames) {
  const ir::Graph& g = named().train;
  const std::size_t split = firstOp(g, OpKind::split_heads);
  const auto out = static_cast<std::size_t>(g.ops[split].out);
  const std::string tensorPath = fmt::format("train.tensors[{}].names", out);  // [B, H, T, D/H] = [64, 6, 256, 32]
  EXPECT_EQ(readError([&](json& d) { d["train"]["tensors"][out]["names"][0] = "2B"; }),
            tensorPath + "[0]: '2B' is not an axis name (a dim's name or a product such as H·Dh or D/H)");
  EXPECT_EQ(readError([&](json& d) { d["train"]["tensors"][out]["names"][1] = std::string(65, 'H'); }),
            tensorPath + "[1]: an axis name has at most 64 bytes, got 65");
  EXPECT_EQ(readError([&](json& d) { d["train"]["tensors"][out]["names"] = {"B", "H"}; }),
            tensorPath + ": expected one name per axis of [64, 6, 256, 32] (4), got 2");
  EXPECT_EQ(readError([&](json& d) { d["train"]["tensors"][out]["names"] = 3; }), tensorPath + ": expected an array");
  // Declared names the rule does not give.
  EXPECT_EQ(readError([&](json& d) { d["train"]["tensors"][out]["names"] = {"B", "H", "T", "Dh"}; }),
            fmt::format("train.ops[{}]: split_heads: the output's axes are declared named [\"B\", \"H\", \"T\", "
                        "\"Dh\"], its shape rule names them [\"B\", \"H\", \"T\", \"\"]",
                        split));
  EXPECT_EQ(readError([&](json& d) { d["train"]["tensors"][out].erase("names"); }),
            fmt::format("train.ops[{}]: split_heads: the output's axes are declared named [], its shape rule "
                        "names them [\"B\", \"H\", \"T\", \"\"]",
                        split));
  // attrs.names: the count the kind takes, on a kind that takes them.
  EXPECT_EQ(readError([&](json& d) { d["train"]["ops"][split]["attrs"]["names"] = {"H", "K"}; }),
            fmt::format("train.ops[{}]: split_heads: names must be one per head count (count) (1), got 2", split));
  EXPECT_EQ(readError([&](json& d) { d["train"]["ops"][split]["attrs"]["names"] = {"H/"}; }),
            fmt::format("train.ops[{}].attrs.names[0]: 'H/' is not an axis name (a dim's name or a product "
                        "such as H·Dh or D/H)",
                        split));
  const std::size_t matmul = firstOp(g, OpKind::matmul);
  EXPECT_EQ(readError([&](json& d) { d["train"]["ops"][matmul]["attrs"]["names"] = {"B"}; }),
            fmt::format("train.ops[{}]: matmul: sets the attribute 'names', which matmul does not use", matmul));
  EXPECT_EQ(readError([&](json& d) { d["train"]["ops"][0]["attrs"]["names"] = {"B"}; }),
            "train.ops[0].attrs.names: param_input does not use it");
}

TEST(IrJsonNames, LeavesNamesAreDeclared) {
  // A leaf's names are checked for form and count only: a data input named [N, S] reads, and its
  // consumers' names must then follow from it.
  const ir::Graph& g = named().train;
  const auto input = static_cast<std::size_t>(g.inputs[0].tensor);
  ir::TracedModel renamed = named();
  renamed.train.tensors[input].names = {"N", "S"};
  propagateNames(renamed.train);
  const ir::TracedModel back = ir::tracedModelFromJson(ir::toJson(renamed));
  EXPECT_EQ(back.train.tensors[input].names, (ir::DimNames{"N", "S"}));
  // An all-"" list reads as no names.
  json doc = json::parse(ir::toJson(traceModel(loadSpec(*findSpec("char_transformer")))));
  doc["train"]["tensors"][input]["names"] = {"", ""};
  EXPECT_TRUE(ir::tracedModelFromJson(doc.dump()).train.tensors[input].names.empty());
}

}  // namespace
}  // namespace nndna
