// Modules: dotted parameter paths, layer shapes, weight-decay defaults, state, misuse errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <type_traits>

#include "nndna/trace.hpp"
#include "nndna/training.hpp"
#include "specs/model_errors.hpp"

namespace nndna {
namespace {

std::map<std::string, ParamDecl> paramsByName(const LoadedSpec& spec) {
  std::map<std::string, ParamDecl> out;
  for (const ParamDecl& p : spec.params) out[p.name] = p;
  return out;
}

TEST(Modules, EveryParameterHasADottedPath) {
  const LoadedSpec spec = loadSpec(*findSpec("modules"));
  std::vector<std::string> names;
  for (const ParamDecl& p : spec.params) names.push_back(p.name);
  const std::vector<std::string> expected = {
      "table", "gain", "no_decay",
      "layers.0.attn.q.weight", "layers.0.attn.q.bias", "layers.0.attn.k.weight",
      "layers.0.ln.weight", "layers.0.ln.bias", "layers.0.rms.weight",
      "layers.1.attn.q.weight", "layers.1.attn.q.bias", "layers.1.attn.k.weight",
      "layers.1.ln.weight", "layers.1.ln.bias", "layers.1.rms.weight",
      "layers.2.attn.q.weight", "layers.2.attn.q.bias", "layers.2.attn.k.weight",
      "layers.2.ln.weight", "layers.2.ln.bias", "layers.2.rms.weight",
      "layers.3.attn.q.weight", "layers.3.attn.q.bias", "layers.3.attn.k.weight",
      "layers.3.ln.weight", "layers.3.ln.bias", "layers.3.rms.weight",
      "emb.weight", "conv.weight", "conv.bias",
      "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var",
      "heads.0.weight", "heads.0.bias", "heads.1.weight", "heads.1.bias", "proj.weight",
      "mlp.0.weight", "mlp.0.bias", "mlp.1.weight", "mlp.1.bias", "mlp.2.weight", "mlp.2.bias",
      "widen.0.fc.weight", "widen.0.fc.bias", "widen.0.proj.weight",
      "widen.1.fc.weight", "widen.1.fc.bias"};
  EXPECT_EQ(names, expected);
}

TEST(Modules, AFactoryListBuildsChildrenOfDifferentShapes) {
  const auto p = paramsByName(loadSpec(*findSpec("modules")));
  EXPECT_EQ(p.at("mlp.0.weight").shape, (Shape{16, 8}));
  EXPECT_EQ(p.at("mlp.1.weight").shape, (Shape{8, 4}));
  EXPECT_EQ(p.at("mlp.2.weight").shape, (Shape{4, 2}));
  EXPECT_EQ(p.at("mlp.2.bias").shape, (Shape{2}));
  // The optional child exists only where the factory made it (the first block widens).
  EXPECT_EQ(p.at("widen.0.proj.weight").shape, (Shape{16, 32}));
  EXPECT_EQ(p.at("widen.1.fc.weight").shape, (Shape{32, 32}));
  EXPECT_FALSE(p.contains("widen.1.proj.weight"));
}

TEST(Modules, LayerShapesAndDecayDefaults) {
  const auto p = paramsByName(loadSpec(*findSpec("modules")));
  EXPECT_EQ(p.at("layers.2.attn.q.weight").shape, (Shape{16, 16}));  // Linear weight [in, out]
  EXPECT_EQ(p.at("layers.2.attn.q.bias").shape, (Shape{16}));
  EXPECT_EQ(p.at("emb.weight").shape, (Shape{10, 16}));
  EXPECT_EQ(p.at("conv.weight").shape, (Shape{6, 1, 3, 5}));  // [outC, inC/groups, kH, kW]
  EXPECT_EQ(p.at("heads.1.weight").shape, (Shape{16, 4}));
  EXPECT_EQ(p.at("proj.weight").shape, (Shape{16, 16}));
  // Decay: matrices yes, vectors and norms no, explicit flags win.
  EXPECT_TRUE(p.at("table").decay);
  EXPECT_FALSE(p.at("gain").decay);
  EXPECT_FALSE(p.at("no_decay").decay);
  EXPECT_TRUE(p.at("layers.0.attn.q.weight").decay);
  EXPECT_FALSE(p.at("layers.0.attn.q.bias").decay);
  EXPECT_FALSE(p.at("layers.0.ln.weight").decay);
  EXPECT_TRUE(p.at("conv.weight").decay);
  EXPECT_TRUE(p.at("emb.weight").decay);
  EXPECT_FALSE(p.at("bn.weight").decay);
  EXPECT_TRUE(p.at("bn.running_mean").isState);
  EXPECT_FALSE(p.at("bn.weight").isState);
  EXPECT_EQ(p.at("layers.0.ln.weight").init.kind, Init::Kind::ones);
}

TEST(Modules, TracedGraphsListParamsAndState) {
  const LoadedSpec spec = loadSpec(*findSpec("modules"));
  const ir::Graph train = trace(spec);
  EXPECT_EQ(train.params.size(), 37u + 11u);  // + mlp (6) and widen (5)
  ASSERT_EQ(train.state.size(), 2u);
  EXPECT_EQ(train.state[0].name, "bn.running_mean");
  EXPECT_EQ(train.producer(train.state[0].tensor).kind, ir::OpKind::state_input);
  // BatchNorm2d uses batch statistics in training and running statistics at inference.
  const ir::Graph infer = traceForward(spec);
  int trainBn = 0, inferBn = 0;
  for (const ir::Op& op : train.ops) trainBn += op.kind == ir::OpKind::batch_norm2d;
  for (const ir::Op& op : infer.ops) inferBn += op.kind == ir::OpKind::batch_norm2d_inference;
  EXPECT_EQ(trainBn, 1);
  EXPECT_EQ(inferBn, 1);
}

// nn.Embedding(10, D, padding_idx=-1): the layer gives its lookup the padding row, counted from
// the front (9), and the lookup's gradient leaves that row out.
TEST(Modules, EmbeddingPaddingIdxReachesTheLookupAndItsGradient) {
  const LoadedSpec spec = loadSpec(*findSpec("modules"));
  const ir::Graph train = trace(spec);
  const auto lookup = std::find_if(train.ops.begin(), train.ops.end(),
                                   [](const ir::Op& op) { return op.kind == ir::OpKind::embedding; });
  ASSERT_NE(lookup, train.ops.end());
  EXPECT_EQ(lookup->attrs->paddingIdx, 9);
  const ir::Graph step = training::buildTrainingStep(train, spec.spec.optimizer);
  const auto grad = std::find_if(step.ops.begin(), step.ops.end(),
                                 [](const ir::Op& op) { return op.kind == ir::OpKind::embedding_grad; });
  ASSERT_NE(grad, step.ops.end());
  EXPECT_EQ(grad->attrs->paddingIdx, 9);
  EXPECT_EQ(grad->attrs->count, 10);
}

struct Twice : Module {
  Tensor a = param("w", {2});
  Tensor b = param("w", {2});
};

struct MakesParamInForward : Module {
  Tensor forward() { return param("late", {2}); }
};

TEST(Modules, DuplicateNamesAndLateParametersAreErrors) {
  {
    detail::SpecBuilder build = [](std::unique_ptr<Module>& m) {
      m = std::make_unique<Twice>();
      return detail::ErasedSpec{};
    };
    RegisteredSpec r{"twice.cpp", "twice", build};
    try {
      loadSpec(r);
      FAIL();
    } catch (const TraceError& e) {
      EXPECT_EQ(e.op(), "param");
      EXPECT_TRUE(e.detail().starts_with("parameter 'w' is registered twice: each needs its own name"))
          << e.detail();
      EXPECT_EQ(std::filesystem::path(e.file()).filename(), "module_test.cpp");
    }
  }
  {
    MakesParamInForward* raw = nullptr;
    detail::SpecBuilder build = [&raw](std::unique_ptr<Module>& m) {
      auto model = std::make_unique<MakesParamInForward>();
      raw = model.get();
      m = std::move(model);
      return detail::ErasedSpec{};
    };
    LoadedSpec loaded = loadSpec(RegisteredSpec{"late.cpp", "late", build});
    EXPECT_THROW(raw->forward(), TraceError);
  }
}

// Builds M as a spec's model and expects the error to name this file and say `message`.
template <class M>
void expectBuildError(const std::string& message) {
  detail::SpecBuilder build = [](std::unique_ptr<Module>& m) {
    m = std::make_unique<M>();
    return detail::ErasedSpec{};
  };
  try {
    loadSpec(RegisteredSpec{"bad.cpp", "bad", build});
    ADD_FAILURE() << "built without an error";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.message(), message);
    EXPECT_EQ(std::filesystem::path(e.file()).filename(), "module_test.cpp");
  }
}

TEST(Modules, InvalidLayerSizesNameTheLayer) {
  struct Bad : Module {
    Linear l{"l", 0, 4};
  };
  expectBuildError<Bad>("Linear: layer 'l': in must be positive, got 0");
}

TEST(Modules, AnEmbeddingsPaddingRowMustBeOneOfItsRows) {
  struct Bad : Module {
    Embedding e{"e", 10, 4, {.paddingIdx = -11}};
  };
  expectBuildError<Bad>("Embedding: layer 'e': paddingIdx -11 must be within the 10 rows ([-10, 10))");
}

// PyTorch's names, shapes (stored input-first, as Linear's) and counts: nn.LSTM(10, 20,
// num_layers=2) has 5,920 parameters, nn.GRU(20, 30, bias=False) 4,500, nn.MultiheadAttention(32,
// 4) 4,224 (4E² + 4E). The attention's out_proj is named under it.
TEST(Modules, SequenceLayersHavePyTorchsParameters) {
  struct Sequence : Module {
    LSTM lstm{"lstm", 10, 20, {.numLayers = 2}};
    GRU gru{"gru", 20, 30, {.bias = false}};
    MultiheadAttention attn{"attn", 32, 4};
  };
  detail::SpecBuilder build = [](std::unique_ptr<Module>& m) {
    m = std::make_unique<Sequence>();
    return detail::ErasedSpec{};
  };
  const LoadedSpec spec = loadSpec(RegisteredSpec{"sequence.cpp", "sequence", build});
  const auto p = paramsByName(spec);
  std::map<std::string, Shape> shapes;
  std::map<std::string, std::int64_t> counts;
  for (const auto& [name, param] : p) {
    shapes[name] = param.shape;
    counts[name.substr(0, name.find('.'))] += ir::numel(param.shape);
  }
  EXPECT_EQ(shapes, (std::map<std::string, Shape>{
                        {"lstm.weight_ih_l0", {10, 80}}, {"lstm.weight_hh_l0", {20, 80}},
                        {"lstm.bias_ih_l0", {80}}, {"lstm.bias_hh_l0", {80}},
                        {"lstm.weight_ih_l1", {20, 80}}, {"lstm.weight_hh_l1", {20, 80}},
                        {"lstm.bias_ih_l1", {80}}, {"lstm.bias_hh_l1", {80}},
                        {"gru.weight_ih_l0", {20, 90}}, {"gru.weight_hh_l0", {30, 90}},
                        {"attn.in_proj_weight", {32, 96}}, {"attn.in_proj_bias", {96}},
                        {"attn.out_proj.weight", {32, 32}}, {"attn.out_proj.bias", {32}}}));
  EXPECT_EQ(counts, (std::map<std::string, std::int64_t>{{"lstm", 5920}, {"gru", 4500}, {"attn", 4224}}));
  EXPECT_TRUE(p.at("lstm.weight_hh_l1").decay);
  EXPECT_FALSE(p.at("lstm.bias_ih_l0").decay);
  EXPECT_TRUE(p.at("attn.in_proj_weight").decay);
  EXPECT_FALSE(p.at("attn.in_proj_bias").decay);
}

// nn.InstanceNorm2d: no parameters by default, weight and bias [C] with affine.
TEST(Modules, InstanceNormHasParametersOnlyWhenAffine) {
  struct Norms : Module {
    InstanceNorm2d plain{"plain", 8};
    InstanceNorm2d affine{"affine", 8, {.affine = true}};
  };
  detail::SpecBuilder build = [](std::unique_ptr<Module>& m) {
    m = std::make_unique<Norms>();
    return detail::ErasedSpec{};
  };
  const auto p = paramsByName(loadSpec(RegisteredSpec{"norms.cpp", "norms", build}));
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.at("affine.weight").shape, (Shape{8}));
  EXPECT_EQ(p.at("affine.bias").shape, (Shape{8}));
  EXPECT_FALSE(p.at("affine.weight").decay);
}

// nn.TransformerEncoderLayer(32, 4, dim_feedforward=64): 8,544 parameters under PyTorch's names.
TEST(Modules, TransformerEncoderLayerHasPyTorchsParameters) {
  struct Encoder : Module {
    std::vector<TransformerEncoderLayer> layers = list<TransformerEncoderLayer>("layers", 2, 32, 4,
                                                                                 TransformerEncoderLayerOptions{.dimFeedforward = 64});
  };
  detail::SpecBuilder build = [](std::unique_ptr<Module>& m) {
    m = std::make_unique<Encoder>();
    return detail::ErasedSpec{};
  };
  const auto p = paramsByName(loadSpec(RegisteredSpec{"encoder.cpp", "encoder", build}));
  std::vector<std::string> names;
  std::int64_t total = 0;
  for (const auto& [name, param] : p) {
    if (name.starts_with("layers.1.")) names.push_back(name.substr(9));
    total += ir::numel(param.shape);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"linear1.bias", "linear1.weight", "linear2.bias", "linear2.weight",
                                             "norm1.bias", "norm1.weight", "norm2.bias", "norm2.weight",
                                             "self_attn.in_proj_bias", "self_attn.in_proj_weight",
                                             "self_attn.out_proj.bias", "self_attn.out_proj.weight"}));
  EXPECT_EQ(total, 2 * 8544);
  EXPECT_EQ(p.at("layers.0.linear1.weight").shape, (Shape{32, 64}));
}

TEST(Modules, SequenceLayerSizesAreChecked) {
  auto errorOf = [](auto make) {
    detail::SpecBuilder build = [make](std::unique_ptr<Module>& m) {
      m = make();
      return detail::ErasedSpec{};
    };
    try {
      loadSpec(RegisteredSpec{"bad.cpp", "bad", build});
    } catch (const TraceError& e) {
      return e.message();
    }
    return std::string("no error");
  };
  struct Heads : Module {
    MultiheadAttention attn{"attn", 30, 4};
  };
  struct NoLayers : Module {
    LSTM lstm{"lstm", 4, 8, {.numLayers = 0}};
  };
  struct NoHidden : Module {
    GRU gru{"gru", 4, 0};
  };
  EXPECT_EQ(errorOf([] { return std::make_unique<Heads>(); }),
            "MultiheadAttention: layer 'attn': embedDim 30 must be divisible by numHeads 4");
  EXPECT_EQ(errorOf([] { return std::make_unique<NoLayers>(); }), "LSTM: layer 'lstm': numLayers must be positive, got 0");
  EXPECT_EQ(errorOf([] { return std::make_unique<NoHidden>(); }), "GRU: layer 'gru': hiddenSize must be positive, got 0");
}

TEST(Modules, Conv1dAndDropoutLayers) {
  const LoadedSpec spec = loadSpec(*findSpec("all_ops"));
  const auto p = paramsByName(spec);
  // Conv1d(D = 8, D, 3, groups 2, dilation 2): weight [outC, inC/groups, K], bias [outC].
  EXPECT_EQ(p.at("conv1.weight").shape, (Shape{8, 4, 3}));
  EXPECT_EQ(p.at("conv1.bias").shape, (Shape{8}));
  EXPECT_TRUE(p.at("conv1.weight").decay);
  EXPECT_FALSE(p.contains("drop.p"));
  // Dropout draws only while training: dropout(h, 0.1) and the layer in the loss, none in predict.
  auto dropouts = [](const ir::Graph& g) {
    return std::count_if(g.ops.begin(), g.ops.end(), [](const ir::Op& op) { return op.kind == ir::OpKind::dropout; });
  };
  EXPECT_EQ(dropouts(trace(spec)), 2);
  EXPECT_EQ(dropouts(traceForward(spec)), 0);
}

TEST(Modules, LearningRateSchedulesFollowPyTorch) {
  EXPECT_DOUBLE_EQ(learningRateAt(1e-3, 50), 1e-3);
  const LearningRate lin = lr::linear(1.0, 0.1, 10);
  EXPECT_DOUBLE_EQ(learningRateAt(lin, 0), 1.0);
  EXPECT_DOUBLE_EQ(learningRateAt(lin, 5), 0.55);
  EXPECT_DOUBLE_EQ(learningRateAt(lin, 20), 0.1);
  const LearningRate cosine = lr::cosineAnnealing(1.0, 0.0, 100);
  EXPECT_NEAR(learningRateAt(cosine, 50), 0.5, 1e-12);
  EXPECT_NEAR(learningRateAt(cosine, 100), 0.0, 1e-12);
  const LearningRate stair = lr::staircase(1.0, 30, 0.1);
  EXPECT_DOUBLE_EQ(learningRateAt(stair, 29), 1.0);
  EXPECT_NEAR(learningRateAt(stair, 60), 0.01, 1e-15);
  const LearningRate multi = lr::multiStep(1.0, {10, 20}, 0.5);
  EXPECT_DOUBLE_EQ(learningRateAt(multi, 9), 1.0);
  EXPECT_DOUBLE_EQ(learningRateAt(multi, 10), 0.5);
  EXPECT_DOUBLE_EQ(learningRateAt(multi, 25), 0.25);
}

}  // namespace
}  // namespace nndna

namespace nndna {
namespace {

// Every error of building a model names the spec line that built the culprit (for a default
// member initialiser: its class head, see specs/model_errors.cpp) and its path.
TEST(ModuleErrors, NameTheDeclaringLine) {
  for (const model_errors::Case& c : model_errors::cases()) {
    SCOPED_TRACE(c.spec.name);
    try {
      loadSpec(c.spec);
      ADD_FAILURE() << "built without an error";
    } catch (const TraceError& e) {
      EXPECT_EQ(std::filesystem::path(e.file()).filename(), "model_errors.cpp");
      EXPECT_EQ(e.line(), c.line);
      EXPECT_EQ(e.op(), c.op);
      EXPECT_EQ(e.detail(), c.detail);
      EXPECT_EQ(e.kind(), Error::Kind::trace_error);
    }
  }
}

// A copy of a module would share its parameters under the original's names: copies do not
// compile (the spec's compile error names the copy's line: tests/specrun). Moves stay, for
// list<>() and std::vector.
static_assert(!std::is_copy_constructible_v<Module> && !std::is_copy_assignable_v<Module>);
static_assert(!std::is_copy_constructible_v<Linear> && !std::is_copy_constructible_v<Conv2d>);
static_assert(std::is_move_constructible_v<Linear> && std::is_nothrow_move_constructible_v<Module>);

}  // namespace
}  // namespace nndna
