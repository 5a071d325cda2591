// Call sites: every op records the chain of user frames that issued it, outermost first.
#include <gtest/gtest.h>

#include <filesystem>

#include <dlfcn.h>

#include "nndna/trace.hpp"
#include "trace/callsite.hpp"
#include "trace/own_module.hpp"

namespace nndna {
namespace {

struct Traced {
  LoadedSpec spec;
  ir::Graph graph;
};

Traced traceNamed(std::string_view name) {
  const RegisteredSpec* registered = findSpec(name);
  if (registered == nullptr) throw std::runtime_error("spec not linked: " + std::string(name));
  Traced t{loadSpec(*registered), {}};
  t.graph = trace(t.spec);
  return t;
}

// The chain of a tensor's producer as "function:line" strings, outermost first.
std::vector<std::string> chainOf(const ir::Graph& g, const ir::Op& op) {
  std::vector<std::string> out;
  if (op.site == ir::kNone) return out;
  for (ir::FrameId f : g.sites.chains[static_cast<std::size_t>(op.site)]) {
    const ir::Frame& frame = g.sites.frames[static_cast<std::size_t>(f)];
    out.push_back(frame.function + ":" + std::to_string(frame.line));
  }
  return out;
}

std::vector<const ir::Op*> opsOfKind(const ir::Graph& g, ir::OpKind kind) {
  std::vector<const ir::Op*> out;
  for (const ir::Op& op : g.ops) {
    if (op.kind == kind) out.push_back(&op);
  }
  return out;
}

const ir::Frame& innermost(const ir::Graph& g, const ir::Op& op) {
  return g.sites.frames[static_cast<std::size_t>(g.sites.chains[static_cast<std::size_t>(op.site)].back())];
}

TEST(CallSites, ThreeUserFunctionsDeepOutermostFirst) {
  const Traced t = traceNamed("nested_calls");
  const auto matmuls = opsOfKind(t.graph, ir::OpKind::matmul);
  ASSERT_EQ(matmuls.size(), 1u);
  const std::vector<std::string> expected = {"lossFn:26", "outer:21", "middle:17", "inner:13"};
  EXPECT_EQ(chainOf(t.graph, *matmuls[0]), expected);
  // The layer's bias add and the relu on the same line share the chain: the op inside Linear is
  // attributed to the spec line that called the layer, not to nndna's code.
  const auto adds = opsOfKind(t.graph, ir::OpKind::add);
  ASSERT_GE(adds.size(), 1u);
  EXPECT_EQ(chainOf(t.graph, *adds[0]), expected);
  EXPECT_EQ(chainOf(t.graph, *opsOfKind(t.graph, ir::OpKind::relu)[0]), expected);
}

// Function names come from the program's symbol table, whatever the symbol's kind: global,
// local (an anonymous namespace), weak (a member defined in its class, a template), a lambda.
TEST(CallSites, FramesNameTheirFunctionForEverySymbolKind) {
  const Traced t = traceNamed("named_frames");
  auto only = [&](ir::OpKind kind) {
    const auto ops = opsOfKind(t.graph, kind);
    EXPECT_EQ(ops.size(), kind == ir::OpKind::sigmoid ? 2u : 1u) << ir::opKindName(kind);
    return chainOf(t.graph, *ops.at(0));
  };
  EXPECT_EQ(only(ir::OpKind::matmul), (std::vector<std::string>{"lossFn:33", "FramedBlock::fwd:18"}));
  EXPECT_EQ(only(ir::OpKind::relu), (std::vector<std::string>{"lossFn:33", "lossFn::{lambda#1}:32"}));
  EXPECT_EQ(only(ir::OpKind::tanh), (std::vector<std::string>{"lossFn:34", "hidden:12"}));
  EXPECT_EQ(only(ir::OpKind::sigmoid), (std::vector<std::string>{"lossFn:34", "repeated:23"}));
}

// A lambda passed where a function pointer goes runs through the compiler's static invoker, a
// frame of its own at the lambda's line: it holds no user code and is not a frame of the chain
// (it drew a second cluster around the lambda's, with the same line).
TEST(CallSites, ALambdasStaticInvokerIsNoFrame) {
  const Traced t = traceNamed("lambda_loss");
  EXPECT_EQ(chainOf(t.graph, *opsOfKind(t.graph, ir::OpKind::relu).at(0)),
            (std::vector<std::string>{"nndnaSpecBody::{lambda#1}:16", "forward:13"}));
  EXPECT_EQ(chainOf(t.graph, *opsOfKind(t.graph, ir::OpKind::mean).at(0)),
            (std::vector<std::string>{"nndnaSpecBody::{lambda#1}:16"}));
  for (const ir::Frame& frame : t.graph.sites.frames) EXPECT_FALSE(frame.function.ends_with("_FUN")) << frame.function;
}

TEST(CallSites, FramesNameTheSpecFileAndColumn) {
  const Traced t = traceNamed("nested_calls");
  const ir::Op& matmul = *opsOfKind(t.graph, ir::OpKind::matmul)[0];
  const ir::Frame& f = innermost(t.graph, matmul);
  const ir::SourceFile& file = t.graph.sites.files[static_cast<std::size_t>(f.file)];
  EXPECT_EQ(std::filesystem::path(file.path).filename(), "nested_calls.cpp");
  EXPECT_GT(f.column, 0);
  // The spec's source text travels with the graph, so tools can show the line.
  EXPECT_NE(file.text.find("return relu(m.proj(x));  // line 13"), std::string::npos);
}

TEST(CallSites, CallAddressesTellCallsOnOneLineApart) {
  const Traced t = traceNamed("nested_calls");
  const ir::Op& tanhOp = *opsOfKind(t.graph, ir::OpKind::tanh)[0];
  const ir::Op& sigmoidOp = *opsOfKind(t.graph, ir::OpKind::sigmoid)[0];
  EXPECT_EQ(innermost(t.graph, tanhOp).line, 27);
  EXPECT_EQ(innermost(t.graph, sigmoidOp).line, 27);
  EXPECT_NE(innermost(t.graph, tanhOp).address, innermost(t.graph, sigmoidOp).address);
  EXPECT_NE(tanhOp.site, sigmoidOp.site);
}

TEST(CallSites, ALoopRepeatsOneCallAddress) {
  const Traced t = traceNamed("nested_calls");
  std::vector<const ir::Op*> loopRelus;
  for (const ir::Op* op : opsOfKind(t.graph, ir::OpKind::relu)) {
    if (innermost(t.graph, *op).line == 28) loopRelus.push_back(op);
  }
  ASSERT_EQ(loopRelus.size(), 3u);
  EXPECT_EQ(loopRelus[0]->site, loopRelus[1]->site);
  EXPECT_EQ(loopRelus[1]->site, loopRelus[2]->site);
}

TEST(CallSites, SitesAreInterned) {
  const Traced t = traceNamed("nested_calls");
  // 3 layer ops share one chain; the loop's 3 relus share one: far fewer chains than ops.
  EXPECT_LT(t.graph.sites.chains.size(), t.graph.ops.size());
  for (std::size_t a = 0; a < t.graph.sites.chains.size(); ++a) {
    for (std::size_t b = a + 1; b < t.graph.sites.chains.size(); ++b) {
      EXPECT_NE(t.graph.sites.chains[a], t.graph.sites.chains[b]);
    }
  }
}

TEST(CallSites, LeavesHaveNoSite) {
  const Traced t = traceNamed("nested_calls");
  for (const ir::Op& op : t.graph.ops) {
    if (ir::isLeafKind(op.kind)) {
      EXPECT_EQ(op.site, ir::kNone);
    }
  }
}

TEST(CallSites, ShortFunctionNames) {
  using tracing::shortFunctionName;
  EXPECT_EQ(shortFunctionName("denoise(Denoiser&, nndna::Tensor)"), "denoise");
  EXPECT_EQ(shortFunctionName("Block::forward(nndna::Tensor) const"), "Block::forward");
  EXPECT_EQ(shortFunctionName("nndna::Tensor apply<int>(int)"), "apply");
  EXPECT_EQ(shortFunctionName("(anonymous namespace)::helper(int)"), "helper");
  EXPECT_EQ(shortFunctionName(
                "lossFn(Net&, nndna::Inputs const&)::{lambda(nndna::Tensor)#1}::operator()(nndna::Tensor) const"),
            "lossFn::{lambda#1}");
}

// This test program loads libnndna.so: its code is a module of its own, not the program's. (The
// other case, `nndna` with libnndna linked in: cli.built_in_specs_trace_as_spec_programs.)
TEST(CallSites, LibnndnaKnowsItsOwnModule) {
  const tracing::OwnModule& own = tracing::ownModule();
  EXPECT_FALSE(own.isProgram);
  EXPECT_TRUE(own.file.filename().string().starts_with("libnndna.so")) << own.file;
  Dl_info info{};
  ASSERT_NE(::dladdr(reinterpret_cast<void*>(&tracing::shortFunctionName), &info), 0);
  EXPECT_EQ(own.base, reinterpret_cast<std::uintptr_t>(info.dli_fbase));
  ASSERT_NE(::dladdr(reinterpret_cast<void*>(&traceNamed), &info), 0);
  EXPECT_NE(own.base, reinterpret_cast<std::uintptr_t>(info.dli_fbase));  // the test program's
}

}  // namespace
}  // namespace nndna
