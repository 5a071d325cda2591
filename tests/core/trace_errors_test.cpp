// Trace errors name the spec file and line, the op, and the shapes involved.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "nndna/trace.hpp"

namespace nndna {
namespace {

TEST(TraceErrors, ShapeErrorNamesSpecLineOpAndShapes) {
  const LoadedSpec spec = loadSpec(*findSpec("shape_error"));
  try {
    trace(spec);
    FAIL() << "expected a TraceError";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::filesystem::path(e.file()).filename(), "shape_error.cpp");
    EXPECT_EQ(e.line(), 12);
    EXPECT_EQ(e.op(), "matmul");
    EXPECT_EQ(e.detail(), "inner dimensions differ: [256, 32] · [64, 128]");
    const std::string what = e.what();
    EXPECT_TRUE(what.ends_with("shape_error.cpp:12: matmul: inner dimensions differ: [256, 32] · [64, 128]"))
        << what;
  }
}

TEST(TraceErrors, LossMustBeScalar) {
  ir::Graph g;
  LoadedSpec spec;
  spec.model = std::make_unique<Module>();
  spec.spec.inputs = {{"x", {4, 3}}};
  spec.spec.loss = [](Module&, const Inputs& in) { return relu(in["x"]); };
  try {
    trace(spec);
    FAIL() << "expected a TraceError";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.op(), "loss");
    EXPECT_EQ(e.detail(), "the loss must be a rank-0 f32 tensor, got [4, 3] f32 (reduce it with mean or sum)");
    EXPECT_EQ(std::filesystem::path(e.file()).filename(), "trace_errors_test.cpp");
  }
}

struct Layers : Module {
  Linear fc{"fc", 8, 4};
  Linear never;  // default-constructed, never assigned
  LayerNorm ln{"ln", 8};
  RMSNorm rms{"rms", 8};
  BatchNorm2d bn{"bn", 8};
  GroupNorm gn{"gn", 2, 8};
  Conv2d conv{"conv", 3, 4, 3};
  Conv1d conv1{"conv1", 3, 4, 3};
};

// The error of tracing `loss` over Layers with `inputs`, as "op: detail".
std::string layerError(std::vector<InputDecl> inputs, Tensor (*loss)(Layers&, const Inputs&)) {
  detail::SpecBuilder build = [](std::unique_ptr<Module>& m) {
    m = std::make_unique<Layers>();
    return detail::ErasedSpec{};
  };
  LoadedSpec spec = loadSpec(RegisteredSpec{"norms.cpp", "norms", build});
  spec.spec.inputs = std::move(inputs);
  spec.spec.loss = [loss](Module& m, const Inputs& in) { return loss(static_cast<Layers&>(m), in); };
  try {
    trace(spec);
  } catch (const TraceError& e) {
    const std::string detail = e.detail();
    return e.op() + ": " + detail.substr(0, detail.find(" (called from"));  // the callers are this file's
  }
  return "no error";
}

// A norm layer built for 8 features meets an input with 6: the message gives the input's size as
// the input's, not as what the input must become.
TEST(TraceErrors, ANormLayerBuiltForAnotherSizeNamesBothSizes) {
  const std::vector<InputDecl> seq = {{"x", {2, 4, 8, 6}}};
  const std::vector<InputDecl> img = {{"x", {2, 6, 4, 4}}};
  EXPECT_EQ(layerError(seq, [](Layers& m, const Inputs& in) { return mean(m.ln(in["x"])); }),
            "LayerNorm: the input's last axis is 6, but the weight is [8]");
  EXPECT_EQ(layerError(seq, [](Layers& m, const Inputs& in) { return mean(m.rms(in["x"])); }),
            "RMSNorm: the input's last axis is 6, but the weight is [8]");
  EXPECT_EQ(layerError(img, [](Layers& m, const Inputs& in) { return mean(m.bn(in["x"])); }),
            "BatchNorm2d: layer 'bn': the input must be [N, 8, H, W], got [2, 6, 4, 4]");
  EXPECT_EQ(layerError(img, [](Layers& m, const Inputs& in) { return mean(m.gn(in["x"])); }),
            "groupNorm: the input's channel axis is 6, but the weight is [8]");
  EXPECT_EQ(layerError({{"x", {2, 4, 8, 8}}}, [](Layers& m, const Inputs& in) { return mean(m.ln(in["x"])); }),
            "no error");
}

// A layer's errors name the layer, not the op inside it that would fail.
TEST(TraceErrors, ALayerCalledWrongNamesItself) {
  EXPECT_EQ(layerError({{"x", {2, 6}}}, [](Layers& m, const Inputs& in) { return mean(m.fc(in["x"])); }),
            "Linear: layer 'fc': the input's last axis is 6, but the layer takes 8 features (input [2, 6])");
  EXPECT_EQ(layerError({{"x", {2, 8}}}, [](Layers& m, const Inputs& in) { return mean(m.never(in["x"])); }),
            "Linear: this Linear was never built: a default-constructed layer has no weights (declare it with a "
            "name and sizes, `Linear fc{\"fc\", ...};`)");
  EXPECT_EQ(layerError({{"x", {2, 8}}}, [](Layers& m, const Inputs& in) { return mean(m.fc(in["x"])); }), "no error");
}

// A channels-last image (TensorFlow's layout, an image file's) or a feature map not flattened
// before the classifier: the error says the call that fixes it.
TEST(TraceErrors, ChannelsLastAndMissingFlattenSayTheFix) {
  const std::string channelsLast = ": its last axis is the 3 channels, as in a channels-last (NHWC) tensor; "
                                   "PyTorch's layers, and nndna's, take channels first: ";
  EXPECT_EQ(layerError({{"x", {2, 8, 8, 3}}}, [](Layers& m, const Inputs& in) { return mean(m.conv(in["x"])); }),
            "Conv2d: layer 'conv': the input must be [N, 3, H, W], got [2, 8, 8, 3]" + channelsLast +
                "`permute(x, {0, 3, 1, 2})`");
  EXPECT_EQ(layerError({{"x", {2, 10, 3}}}, [](Layers& m, const Inputs& in) { return mean(m.conv1(in["x"])); }),
            "Conv1d: layer 'conv1': the input must be [N, 3, L], got [2, 10, 3]" + channelsLast + "`permute(x, {0, 2, 1})`");
  EXPECT_EQ(layerError({{"x", {2, 4, 4, 8}}}, [](Layers& m, const Inputs& in) { return mean(m.bn(in["x"])); }),
            "BatchNorm2d: layer 'bn': the input must be [N, 8, H, W], got [2, 4, 4, 8]: its last axis is the 8 channels, "
            "as in a channels-last (NHWC) tensor; PyTorch's layers, and nndna's, take channels first: "
            "`permute(x, {0, 3, 1, 2})`");
  // Channels both second and last: taken as channels first. Neither: no hint.
  EXPECT_EQ(layerError({{"x", {2, 3, 8, 3}}}, [](Layers& m, const Inputs& in) { return mean(m.conv(in["x"])); }),
            "no error");
  EXPECT_EQ(layerError({{"x", {2, 8, 8, 5}}}, [](Layers& m, const Inputs& in) { return mean(m.conv(in["x"])); }),
            "Conv2d: layer 'conv': the input must be [N, 3, H, W], got [2, 8, 8, 5]");
  // fc takes 8 features: 2·2·2 from axis 1, 2·4 from axis 2; 3·3 = 9 overshoots without a match.
  EXPECT_EQ(layerError({{"x", {2, 2, 2, 2}}}, [](Layers& m, const Inputs& in) { return mean(m.fc(in["x"])); }),
            "Linear: layer 'fc': the input's last axis is 2, but the layer takes 8 features (input [2, 2, 2, 2]): its "
            "last 3 axes hold 2·2·2 = 8 values, which flatten to the layer's features: `flatten(x, 1)` first "
            "(nn.Flatten)");
  EXPECT_EQ(layerError({{"x", {2, 3, 2, 4}}}, [](Layers& m, const Inputs& in) { return mean(m.fc(in["x"])); }),
            "Linear: layer 'fc': the input's last axis is 4, but the layer takes 8 features (input [2, 3, 2, 4]): its "
            "last 2 axes hold 2·4 = 8 values, which flatten to the layer's features: `flatten(x, 2)` first "
            "(nn.Flatten)");
  EXPECT_EQ(layerError({{"x", {2, 3, 3}}}, [](Layers& m, const Inputs& in) { return mean(m.fc(in["x"])); }),
            "Linear: layer 'fc': the input's last axis is 3, but the layer takes 8 features (input [2, 3, 3])");
}

TEST(TraceErrors, InputDeclarationsAreValidated) {
  LoadedSpec spec;
  spec.sourceFile = "model.cpp";
  spec.model = std::make_unique<Module>();
  spec.spec.loss = [](Module&, const Inputs& in) { return mean(in["x"]); };
  spec.spec.inputs = {{"x", {4, 0}}};
  EXPECT_THROW(
      {
        try {
          trace(spec);
        } catch (const TraceError& e) {
          EXPECT_STREQ(e.what(), "model.cpp: inputs: input 'x' has shape [4, 0]: sizes must be positive");
          throw;
        }
      },
      TraceError);
  spec.spec.inputs = {{"x", {4}}, {"x", {4}}};
  EXPECT_THROW(trace(spec), TraceError);
}

// A spec without a loss (an inference-only model) is told how to draw one anyway.
TEST(TraceErrors, NoLossFunctionSaysWhatToWrite) {
  LoadedSpec spec;
  spec.sourceFile = "model.cpp";
  spec.model = std::make_unique<Module>();
  spec.spec.inputs = {{"x", {4, 3}}};
  try {
    trace(spec);
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_EQ(e.op(), "trace");
    EXPECT_TRUE(e.detail().starts_with("the spec has no loss function (.loss): ")) << e.detail();
    EXPECT_NE(e.detail().find("return mean(predictFn(m, in));"), std::string::npos) << e.detail();
  }
}

TEST(TraceErrors, NoPredictFunction) {
  LoadedSpec spec = loadSpec(*findSpec("shape_error"));
  try {
    traceForward(spec);
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_EQ(e.detail(), "the spec has no predict function");
  }
}

}  // namespace
}  // namespace nndna

namespace nndna {
namespace {

// The line of `file` (a spec under tests/core/specs) that contains `text`.
int lineOf(const std::string& file, std::string_view text) {
  std::ifstream in(file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(text) != std::string::npos) return n;
  }
  ADD_FAILURE() << "no line with '" << text << "' in " << file;
  return 0;
}

// Holding x.shape() across hundreds of ops (and a parameter's shape across hundreds of
// registrations) is safe: shape() returns a copy. ASan (the unit tests' second run) reported a
// heap-use-after-free here when it returned a reference into the growing tables.
TEST(Handles, AHeldShapeStaysValid) {
  const ir::Graph g = trace(loadSpec(*findSpec("held_shape")));
  EXPECT_EQ(g.params.size(), 301u);
  // mean(reshape(y, {s[0] * s[1]})): the held [4, 8] made a [32] reshape.
  const ir::Op& mean = g.producer(g.outputs[0]);
  EXPECT_EQ(g.tensor(mean.inputs[0]).shape, (Shape{32}));
}

// A tensor kept from the training trace (in a module member) and used in the inference trace
// is rejected at the line that uses it; before, its id silently named an unrelated tensor.
TEST(Handles, ATensorFromAnotherTraceIsAnError) {
  const LoadedSpec spec = loadSpec(*findSpec("stale_tensor"));
  EXPECT_NO_THROW(trace(spec));
  try {
    traceForward(spec);
    FAIL() << "expected a TraceError";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.line(), lineOf(spec.sourceFile, "// STALE"));
    EXPECT_EQ(e.op(), "add");
    EXPECT_EQ(e.detail(),
              "input tensor belongs to another trace (a tensor kept from an earlier trace, e.g. in a "
              "module member or a static variable, cannot be used in this one)");
  }
}

// An invalid optimizer is an error at the spec's NNDNA_SPEC line when it is traced (the diagram
// used to catch the training step's failure and draw forward-only metrics).
TEST(SpecErrors, AnInvalidOptimizerNamesTheSpecLine) {
  const LoadedSpec spec = loadSpec(*findSpec("bad_optimizer"));
  try {
    traceModel(spec);
    FAIL() << "expected a TraceError";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::filesystem::path(e.file()).filename(), "bad_optimizer.cpp");
    EXPECT_EQ(e.line(), lineOf(spec.sourceFile, "NNDNA_SPEC(Net)"));
    EXPECT_EQ(e.op(), "optimizer");
    EXPECT_EQ(e.detail(), "SGD: nesterov needs a momentum > 0");
  }
}

// Errors of the spec body (its inputs) are at the NNDNA_SPEC line too.
TEST(SpecErrors, InputDeclarationsNameTheSpecLine) {
  LoadedSpec spec = loadSpec(*findSpec("bad_optimizer"));
  spec.spec.optimizer = Adam{};
  spec.spec.inputs = {{"x", {8, 0}}};
  try {
    trace(spec);
    FAIL() << "expected a TraceError";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.line(), lineOf(spec.sourceFile, "NNDNA_SPEC(Net)"));
    EXPECT_EQ(e.detail(), "input 'x' has shape [8, 0]: sizes must be positive");
  }
}

}  // namespace
}  // namespace nndna
