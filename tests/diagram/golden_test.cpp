// Golden diagrams of the examples. Every expected value is derived by hand from the spec's source
// (the derivation is next to it), never copied from a run.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace nndna::diagram {
namespace {

using testing::loopLabels;
using testing::metric;
using testing::traced;

// The seed's default model (issue 4 fixes this golden).
TEST(DiagramGolden, DiffusionDenoiserMatchesTheSeed) {
  const Diagram d = buildDiagram(traced("diffusion_denoiser"));
  // Training boxes: denoise's line 19 (one leaf: l1, gelu, l2, gelu, l3 are one line), lossFn's
  // `trueNoise = sub(...)` and `mean(square(sub(...)))`. Inference: the same denoise line (keyed
  // `denoise@19` on both sides, so shared) and predictFn's `x = sub(x, mul(..., 0.1))`, folded
  // ×12. 1 shared + 2 training-only + 1 inference-only = 4.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 4u);
  EXPECT_EQ(d.nodes.size(), 7u);  // + inputs clean, noisy, xInit
  // The wrapper pair (lossFn's / predictFn's call of denoise) and the ×12 loop.
  EXPECT_EQ(d.clusters.size(), 2u);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×12 (inference)"});
  // Training: noisy→denoise, noisy→sub, clean→sub, denoise→loss, sub→loss (5). Inference:
  // xInit→denoise, xInit→step, denoise→step, and the carried step→denoise, step→step (5).
  EXPECT_EQ(d.edges.size(), 10u);
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
  ASSERT_TRUE(d.metrics.train);
  // l1 32·128+128, l2 128·128+128, l3 128·32+32 = 4,224 + 16,512 + 4,128.
  EXPECT_EQ(metric(*d.metrics.train, "params").value, 24'864);
  EXPECT_EQ(metric(*d.metrics.train, "params").display, "24.9K parameters");
  // Inference: 12 steps × 2·256·(32·128 + 128·128 + 128·32) = 12 × 12,582,912.
  ASSERT_TRUE(d.metrics.infer);
  EXPECT_EQ(metric(*d.metrics.infer, "flops").value, 150'994'944);
  // Training step: forward 12,582,912; backward dW3, dh2, dW2, dh1, dW1 (no gradient for the
  // input): 2·256·(128·32 + 128·32 + 128·128 + 128·128 + 32·128) = 23,068,672.
  EXPECT_EQ(metric(*d.metrics.train, "flops").value, 12'582'912 + 23'068'672);
  // Activations (inference), elements per step: l1 matmul, add, gelu at [256,128] (3·32,768),
  // l2 likewise (3·32,768), l3 matmul and add, the mul and the sub at [256,32] (4·8,192):
  // 229,376; ×12 steps, ×4 bytes.
  EXPECT_EQ(metric(*d.metrics.infer, "activations").value, 229'376LL * 12 * 4);
}

TEST(DiagramGolden, DiffusionDenoiserCostsPerNodeAndCluster) {
  const Diagram d = buildDiagram(traced("diffusion_denoiser"));
  // denoise's one line: `return m.l3(gelu(m.l2(gelu(m.l1(x)))));`
  const auto denoise = std::find_if(d.nodes.begin(), d.nodes.end(), [](const Node& n) {
    return n.label.find("m.l3(gelu(m.l2(gelu(m.l1(x))))") != std::string::npos;
  });
  ASSERT_NE(denoise, d.nodes.end());
  ASSERT_TRUE(denoise->cost.train && denoise->cost.infer);
  EXPECT_EQ(denoise->cost.train->params, 24'864);  // the line calls all three layers
  EXPECT_EQ(denoise->cost.train->flops, 12'582'912);
  EXPECT_EQ(denoise->cost.infer->flops, 12 * 12'582'912LL);  // every folded iteration
  // The denoise box sits in the wrapper pair (lossFn's / predictFn's call of denoise), inside the
  // ×12 loop, which also holds the step box (a scalar mul and a sub: no FLOPs).
  const Cluster& pair = d.clusters.at(static_cast<std::size_t>(denoise->cluster));
  EXPECT_EQ(pair.kind, Cluster::Kind::user);
  ASSERT_TRUE(pair.trainLabel && pair.inferLabel);
  EXPECT_EQ(*pair.trainLabel, "Tensor predNoise = denoise(m, in[\"noisy\"]);");
  const Cluster& loop = d.clusters.at(static_cast<std::size_t>(pair.parent));
  EXPECT_EQ(loop.kind, Cluster::Kind::loop);
  ASSERT_TRUE(loop.cost.infer);
  EXPECT_EQ(loop.cost.infer->params, 24'864);
  EXPECT_EQ(loop.cost.infer->flops, 12 * 12'582'912LL);
}

TEST(DiagramGolden, MlpSinForwardFlopsAndMerge) {
  const Diagram d = buildDiagram(traced("mlp_sin"));
  // forward(): three lines (relu(l1), relu(l2), l3), shared; lossFn: `d = sub(forward(..), y)`
  // and `mean(mul(d, d))` training-only. 3 + 2 = 5 boxes, inputs x and y.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 5u);
  EXPECT_EQ(d.nodes.size(), 7u);
  EXPECT_EQ(d.clusters.size(), 1u);  // the wrapper pair around forward()
  EXPECT_TRUE(loopLabels(d).empty());
  // x→l1, l1→l2, l2→l3 (both sides), l3→sub, y→sub, sub→mean.
  EXPECT_EQ(d.edges.size(), 6u);
  EXPECT_EQ(d.carriedEdgeCount(), 0u);
  // 1·64+64 + 64·64+64 + 64·1+1.
  EXPECT_EQ(metric(*d.metrics.train, "params").value, 4'353);
  // Issue 4: 2·256·(1·64 + 64·64 + 64·1) = 2,162,688.
  EXPECT_EQ(metric(*d.metrics.infer, "flops").value, 2'162'688);
  EXPECT_EQ(metric(*d.metrics.infer, "flops").display, "2.2M FLOPs/forward");
}

// Beyond the seed (a): `for (const Linear& layer : m.layers) h = relu(layer(h));` is one source
// line with no user-function call; the seed merges its 8 iterations into one box.
TEST(DiagramGolden, DeepMlpOneLineLoopKeepsItsDepth) {
  const Diagram d = buildDiagram(traced("deep_mlp"));
  // classify(): input line, the loop line (folded), head line, shared; crossEntropy's line in
  // lossFn training-only: 4 boxes; inputs images and labels.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 4u);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×8"});  // both sides loop 8 times
  EXPECT_EQ(d.clusters.size(), 2u);                          // the loop and the wrapper pair
  // images→input, input→loop, loop→loop (carried: h feeds the next layer), loop→head,
  // head→loss, labels→loss.
  EXPECT_EQ(d.edges.size(), 6u);
  EXPECT_EQ(d.carriedEdgeCount(), 1u);
  // 784·256+256 + 8·(256·256+256) + 256·10+10 = 200,960 + 526,336 + 2,570.
  EXPECT_EQ(metric(*d.metrics.train, "params").value, 729'866);
  // Forward: 2·128·(784·256 + 8·256·256 + 256·10).
  EXPECT_EQ(metric(*d.metrics.infer, "flops").value, 2LL * 128 * (784 * 256 + 8 * 256 * 256 + 256 * 10));
  // The folded box carries all 8 layers' parameters and FLOPs.
  const auto loopNode = std::find_if(d.nodes.begin(), d.nodes.end(), [&](const Node& n) {
    return n.cluster >= 0 && d.clusters[static_cast<std::size_t>(n.cluster)].kind == Cluster::Kind::loop;
  });
  ASSERT_NE(loopNode, d.nodes.end());
  ASSERT_TRUE(loopNode->cost.infer);
  EXPECT_EQ(loopNode->cost.infer->params, 8 * (256 * 256 + 256));
  EXPECT_EQ(loopNode->cost.infer->flops, 8LL * 2 * 128 * 256 * 256);
}

// GPT-2 small: the 12 blocks fold (one line with a user call: the loop sits in its call cluster).
TEST(DiagramGolden, Gpt2SmallFoldsItsTwelveBlocks) {
  const Diagram d = buildDiagram(traced("gpt2_small"));
  // gpt(): the embedding line; block(): its attention line twice (ln1 before the attention call,
  // the residual add after it) and its mlp line twice; attention(): 6 lines (q, k, v, scores, y,
  // proj); mlp(): 1 line; then lnF and the tied-embedding logits: 1 + 2 + 6 + 2 + 1 + 2 = 14
  // shared boxes, plus lossFn's crossEntropy line, training-only.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 15u);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×12"});
  // The residual stream leaving block i (the mlp line's add) feeds block i+1's two attention-line
  // boxes (ln1 and the residual add): 2 carried edges.
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
  // V·D + T·D + 12·(4·(D²+D) + 2·2D + (D·4D+4D) + (4D·D+D)) + 2D, V=50257, T=1024, D=768.
  EXPECT_EQ(metric(*d.metrics.train, "params").value, 124'439'808);
}

// Every example linked into nndna diagrams, lays out and renders (the issue's "each is compiled,
// traced, diagrammed and rendered"): non-empty, one box per drawn node in the DOT.
TEST(DiagramGolden, EveryExampleDiagramsToDot) {
  for (const RegisteredSpec& spec : registeredSpecs()) {
    if (spec.sourceFile.find("/examples/") == std::string::npos) continue;
    SCOPED_TRACE(spec.name);
    const Diagram d = buildDiagram(traceModel(loadSpec(spec)));
    EXPECT_GT(d.layerCount(), 0u);
    EXPECT_EQ(testing::count(d.dot, "[id=\"n"), d.nodes.size());
    EXPECT_EQ(testing::count(d.dot, "subgraph cluster_"), d.clusters.size());
  }
}

}  // namespace
}  // namespace nndna::diagram
