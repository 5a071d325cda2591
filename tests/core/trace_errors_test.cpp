// Trace errors name the spec file and line, the op, and the shapes involved.
#include <gtest/gtest.h>

#include <filesystem>

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
