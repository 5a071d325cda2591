// Golden diagrams of the examples. Every expected value is derived by hand from the spec's source
// (the derivation is next to it), never copied from a run.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "diagram/checked_model.hpp"
#include "diagram/text.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/summary.hpp"
#include "test_support.hpp"

namespace nndna::diagram {
namespace {

using testing::loopLabels;
using testing::metric;
using testing::traced;
using detail::escapeXml;

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
  // Training-step kernels (src/grad, src/optim; views and leaves launch none). Forward: l1, l2
  // matmul, add, gelu (6), l3 matmul, add (2), trueNoise's sub, the loss's sub, square, mean:
  // 12. Backward: seed ones 1, mean ×1/n 1, square x·2 and ·dy 2, sub passes dy on to predNoise
  // (same shapes; trueNoise depends on no parameter); l3 bias sum_to_shape 1, dX and dW 2,
  // gelu_grad 1, l2 bias 1, dX and dW 2, gelu_grad 1, l1 bias 1 and dW only 1 (the input needs
  // no gradient) = 14. AdamW: 3 per parameter tensor, 6 tensors.
  EXPECT_EQ(metric(*d.metrics.train, "kernels").value,
            12 + (1 + 1 + 2 + (1 + 2 + 1) + (1 + 2 + 1) + (1 + 1)) + 3 * 6);
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
  // Only the loop is inference's: the pair, which both sides draw, is not faded with it (DOT
  // hands a cluster's class down to the clusters inside unless they set their own).
  const std::string svg = renderSvg(d);
  EXPECT_NE(svg.find(fmt::format("<g id=\"c{}\" class=\"cluster only&#45;infer\"", loop.id)), std::string::npos);
  EXPECT_NE(svg.find(fmt::format("<g id=\"c{}\" class=\"cluster\"", pair.id)), std::string::npos);
}

// A paired wrapper is laid out with the longer of its labels (the training side's in the
// denoiser, predictFn's in mlp_sin). The standalone SVG, the training view, shows lossFn's line,
// pinned to the left edge where the laid-out label starts, so either side's reads from there.
TEST(DiagramGolden, TheStandaloneSvgShowsAPairsTrainingLabelFromItsLeftEdge) {
  for (const char* name : {"diffusion_denoiser", "mlp_sin"}) {
    SCOPED_TRACE(name);
    const Diagram d = buildDiagram(traced(name));
    const auto pair = std::find_if(d.clusters.begin(), d.clusters.end(),
                                   [](const Cluster& c) { return c.trainLabel.has_value(); });
    ASSERT_NE(pair, d.clusters.end());
    EXPECT_EQ(pair->label, pair->inferLabel->size() > pair->trainLabel->size() ? *pair->inferLabel : *pair->trainLabel);
    const std::string svg = renderSvg(d);
    const auto group = svg.find("<g id=\"c" + std::to_string(pair->id) + "\" ");
    ASSERT_NE(group, std::string::npos);
    const std::string_view shown = std::string_view(svg).substr(group, svg.find("</g>", group) - group);
    EXPECT_NE(shown.find(">" + escapeXml(*pair->trainLabel) + "</text>"), std::string::npos) << shown;
    EXPECT_EQ(shown.find(escapeXml(*pair->inferLabel)), std::string::npos) << shown;
    EXPECT_NE(shown.find("<text text-anchor=\"start\" x=\""), std::string::npos) << shown;
    EXPECT_EQ(shown.find("text-anchor=\"middle\""), std::string::npos) << shown;
  }
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
  // Training-step kernels (src/grad, src/optim). Forward: l1, l2 matmul, add, relu (6), l3
  // matmul, add (2), sub, mul(d, d), mean: 11. Backward: seed ones 1, mean ×1/n 1; mul(d, d)
  // reads d twice: dy·d for each operand 2 and their sum 1 (square(d) would cost 2); sub passes
  // dy on (same shapes; y needs none); l3 bias sum_to_shape 1, dX and dW 2, relu_grad 1, l2 bias
  // 1, dX and dW 2, relu_grad 1, l1 bias 1 and dW only 1 (x needs none) = 15. Adam: 3 × 6
  // parameter tensors.
  EXPECT_EQ(metric(*d.metrics.train, "kernels").value,
            11 + (1 + 1 + 3 + (1 + 2 + 1) + (1 + 2 + 1) + (1 + 1)) + 3 * 6);
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
  // Training-step kernels (src/grad, src/optim). Forward: input matmul, add, relu 3, 8 × 3, head
  // matmul, add 2, cross-entropy 1 = 30. Backward: seed ones 1, cross_entropy_grad 1, head bias
  // sum_to_shape 1 and dX, dW 2; per hidden layer relu_grad 1, bias 1, dX and dW 2 (8 × 4); the
  // input layer relu_grad 1, bias 1 and dW only 1 (the images need none) = 40. SGD with momentum
  // (not Nesterov): sgd_momentum and sgd_update per parameter tensor, 2 × 20.
  EXPECT_EQ(metric(*d.metrics.train, "kernels").value,
            (3 + 8 * 3 + 2 + 1) + (1 + 1 + 3 + 8 * 4 + 3) + 2 * (2 + 8 * 2 + 2));
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
  // Training-step kernels (src/grad, src/optim; leaves, reshape, permute, split_heads and
  // broadcast_to launch none). Forward: line 71 embedding, arange, embedding, add 4; per block
  // ln1 1, q, k, v matmul + add 6, q·kᵀ 1, scale 1, softmax_causal 1, ·v 1, merge_heads 1, proj
  // 2, add 1, ln2 1, fc 2, gelu 1, proj 2, add 1 = 22; ln_f, logits matmul 2; cross-entropy 1.
  // Backward: seed ones 1, cross_entropy_grad 1, logits dX and dW 2, ln_f input, weight, bias 3.
  // Per block from its output (the residual adds pass dy on): mlp proj bias 1, dX and dW 2,
  // gelu_grad 1, fc bias 1, dX and dW 2, ln2 3, the sum of x's two gradients after the attention
  // add 1 = 11; attention proj bias 1, dX and dW 2, softmax·v 2, softmax_grad 1, scale 1, q·kᵀ
  // 2, merge_heads for the three splitHeads 3, q, k, v bias 3 and dX, dW 6, the sum of ln1's
  // output's three gradients 2, ln1 3, the sum of the block input's two gradients 1 = 27. Line
  // 71: the positions' sum_to_shape [B,T,D] → [T,D] 1, two embedding_grads 2, the sum of
  // tok_emb's two gradients (embedding, logits) 1. AdamW: 3 per tensor, tok_emb, pos_emb, 12 ×
  // 16 per block, ln_f's 2. docs/ir.md's measured 1,326 agrees.
  EXPECT_EQ(metric(*d.metrics.train, "kernels").value,
            (4 + 12 * 22 + 2 + 1) + (1 + 1 + 2 + 3 + 12 * (11 + 27) + 4) + 3 * (2 + 12 * 16 + 2));
}

// A model read from its IR (the reader checks its graphs) is drawn without checking them again,
// as the command, the server and the designer draw it, and the training step is built from the
// graph without checking it again either: GPT-2's hand-derived figures (DiagramGolden.Gpt2Small-
// FoldsItsTwelveBlocks) come out of that path too.
TEST(DiagramGolden, AModelReadFromItsIrDrawsWithoutACheckAgain) {
  const ir::TracedModel model = ir::tracedModelFromJson(ir::toJson(traced("gpt2_small")));
  const Diagram d = buildDiagramOfCheckedModel(model);
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 15u);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×12"});
  EXPECT_EQ(metric(*d.metrics.train, "params").value, 124'439'808);
  EXPECT_EQ(metric(*d.metrics.train, "kernels").value, 1'326);
  ASSERT_TRUE(d.summary);
  EXPECT_EQ(d.summary->params, 124'439'808);
}

// Without the summary (Options::summary, for outputs that do not show it: DOT, SVG, JSON) the
// drawing and its figures are the same, and the side drawn alone has none either.
TEST(DiagramGolden, ADiagramWithoutTheSummaryIsTheSameDrawing) {
  const ir::TracedModel model = traced("gpt2_small");
  const Diagram with = buildDiagram(model);
  const Diagram without = buildDiagram(model, {.summary = false});
  EXPECT_FALSE(without.summary);
  EXPECT_EQ(without.dot, with.dot);
  EXPECT_EQ(toJson(without, -1), toJson(with, -1));
  EXPECT_EQ(metric(*without.metrics.train, "kernels").value, 1'326);
  // A model whose sides share no box draws its inference side alone, without the summary too.
  const ir::TracedModel disjoint = traced("disjoint_sides");
  const Diagram a = buildDiagram(disjoint);
  const Diagram b = buildDiagram(disjoint, {.summary = false});
  EXPECT_FALSE(a.merged);
  ASSERT_TRUE(a.inferAlone && b.inferAlone);
  EXPECT_TRUE(a.inferAlone->summary);
  EXPECT_FALSE(b.inferAlone->summary);
  EXPECT_EQ(b.inferAlone->dot, a.inferAlone->dot);
  EXPECT_EQ(b.dot, a.dot);
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
