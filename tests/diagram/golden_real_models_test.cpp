// Golden diagrams of the patterns issue 12 saw on real models (specs in tests/diagram/specs/).
// Every expected value is derived by hand from the spec's source (the derivation is next to it),
// never copied from a run; golden_examples_test.cpp says how a derivation reads a spec.
//
// Activations count every forward op that is neither a leaf nor a view (× 4 bytes). Views are the
// op table's (issue 12, point 7): reshape, permute (swapAxes), split_heads, stop_gradient and
// capture hold no memory; merge_heads is a copy (its permuted input cannot be read as
// [B, T, H·Dh] in place) and counts, as it counts as a kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "diagram/assemble.hpp"
#include "test_support.hpp"

namespace nndna::diagram {
namespace {

using testing::boxesOn;
using testing::boxWithLabel;
using testing::loopLabels;
using testing::traced;
using testing::value;

const std::vector<Side> kBoth{Side::train, Side::infer};
const std::vector<Side> kTrain{Side::train};

// Boxes whose label is exactly `label`, in node order.
std::vector<const Node*> boxesLabelled(const Diagram& d, std::string_view label) {
  std::vector<const Node*> out;
  for (const Node& n : d.nodes) {
    if (n.label == label) out.push_back(&n);
  }
  return out;
}

std::vector<const Cluster*> loops(const Diagram& d) {
  std::vector<const Cluster*> out;
  for (const Cluster& c : d.clusters) {
    if (c.kind == Cluster::Kind::loop) out.push_back(&c);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// ResNets as torchvision builds them, 224×224 images: stem conv 7×7/2 (3 → 64) → 112, BN, ReLU,
// max pool 3×3/2 → 56; stage s runs at 56 / 2^(s-1); its first block strides by 2 (stage 1: 1)
// and, where it changes width or resolution, has a downsampling shortcut (1×1 conv + BN); then
// the spatial mean and fc 2048 (or 512) → 1000. B = 32.
constexpr std::int64_t kB = 32, kClasses = 1000;
constexpr std::int64_t kStemFlops = 2 * (64 * 112 * 112) * 3 * 7 * 7;  // per image
constexpr std::int64_t kStemActs = 3 * 64 * 112 * 112 + 64 * 56 * 56;    // conv, bn, relu; pool

struct StageDims {
  std::int64_t in, width, blocks, stride, side;  // side: the stage's input resolution
};

// Bottleneck (1×1 to w, 3×3 w → w with the stage's stride, 1×1 to 4w), parameters: convs
// in·w + 9w² + 4w², three BNs 2w + 2w + 8w, and the shortcut in·4w + 8w when it downsamples.
std::int64_t bottleneckParams(std::int64_t in, std::int64_t w, bool down) {
  return in * w + 9 * w * w + 4 * w * w + 12 * w + (down ? in * 4 * w + 8 * w : 0);
}
// Per image, at input side h and output side o = h / stride: conv1 2·(w·h²)·in, conv2
// 2·(w·o²)·9w, conv3 2·(4w·o²)·w, shortcut 2·(4w·o²)·in.
std::int64_t bottleneckFlops(std::int64_t in, std::int64_t w, std::int64_t h, std::int64_t o, bool down) {
  return 2 * w * h * h * in + 2 * w * o * o * 9 * w + 2 * 4 * w * o * o * w +
         (down ? 2 * 4 * w * o * o * in : 0);
}
// Per image: conv1, bn1, relu 3·w·h²; conv2, bn2, relu 3·w·o²; conv3, bn3 2·4w·o²; the shortcut's
// conv and bn 2·4w·o²; add, relu 2·4w·o².
std::int64_t bottleneckActs(std::int64_t w, std::int64_t h, std::int64_t o, bool down) {
  return 3 * w * h * h + 3 * w * o * o + 2 * 4 * w * o * o + (down ? 2 * 4 * w * o * o : 0) +
         2 * 4 * w * o * o;
}

const std::vector<StageDims> kResNet50 = {
    {64, 64, 3, 1, 56}, {256, 128, 4, 2, 56}, {512, 256, 6, 2, 28}, {1024, 512, 3, 2, 14}};

// The figures of ResNet-50 summed over its blocks (the first of each stage downsamples).
struct Figures {
  std::int64_t params = 0, flops = 0, acts = 0;
};
Figures resnet50Figures() {
  Figures f{9'408 + 128, kStemFlops, kStemActs};  // stem conv 3·64·49, bn1
  for (const StageDims& s : kResNet50) {
    const std::int64_t o = s.side / s.stride;
    for (std::int64_t b = 0; b < s.blocks; ++b) {
      const bool first = b == 0;
      const std::int64_t in = first ? s.in : 4 * s.width;
      const std::int64_t h = first ? s.side : o;
      f.params += bottleneckParams(in, s.width, first);
      f.flops += bottleneckFlops(in, s.width, h, o, first);
      f.acts += bottleneckActs(s.width, h, o, first);
    }
  }
  f.params += 2048 * kClasses + kClasses;
  f.flops += 2 * 2048 * kClasses;
  // The mean over the last axis [2048, 7], then over the next [2048]; fc matmul and add [1000].
  f.acts += 2048 * 7 + 2048 + 2 * kClasses;
  return f;
}

// The shared parts of both ResNet-50 variants (nested loops, one call per stage).
void expectResNet50Boxes(const Diagram& d) {
  // Per stage: its first block drawn apart (conv lines h1, h2, h3, the shortcut's line in its
  // call cluster, the return line: 5 boxes), then the other blocks folded (4 boxes: no shortcut
  // ops). Stem and fc lines: 1 + 4·(5 + 4) + 1 = 38 shared boxes; training-only crossEntropy,
  // inference-only argmax. Inputs images (both sides), labels (training).
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 40u);
  EXPECT_EQ(d.nodes.size(), 42u);
  EXPECT_EQ(boxesOn(d, kBoth), 38u);
  EXPECT_EQ(boxesOn(d, kTrain), 1u);
  // Each stage's blocks fold on their own, in order: [3, 4, 6, 3] blocks, the first drawn apart.
  EXPECT_EQ(loopLabels(d), (std::vector<std::string>{"×2", "×3", "×5", "×2"}));
  // Never iterations of two stages in one loop: each loop costs exactly its stage's other
  // blocks, (n - 1)·(17w² + 12w) parameters and their forward FLOPs (× B).
  const auto loopClusters = loops(d);
  ASSERT_EQ(loopClusters.size(), 4u);
  for (std::size_t s = 0; s < 4; ++s) {
    const StageDims& dims = kResNet50[s];
    const std::int64_t w = dims.width, o = dims.side / dims.stride;
    const Cluster& loop = *loopClusters[s];
    ASSERT_TRUE(loop.cost.infer) << s;
    EXPECT_EQ(loop.cost.infer->params, (dims.blocks - 1) * (17 * w * w + 12 * w)) << s;
    EXPECT_EQ(loop.cost.infer->flops, (dims.blocks - 1) * kB * bottleneckFlops(4 * w, w, o, o, false)) << s;
  }
  // Edges: images→stem; per stage, its first block (h1→h2→h3, the previous output into h1 and
  // into the shortcut, h3 and the shortcut into the return line: 6) and its loop (the first
  // block's output into h1 and into the return line, h1→h2→h3→return: 5, and the carried
  // return→h1, return→return: 2); the last loop → fc; fc→crossEntropy, labels→crossEntropy,
  // fc→argmax. 1 + 4·(6 + 5 + 2) + 1 + 3 = 57, of which 8 carried. No edge from one stage's loop
  // into the next stage is carried (issue 12, point 4): they are drawn solid and ranked.
  EXPECT_EQ(d.edges.size(), 57u);
  EXPECT_EQ(d.carriedEdgeCount(), 8u);
  for (const Edge& e : d.edges) {
    if (!e.carried) continue;
    const Node& src = d.nodes[static_cast<std::size_t>(e.src)];
    const Node& dst = d.nodes[static_cast<std::size_t>(e.dst)];
    EXPECT_EQ(src.cluster, dst.cluster) << src.label << " -> " << dst.label;  // within one loop
    EXPECT_EQ(d.clusters[static_cast<std::size_t>(src.cluster)].kind, Cluster::Kind::loop);
  }
  // Shapes: the stem [B, 64, 56, 56]; stage s's first block reduces at the input side, then the
  // strided 3×3 halves it: stage 3 h1 [B, 256, 28, 28], h2 [B, 256, 14, 14], h3 [B, 1024, 14,
  // 14]. Every box shows one shape (no loop mixes widths).
  const auto h1 = boxesLabelled(d, "Tensor h = relu(b.bn1(b.conv1(x)));");
  ASSERT_EQ(h1.size(), 8u);  // per stage: the first block and the loop
  const std::vector<std::string> h1Shapes = {"[B, 64, 56, 56]",   "[B, 64, 56, 56]",
                                             "[B, 128, 56, 56]",  "[B, 128, 28, 28]",
                                             "[B, 256, 28, 28]",  "[B, 256, 14, 14]",
                                             "[B, 512, 14, 14]",  "[B, 512, 7, 7]"};
  for (std::size_t i = 0; i < h1.size(); ++i) EXPECT_EQ(h1[i]->shapes, std::vector<std::string>{h1Shapes[i]}) << i;
  EXPECT_EQ(boxesLabelled(d, "h = relu(b.bn2(b.conv2(h)));")[4]->shapes,
            std::vector<std::string>{"[B, 256, 14, 14]"});
  EXPECT_EQ(boxesLabelled(d, "h = b.bn3(b.conv3(h));")[4]->shapes,
            std::vector<std::string>{"[B, 1024, 14, 14]"});
  for (const Node& n : d.nodes) EXPECT_EQ(n.shapes.size(), 1u) << n.label;

  const Figures f = resnet50Figures();
  // torchvision's ResNet-50 has 25,557,032 parameters (BN running statistics are buffers).
  EXPECT_EQ(f.params, 25'557'032);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), f.params);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), kB * f.flops);
  // Inference adds argmax [B]; training the scalar cross-entropy.
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"), (kB * f.acts + kB) * 4);
  EXPECT_EQ(value(d.metrics, Side::train, "activations"), (kB * f.acts + 1) * 4);
}

// Issue 12, points 2 and 4: `for (stage : m.stages) for (block : stage.blocks) x = ...;`.
TEST(DiagramGoldenRealModels, ResNet50NestedLoopsFoldEachStageOnItsOwn) {
  const Diagram d = buildDiagram(traced("resnet50_nested"));
  expectResNet50Boxes(d);
  // The wrapper pair around classify; the call cluster of the block loop's line (every block
  // call, from one line); the four first blocks' shortcut calls; the four loops.
  EXPECT_EQ(d.clusters.size(), 1u + 1 + 4 + 4);
}

// Point 2's second form: `x = stage(m.layer1, x);` … four explicit calls.
TEST(DiagramGoldenRealModels, ResNet50StageCallsFoldEachStageOnItsOwn) {
  const Diagram d = buildDiagram(traced("resnet50_stage_calls"));
  expectResNet50Boxes(d);
  // The pair; per stage, the call of stage() and, inside it, the block loop line's call cluster;
  // the shortcut calls; the loops.
  EXPECT_EQ(d.clusters.size(), 1u + 4 + 4 + 4 + 4);
  const auto stageCalls = testing::userClusterLabels(d);
  for (const char* call : {"x = stage(m.layer1, x);", "x = stage(m.layer2, x);",
                           "x = stage(m.layer3, x);", "x = stage(m.layer4, x);"}) {
    EXPECT_NE(std::find(stageCalls.begin(), stageCalls.end(), call), stageCalls.end()) << call;
  }
}

// Issue 14: the stages as factory lists (`list<Bottleneck>("layer2", 4, [](i) { ... })`), blocks
// of different shapes in one list, the shortcut an optional child of the first block only.
TEST(DiagramGoldenRealModels, ResNet50FromFactoryListsHasTorchvisionsParameters) {
  const ir::TracedModel model = traced("resnet50_factory");
  std::vector<std::string> names;
  for (const ir::Param& p : model.train.params) names.push_back(p.name);
  auto has = [&](std::string_view name) { return std::find(names.begin(), names.end(), name) != names.end(); };
  // Stage 1's first block projects 64 → 256 at stride 1; every stage's first block downsamples,
  // no later one does.
  for (const char* stage : {"layer1", "layer2", "layer3", "layer4"}) {
    EXPECT_TRUE(has(std::string(stage) + ".0.downsample.conv.weight")) << stage;
    EXPECT_FALSE(has(std::string(stage) + ".1.downsample.conv.weight")) << stage;
  }
  EXPECT_TRUE(has("layer3.5.conv3.weight"));
  EXPECT_FALSE(has("layer3.6.conv1.weight"));
  const Diagram d = buildDiagram(model);
  const Figures f = resnet50Figures();
  EXPECT_EQ(f.params, 25'557'032);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 25'557'032);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), kB * f.flops);
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"), (kB * f.acts + kB) * 4);
}

// ---------------------------------------------------------------------------------------------
// ResNet-18: [2, 2, 2, 2] basic blocks (two 3×3 convs). Stage 1 is two plain blocks; stages 2-4
// are a downsampling block and a plain one each: one structure at three widths, so they fold as
// one loop whose boxes show every stage's shape (issue 12, points 2 and 3).
TEST(DiagramGoldenRealModels, ResNet18StagesTwoToFourFoldAsOneLoopShowingEveryWidth) {
  const Diagram d = buildDiagram(traced("resnet18_nested"));
  // Stem; stage 1's loop (h1, h2, return: 3 boxes); the stage loop (first block h1, h2, the
  // shortcut line, return; plain block h1, h2, return: 7 boxes); fc: 12 shared; crossEntropy,
  // argmax.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 14u);
  EXPECT_EQ(boxesOn(d, kBoth), 12u);
  EXPECT_EQ(loopLabels(d), (std::vector<std::string>{"×2", "×3"}));
  // The pair, the block line's call cluster, the two loops, the shortcut call in the stage loop.
  EXPECT_EQ(d.clusters.size(), 5u);
  // images→stem; stage 1: stem→h1, h1→h2, h2→return, stem→return (the residual), carried
  // return→h1 and return→return; stage loop: stage 1's output into h1 and into the shortcut,
  // h1→h2, h2→return, shortcut→return, return→(plain) h1, h1→h2, h2→return, the first block's
  // return→return, carried return→h1 and return→shortcut; → fc; fc→crossEntropy,
  // labels→crossEntropy, fc→argmax. 1 + (4 + 2) + (9 + 2) + 1 + 3 = 22, 4 carried.
  EXPECT_EQ(d.edges.size(), 22u);
  EXPECT_EQ(d.carriedEdgeCount(), 4u);
  // The stage loop's boxes show the shape of each of its iterations, in order: the first block's
  // strided conv1 gives [B, 128, 28, 28] in stage 2, [B, 256, 14, 14] in 3, [B, 512, 7, 7] in 4.
  const auto h1 = boxesLabelled(d, "Tensor h = relu(b.bn1(b.conv1(x)));");
  ASSERT_EQ(h1.size(), 3u);  // stage 1's loop; the stage loop's two blocks
  EXPECT_EQ(h1[0]->shapes, std::vector<std::string>{"[B, 64, 56, 56]"});
  const std::vector<std::string> widths{"[B, 128, 28, 28]", "[B, 256, 14, 14]", "[B, 512, 7, 7]"};
  EXPECT_EQ(h1[1]->shapes, widths);
  EXPECT_EQ(h1[2]->shapes, widths);
  EXPECT_EQ(boxWithLabel(d, "return d ? d->bn(d->conv(x)) : x;").shapes, widths);
  // Two blocks' lines in one iteration compute alike: no subtitle is needed, but each knows.
  EXPECT_EQ(h1[1]->computes, "conv1 · bn1 · relu");
  // The stage loop costs stages 2-4, and nothing of stage 1. Basic block parameters: convs
  // 9·in·w + 9w², BNs 4w, the shortcut in·w + 2w: stage 2 (64 → 128) 230,144 + 295,424, stage 3
  // 919,040 + 1,180,672, stage 4 3,673,088 + 4,720,640.
  const auto loopClusters = loops(d);
  ASSERT_EQ(loopClusters.size(), 2u);
  ASSERT_TRUE(loopClusters[1]->cost.train);
  EXPECT_EQ(loopClusters[1]->cost.train->params,
            230'144 + 295'424 + 919'040 + 1'180'672 + 3'673'088 + 4'720'640);
  // Stage 1: 2·(2·9·64² + 4·64) = 147,968; with the stem 9,536 and fc 513,000, torchvision's
  // published 11,689,512.
  EXPECT_EQ(loopClusters[0]->cost.train->params, 147'968);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 11'689'512);
}

// ---------------------------------------------------------------------------------------------
// fused_qkv: B=8, T=64, V=1000, D=256, H=8 heads of Dh=32, F=1024, 3 pre-LN blocks whose
// attention splits one fused projection (issue 12, point 1).
TEST(DiagramGoldenRealModels, FusedQkvSplitFeedsEveryPiece) {
  const Diagram d = buildDiagram(traced("fused_qkv"));
  // logitsOf(): the embedding line, the block loop line's cluster, the head line. block(): its
  // attention line twice (ln1 before the call, the add after it), its MLP line; attention():
  // the split line, q, k, v, scores, the return line. 1 + 3 + 6 + 1 = 11 shared. lossFn's one
  // line: the targets' reshape (arguments run right to left, before the call) and, after it, the
  // logits' reshape and crossEntropy: 2 training-only.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 13u);
  EXPECT_EQ(boxesOn(d, kBoth), 11u);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×3"});
  EXPECT_EQ(d.clusters.size(), 4u);  // the pair, the block line's cluster, the loop, attention()
  // The split line hands on its three pieces, and shows them.
  const Node& split = boxWithLabel(d, "std::vector<Tensor> qkv = split(b.inProj(x), {D, D, D}, -1);");
  EXPECT_EQ(split.shapes, std::vector<std::string>{"3 × [B, T, D]"});
  auto edge = [&](const Node& from, const Node& to) {
    return std::any_of(d.edges.begin(), d.edges.end(), [&](const Edge& e) {
      return e.src == from.id && e.dst == to.id && !e.carried;
    });
  };
  for (const char* piece : {"Tensor q = splitHeads(qkv[0], H);", "Tensor k = splitHeads(qkv[1], H);",
                            "Tensor v = splitHeads(qkv[2], H);"}) {
    EXPECT_TRUE(edge(split, boxWithLabel(d, piece))) << piece;
  }
  // tokens→embedding, embedding→ln1, ln1→split, split→q, k, v, q→scores, k→scores,
  // scores→return, v→return, return→add, embedding→add (block 0's residual), add→MLP, carried
  // MLP→ln1 and MLP→add, MLP→head, head→crossEntropy, targets→reshape, reshape→crossEntropy:
  // 19, 2 carried.
  EXPECT_EQ(d.edges.size(), 19u);
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
  // Two boxes of the attention line, and of the loss line, read what they compute.
  const auto attentionLine = boxesLabelled(d, "x = add(x, attention(b, b.ln1(x)));");
  ASSERT_EQ(attentionLine.size(), 2u);
  EXPECT_EQ(attentionLine[0]->computes, "ln1");
  EXPECT_EQ(attentionLine[1]->computes, "add");
  // Inference activations (elements): embedding BTD; per block ln1 BTD; the split line's matmul
  // and add B·T·3D each and three pieces (narrows) BTD (9·BTD); q, k, v are split_heads views
  // (0); scores matmul and scale 2·BHTT (swapAxes is a view); softmax BHTT, ·v BTD,
  // merge_heads BTD, out_proj matmul and add 2·BTD; the residual add BTD; MLP ln2 BTD, fc matmul,
  // add, gelu 3·BTF, proj matmul, add 2·BTD, the residual add BTD — 19·BTD + 3·BHTT + 3·BTF;
  // head matmul, add 2·BTV. Training adds the scalar cross-entropy (the reshapes are views).
  constexpr std::int64_t B = 8, T = 64, V = 1000, D = 256, H = 8, F = 1024;
  constexpr std::int64_t BTD = B * T * D, BHTT = B * H * T * T, BTF = B * T * F, BTV = B * T * V;
  const std::int64_t perBlock = 19 * BTD + 3 * BHTT + 3 * BTF;
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"), (BTD + 3 * perBlock + 2 * BTV) * 4);
  EXPECT_EQ(value(d.metrics, Side::train, "activations"), (BTD + 3 * perBlock + 2 * BTV + 1) * 4);
}

// ---------------------------------------------------------------------------------------------
// gqa_block: B=2, T=16, D=64, H=8 query heads of Dh=8 over Hkv=2 key/value heads (G=4); four
// projections without bias. Training writes it with matmul broadcasting, inference with repeatKv.
TEST(DiagramGoldenRealModels, GroupedQueryAttentionCountsByHand) {
  const Diagram d = buildDiagram(traced("gqa_block"));
  constexpr std::int64_t B = 2, T = 16, D = 64, H = 8, HKV = 2, DH = 8;
  // wq, wo D·H·Dh each; wk, wv D·Hkv·Dh each: 4096 + 4096 + 1024 + 1024.
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 2 * D * H * DH + 2 * D * HKV * DH);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 10'240);
  // Forward matmuls (2 · output elements · K): wq 2·BT·64·64, wk and wv 2·BT·64·16 each, scores
  // 2·(B·H·T·T)·Dh, ·v 2·(B·H·T·Dh)·T, wo 2·BT·64·64 — with broadcasting the scores and ·v
  // outputs have the same elements ([B, Hkv, G, T, T] and [B, Hkv, G, T, Dh]).
  constexpr std::int64_t wq = 2 * B * T * D * H * DH, wkv = 2 * B * T * D * HKV * DH;
  constexpr std::int64_t scores = 2 * B * H * T * T * DH, pv = 2 * B * H * T * DH * T;
  constexpr std::int64_t forward = 2 * wq + 2 * wkv + scores + pv;
  EXPECT_EQ(forward, 786'432);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), forward);
  // Backward: x is an input, so the projections wq, wk, wv give only their weight gradients
  // (one matmul each, the same FLOPs); scores, ·v and wo give both operands' (two each). The
  // broadcast k and v get their gradients at the output's batch shape, then summed (no FLOPs).
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), forward + wq + 2 * wkv + 2 * scores + 2 * pv + 2 * wq);
  // Inference kernels: wq, wk, wv; the scores matmul, the scale, softmax, ·v; merge_heads (a
  // copy); wo. splitHeads, repeatKv (reshape, broadcast_to, reshape) and swapAxes are views.
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 9);
  // Activations (elements): wq BTD, wk and wv B·T·Hkv·Dh each, scores, scale, softmax B·H·T·T
  // each, ·v, merge_heads, wo BTD each; training adds the scalar mean.
  constexpr std::int64_t acts = B * T * D + 2 * B * T * HKV * DH + 3 * B * H * T * T + 3 * B * T * D;
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"), acts * 4);
  EXPECT_EQ(value(d.metrics, Side::train, "activations"), (acts + 1) * 4);
}

// ---------------------------------------------------------------------------------------------
// moe_topk_router: B=2, T=8 (BT = 16 tokens), D=16, F=32, E=4 experts, top K=2; the router has
// no bias, each expert is Linear(D, F) + GELU + Linear(F, D) with biases.
TEST(DiagramGoldenRealModels, TopkMixtureOfExpertsCountsByHand) {
  const ir::TracedModel model = traced("moe_topk_router");
  constexpr std::int64_t B = 2, T = 8, D = 16, F = 32, E = 4, K = 2;
  // topk's two outputs: the values (take_along_axis of the probabilities) and the i32 indices.
  const ir::Graph& g = model.infer;
  std::size_t topks = 0;
  for (const ir::Op& op : g.ops) {
    if (op.kind != ir::OpKind::topk) continue;
    ++topks;
    EXPECT_EQ(g.tensor(op.out).shape, (Shape{B, T, K}));
    EXPECT_EQ(g.tensor(op.out).dtype, DType::i32);
    EXPECT_EQ(g.tensor(op.inputs[0]).shape, (Shape{B, T, E}));
  }
  EXPECT_EQ(topks, 1u);
  const Diagram d = buildDiagram(model);
  // Router D·E; each expert D·F + F + F·D + D: 64 + 4·1,072.
  EXPECT_EQ(value(d.metrics, Side::train, "params"), D * E + E * (D * F + F + F * D + D));
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 4'352);
  // Forward matmuls (2 · output elements · K): the router 2·BT·D·E = 2,048; per expert up and
  // down 2·BT·D·F = 16,384 each. The gates (topk, oneHot, mul, sum) and the mixing count none.
  constexpr std::int64_t router = 2 * B * T * D * E, expertMatmul = 2 * B * T * D * F;
  constexpr std::int64_t forward = router + E * 2 * expertMatmul;
  EXPECT_EQ(forward, 133'120);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), forward);
  // Backward: x is an input, so the router and each expert's up give their weight gradient only
  // (one matmul each, the forward's FLOPs); down gives both operands' (two). The router's
  // gradient arrives through topk's values (take_along_axis_grad), then softmax.
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), forward + router + E * 3 * expertMatmul);
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), 331'776);
  // Inference kernels: router matmul, softmax, topk, its values (take_along_axis), the sum and
  // div of the renormalisation, oneHot, mul, sum (the reshape is a view), zeros; per expert up
  // (matmul, add), gelu, down (matmul, add), narrow, mul, add = 8. 10 + 4·8.
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 10 + E * 8);
  // Activations (elements, × 4 bytes): router and softmax BT·E each, topk and its values BT·K
  // each, the sum BT, div BT·K, oneHot and mul BT·K·E each, sum BT·E, zeros BT·D; per expert up
  // and its bias add BT·F each, gelu BT·F, down and its add BT·D each, narrow BT, mul and add
  // BT·D each.
  constexpr std::int64_t BT = B * T;
  constexpr std::int64_t gates = 2 * BT * E + 2 * BT * K + BT + BT * K + 2 * BT * K * E + BT * E + BT * D;
  constexpr std::int64_t perExpert = 3 * BT * F + 4 * BT * D + BT;
  EXPECT_EQ(gates + E * perExpert, 11'120);
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"), (gates + E * perExpert) * 4);
}

// ---------------------------------------------------------------------------------------------
// post_ln_encoder: B=16, T=128, V=30522, D=256, H=4 heads of Dh=64, F=1024, 4 post-LN layers;
// dropout is `trainingDropout(x, train)`, called from four lines (issue 12, point 6).
TEST(DiagramGoldenRealModels, PostLnEncoderDrawsTheDropoutHelperInItsCallersLines) {
  const Diagram d = buildDiagram(traced("post_ln_encoder"));
  // trainingDropout is one line, calls nothing and runs only in training (inference returns x
  // without an op): its dropout is drawn in the line that called it. encode(): the embedding
  // line, `h = trainingDropout(h, train);` (only a dropout: a training-only box), the layer loop
  // line's cluster, the head line. encoderLayer(): line A (attention's output dropped out, added,
  // ln1: one box on both sides, with a dropout in training), line B (likewise). selfAttention():
  // q, k, v, scores, probs (softmax and, in training, its dropout), the return line.
  // Shared: 1 + 2 + 6 + 1 = 10; training-only: the embedding dropout and lossFn's crossEntropy
  // line.
  EXPECT_TRUE(d.merged);
  EXPECT_EQ(d.layerCount(), 12u);
  EXPECT_EQ(boxesOn(d, kBoth), 10u);
  EXPECT_EQ(boxesOn(d, kTrain), 2u);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×4"});
  // The pair, the layer loop line's cluster, the loop, selfAttention(): no cluster for the helper,
  // none training-only.
  EXPECT_EQ(d.clusters.size(), 4u);
  for (const Cluster& c : d.clusters) EXPECT_EQ(c.sides, kBoth) << c.label;
  EXPECT_EQ(boxWithLabel(d, "h = trainingDropout(h, train);").sides, kTrain);
  const Node& lineA = boxWithLabel(d, "x = l.ln1(add(x, trainingDropout(selfAttention(l, x, train), train)));");
  EXPECT_EQ(lineA.sides, kBoth);
  EXPECT_EQ(lineA.computes, "dropout · add · ln1");  // the training side's ops
  // Training: tokens→embedding, embedding→dropout, dropout→q, k, v, q→scores, k→scores,
  // scores→probs, probs→return, v→return, return→A, dropout→A (the residual), A→B, the carried
  // B→q, B→k, B→v, B→A, B→head, head→crossEntropy, targets→crossEntropy (20). Inference, without
  // the embedding dropout: embedding→q, k, v and →A (4 more). 24, 4 carried.
  EXPECT_EQ(d.edges.size(), 24u);
  EXPECT_EQ(d.carriedEdgeCount(), 4u);
  // Activations (elements). Inference: the embedding line's arange [T], position embedding
  // [T, D], token embedding, add, LayerNorm 3·BTD; per layer q, k, v matmul, add (6·BTD) — their
  // split_heads are views (0) —, scores matmul and scale 2·BHTT (swapAxes is a view), softmax
  // BHTT, ·v BTD, merge_heads BTD, attn_out matmul and add 2·BTD, line A's add and ln1 2·BTD,
  // line B's inter matmul, add, gelu 3·BTF, out matmul, add, the residual add and ln2 4·BTD —
  // 16·BTD + 3·BHTT + 3·BTF; the head matmul and add 2·BTV. Training adds the dropouts: the
  // embedding's BTD, per layer the probabilities' BHTT and two sublayer outputs' 2·BTD; and the
  // scalar cross-entropy.
  constexpr std::int64_t B = 16, T = 128, V = 30522, D = 256, H = 4, F = 1024;
  constexpr std::int64_t BTD = B * T * D, BHTT = B * H * T * T, BTF = B * T * F, BTV = B * T * V;
  const std::int64_t perLayer = 16 * BTD + 3 * BHTT + 3 * BTF;
  const std::int64_t inference = T + T * D + 3 * BTD + 4 * perLayer + 2 * BTV;
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"), inference * 4);
  EXPECT_EQ(value(d.metrics, Side::train, "activations"),
            (inference + BTD + 4 * (BHTT + 2 * BTD) + 1) * 4);
}

// ---------------------------------------------------------------------------------------------
// captured_residual: 3 pre-LN blocks, each starting with `x = capture(b.path() + ".residual", x);`
// (issue 12, point 5).
TEST(DiagramGoldenRealModels, CaptureDrawsNothing) {
  const Diagram d = buildDiagram(traced("captured_residual"));
  // As fused_qkv without the capture line: the embedding, ln1 and the add of the attention line,
  // attention()'s q, k, v, scores and return line, the MLP line, the head: 10 shared; the
  // targets' reshape and crossEntropy: 2 training-only.
  EXPECT_EQ(d.layerCount(), 12u);
  EXPECT_EQ(boxesOn(d, kBoth), 10u);
  for (const Node& n : d.nodes) EXPECT_EQ(n.label.find("capture("), std::string::npos);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×3"});
  EXPECT_EQ(d.clusters.size(), 4u);
  // The residual stream into the next block enters the ops that read it: ln1 and the add of the
  // attention line — 2 carried edges, not 1 into a capture box. tokens→embedding,
  // embedding→ln1, ln1→q, k, v, q→scores, k→scores, scores→return, v→return, return→add,
  // embedding→add, add→MLP, MLP→ln1 and MLP→add (carried), MLP→head, head→crossEntropy,
  // targets→reshape, reshape→crossEntropy: 18.
  EXPECT_EQ(d.edges.size(), 18u);
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
  const auto attentionLine = boxesLabelled(d, "x = add(x, attention(b, b.ln1(x)));");
  ASSERT_EQ(attentionLine.size(), 2u);
  std::vector<std::string> carriedInto;
  for (const Edge& e : d.edges) {
    if (e.carried) carriedInto.push_back(d.nodes[static_cast<std::size_t>(e.dst)].computes);
  }
  std::sort(carriedInto.begin(), carriedInto.end());
  EXPECT_EQ(carriedInto, (std::vector<std::string>{"add", "ln1"}));
}

// ---------------------------------------------------------------------------------------------
// rank1_batch_collision: B = Dh = 64, labels [B] (issue 12, point 9).
TEST(DiagramGoldenRealModels, Rank1BatchCollisionIsListed) {
  const Diagram d = buildDiagram(traced("rank1_batch_collision"));
  // On rank >= 2 the batch heuristic tells B (axis 0) from Dh; the rank-1 labels cannot be told.
  EXPECT_EQ(boxWithLabel(d, "input: labels").shapes, std::vector<std::string>{"[B/Dh]"});
  EXPECT_EQ(boxWithLabel(d, "Tensor q = splitHeads(m.q(x), H);").shapes,
            std::vector<std::string>{"[B, H, T, Dh]"});
  ASSERT_EQ(d.collisions.size(), 1u);
  EXPECT_EQ(d.collisions[0].size, 64);
  EXPECT_EQ(d.collisions[0].names, (std::vector<std::string>{"B", "Dh"}));
  // The embedding, q, k, v, y and head lines in the call of logitsOf, lossFn's crossEntropy:
  // 7 boxes; tokens→embedding, embedding→q, k, v, q→y, k→y, v→y, y→head, head→loss,
  // labels→loss: 10 edges.
  EXPECT_EQ(d.layerCount(), 7u);
  EXPECT_EQ(d.edges.size(), 10u);
}

// nested_layer_loops: `for (round < 2) { for (layer : m.layers) x = layer(x); x = relu(x); }`
// over 3 Linear layers of 16.
TEST(DiagramGoldenRealModels, ALoopOverLayersInsideALoopFoldsAtBothLevels) {
  const Diagram d = buildDiagram(traced("nested_layer_loops"));
  EXPECT_EQ(loopLabels(d), (std::vector<std::string>{"×2", "×3"}));
  // The layer line and the relu line; the loss line (training only).
  EXPECT_EQ(d.layerCount(), 3u);
  // encode's call, the rounds, the layers within a round.
  ASSERT_EQ(d.clusters.size(), 3u);
  EXPECT_EQ(d.clusters[2].parent, d.clusters[1].id);
  const Node& layer = boxWithLabel(d, "for (const Linear& layer : m.layers) x = layer(x);");
  EXPECT_EQ(layer.cluster, d.clusters[2].id);
  EXPECT_EQ(boxWithLabel(d, "x = relu(x);").cluster, d.clusters[1].id);
  // x→layer, layer→layer (carried: the next layer), layer→relu, relu→layer (carried: the next
  // round), relu→loss.
  EXPECT_EQ(d.edges.size(), 5u);
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
  // The folded box: the 3 layers' parameters, every application's FLOPs (2 rounds × 3 layers ×
  // 2·8·16·16).
  ASSERT_TRUE(layer.cost.train);
  EXPECT_EQ(layer.cost.train->params, 3 * (16 * 16 + 16));
  EXPECT_EQ(layer.cost.train->flops, 2 * 3 * 2 * 8 * 16 * 16);
}

// carried_dim_sizes: a batch `Dim B{64}` beside plain 64-channel convolutions of 64×64 images.
TEST(DiagramGoldenRealModels, SizesOfANamedDimWrittenAsNumbersStayNumbers) {
  const Diagram d = buildDiagram(traced("carried_dim_sizes"));
  EXPECT_EQ(boxWithLabel(d, "input: images").shapes, std::vector<std::string>{"[B, 3, 64, 64]"});
  EXPECT_EQ(boxWithLabel(d, "Tensor h = leakyRelu(m.conv1(images), 0.2);").shapes,
            std::vector<std::string>{"[B, 64, 32, 32]"});
  EXPECT_EQ(boxWithLabel(d, "h = leakyRelu(m.conv2(h), 0.2);").shapes, std::vector<std::string>{"[B, 128, 16, 16]"});
  EXPECT_EQ(boxWithLabel(d, "input: targets").shapes, std::vector<std::string>{"[B, 1]"});
  EXPECT_TRUE(d.collisions.empty());
  ASSERT_EQ(d.legend.size(), 1u);
  EXPECT_EQ(d.legend[0].name, "B");
}

// ---------------------------------------------------------------------------------------------
// Named dims (issue 12, point 10): sizes that collide are drawn by the names the spec gave them.

// Every shape the diagram shows, for checks that hold for all of them.
std::vector<std::string> allShapes(const Diagram& d) {
  std::vector<std::string> out;
  for (const Node& n : d.nodes) out.insert(out.end(), n.shapes.begin(), n.shapes.end());
  return out;
}

std::vector<std::string> legendOf(const Diagram& d) {
  std::vector<std::string> out;
  for (const LegendItem& l : d.legend) out.push_back(l.name + "=" + std::to_string(l.size) + " " + l.desc);
  return out;
}

// named_dims_gpt2_medium: GPT-2 small's structure (golden_test.cpp) at D = 1024, H = 16 heads of
// Dh = D / H = 64, F = 4·D, 24 blocks, T = 1024 = D, B = 8, V = 50,257; every size a Dim.
TEST(DiagramGoldenRealModels, NamedDimsDrawGpt2MediumWhereTEqualsD) {
  const Diagram d = buildDiagram(traced("named_dims_gpt2_medium"));
  // As GPT-2 small: 14 shared boxes and the crossEntropy line; the 24 blocks fold; the residual
  // stream enters the next block's ln1 and residual add.
  EXPECT_EQ(d.layerCount(), 15u);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×24"});
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
  // V·D + T·D + 24·(4·(D² + D) + 2·2D + (D·4D + 4D) + (4D·D + D)) + 2D.
  EXPECT_EQ(testing::metric(*d.metrics.train, "params").value, 354'823'168);
  // The shapes by name: splitHeads gives D/H, which Dh's definition names; mergeHeads gives
  // H·(D/H) = D; matmul keeps M and N; the embedding adds the table's width to the tokens' axes.
  const std::vector<std::string> btd{"[B, T, D]"};
  const std::vector<std::string> bhtd{"[B, H, T, Dh]"};
  EXPECT_EQ(boxWithLabel(d, "input: tokens").shapes, std::vector<std::string>{"[B, T]"});
  EXPECT_EQ(boxWithLabel(d, "Tensor h = add(embedding(m.tokEmb, tokens), m.posEmb(arange(T)));").shapes, btd);
  EXPECT_EQ(boxWithLabel(d, "Tensor q = splitHeads(a.q(x), H);").shapes, bhtd);
  EXPECT_EQ(boxWithLabel(d, "Tensor v = splitHeads(a.v(x), H);").shapes, bhtd);
  EXPECT_EQ(boxWithLabel(d, "Tensor scores = mul(").shapes, std::vector<std::string>{"[B, H, T, T]"});
  EXPECT_EQ(boxWithLabel(d, "Tensor y = matmul(softmaxCausal(scores), v);").shapes, bhtd);
  EXPECT_EQ(boxWithLabel(d, "return a.proj(mergeHeads(y));").shapes, btd);
  for (const Node* n : boxesLabelled(d, "x = add(x, attention(b.attn, b.ln1(x)));")) EXPECT_EQ(n->shapes, btd);
  EXPECT_EQ(boxWithLabel(d, "return matmul(h, swapAxes(m.tokEmb, -1, -2));").shapes,
            std::vector<std::string>{"[B, T, V]"});
  // Nothing is left to the size heuristic: no slash, no collision to explain.
  for (const std::string& shape : allShapes(d)) EXPECT_EQ(shape.find('/'), std::string::npos) << shape;
  EXPECT_TRUE(d.collisions.empty());
  EXPECT_EQ(legendOf(d), (std::vector<std::string>{"B=8 batch", "T=1024 context", "D=1024 model width",
                                                   "H=16 heads", "Dh=64 head width", "F=4096 MLP hidden",
                                                   "V=50257 vocabulary"}));
}

// named_dims_llama: LLaMA-2-7B's blocks (D = 4096 defined as H·Dh, H = 32, Dh = 128, F = 11,008,
// V = 32,000, no biases, rotary positions), 4 of them, at T = 128 = Dh, B = 4; no `.dims` list.
TEST(DiagramGoldenRealModels, NamedDimsDrawALlamaWhereTEqualsDh) {
  const Diagram d = buildDiagram(traced("named_dims_llama"));
  // logits(): the embedding line, the block loop's call, the head line; layer(): its attention
  // line and its mlp line, twice each (the norm before the call, the residual add after);
  // attention(): the rope line, v, scores, the return line; mlp(): one line: 1 + 4 + 4 + 1 + 1 =
  // 11 shared. lossFn's line: the targets' reshape before the call, the logits' reshape and
  // crossEntropy after it: 2 training-only.
  EXPECT_EQ(d.layerCount(), 13u);
  EXPECT_EQ(boxesOn(d, kBoth), 11u);
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×4"});
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
  // V·D + 4·(2D + 4D² + 3·D·F) + D + D·V.
  constexpr std::int64_t D = 4096, F = 11008, V = 32000;
  EXPECT_EQ(testing::metric(*d.metrics.train, "params").value, V * D + 4 * (2 * D + 4 * D * D + 3 * D * F) + D + D * V);
  // rope hands on the rotated q and k.
  EXPECT_EQ(boxWithLabel(d, "auto [q, k] = rope(").shapes, std::vector<std::string>{"2 × [B, H, T, Dh]"});
  EXPECT_EQ(boxWithLabel(d, "Tensor v = splitHeads(a.v(x), H);").shapes, std::vector<std::string>{"[B, H, T, Dh]"});
  EXPECT_EQ(boxWithLabel(d, "Tensor scores = mul(").shapes, std::vector<std::string>{"[B, H, T, T]"});
  EXPECT_EQ(boxWithLabel(d, "return a.o(mergeHeads(").shapes, std::vector<std::string>{"[B, T, D]"});
  EXPECT_EQ(boxWithLabel(d, "Tensor h = m.embed(tokens);").shapes, std::vector<std::string>{"[B, T, D]"});
  EXPECT_EQ(boxWithLabel(d, "return m.lmHead(m.norm(h));").shapes, std::vector<std::string>{"[B, T, V]"});
  for (const std::string& shape : allShapes(d)) EXPECT_EQ(shape.find('/'), std::string::npos) << shape;
  EXPECT_TRUE(d.collisions.empty());
  // The legend is every dim the model API met: the inputs' first (B, T), then as the layers met
  // them (checked as a set here).
  ASSERT_GE(d.legend.size(), 2u);
  EXPECT_EQ(d.legend[0].name, "B");
  EXPECT_EQ(d.legend[1].name, "T");
  std::vector<std::string> legend = legendOf(d);
  std::sort(legend.begin(), legend.end());
  EXPECT_EQ(legend, (std::vector<std::string>{"B=4 batch", "D=4096 width", "Dh=128 head width",
                                              "F=11008 MLP hidden", "H=32 heads", "T=128 context",
                                              "V=32000 vocabulary"}));
}

// named_dims_cnn: B = 32, C = 3, S = 64 = W, K = 10. conv1 3×3 pad 1 keeps S; the 2×2 pool halves
// it (S/2 = 32 = B); conv2 3×3 stride 2 pad 1 halves it again and widens to 2·W; the spatial
// mean drops both sides.
TEST(DiagramGoldenRealModels, NamedDimsFollowConvolutionArithmetic) {
  const Diagram d = buildDiagram(traced("named_dims_cnn"));
  EXPECT_EQ(boxWithLabel(d, "input: images").shapes, std::vector<std::string>{"[B, C, S, S]"});
  EXPECT_EQ(boxWithLabel(d, "Tensor h = relu(m.bn1(m.conv1(x)));").shapes,
            std::vector<std::string>{"[B, W, S, S]"});
  EXPECT_EQ(boxWithLabel(d, "h = maxPool2d(h, 2);").shapes, std::vector<std::string>{"[B, W, S/2, S/2]"});
  EXPECT_EQ(boxWithLabel(d, "h = relu(m.conv2(h));").shapes, std::vector<std::string>{"[B, 2·W, S/4, S/4]"});
  EXPECT_EQ(boxWithLabel(d, "return mean(h, {-2, -1});").shapes, std::vector<std::string>{"[B, 2·W]"});
  EXPECT_EQ(boxWithLabel(d, "input: labels").shapes, std::vector<std::string>{"[B]"});
  EXPECT_TRUE(d.collisions.empty());
  // conv1 W·C·9 + W, bn1 2W, conv2 2W·W·9 + 2W, fc 2W·K + K.
  EXPECT_EQ(testing::metric(*d.metrics.train, "params").value,
            (64 * 3 * 9 + 64) + 2 * 64 + (128 * 64 * 9 + 128) + (128 * 10 + 10));
}

// ---------------------------------------------------------------------------------------------
// loop_at_first_line: encode() begins inside its loop over 4 levels, as a U-Net's encoder does;
// the head follows the loop in the same call.
TEST(DiagramGoldenRealModels, LoopAtAFunctionsFirstLineFoldsEveryIteration) {
  const Diagram d = buildDiagram(traced("loop_at_first_line"));
  // All four levels in one loop (each return to encode's first line looks like a new call of
  // encode, but the head after the fourth level is no call's start): level()'s line, the mul
  // line, the head: 3 shared boxes; crossEntropy (training), argmax (inference).
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×4"});
  EXPECT_EQ(d.layerCount(), 5u);
  EXPECT_EQ(boxesOn(d, kBoth), 3u);
  // encode's call, the loop, level()'s call.
  EXPECT_EQ(d.clusters.size(), 3u);
  // x→level, level→mul, mul→level (carried into the folded loop), mul→head, head→crossEntropy,
  // labels→crossEntropy, head→argmax.
  EXPECT_EQ(d.edges.size(), 7u);
  EXPECT_EQ(d.carriedEdgeCount(), 1u);
}

// bare_layer_loops: `for (const Linear& l : m.fcs) x = l(x);` over 5 layers and the same over 3
// TransformerEncoderLayers, each line one call instruction; then `m.pair[1](m.pair[0](x))`.
TEST(DiagramGoldenRealModels, LoopOfBareLayerCallsFoldsByItsListElements) {
  const Diagram d = buildDiagram(traced("bare_layer_loops"), {.only = Side::train});
  EXPECT_EQ(loopLabels(d), (std::vector<std::string>{"×5", "×3"}));
  // The two loops' lines, the pair's line (both calls: one box), the head, the loss.
  EXPECT_EQ(d.layerCount(), 5u);
  // encode's call and the two loops.
  EXPECT_EQ(d.clusters.size(), 3u);
  // x→fcs, fcs→fcs (carried), fcs→layers, layers→layers (carried), layers→pair, pair→head,
  // head→loss.
  EXPECT_EQ(d.edges.size(), 7u);
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
  // The folded boxes carry every layer's parameters: 5·(16·16 + 16); an encoder layer's
  // attention 4·16·16 + 4·16, its feed-forward 16·2048 + 2048 + 2048·16 + 16, two norms 4·16.
  std::vector<std::int64_t> loopParams;
  for (const Node& n : d.nodes) {
    if (n.cluster >= 0 && d.clusters[static_cast<std::size_t>(n.cluster)].kind == Cluster::Kind::loop && n.cost.train) {
      loopParams.push_back(n.cost.train->params);
    }
  }
  EXPECT_EQ(loopParams, (std::vector<std::int64_t>{5 * (16 * 16 + 16),
                                                   3 * ((4 * 16 * 16 + 4 * 16) + (16 * 2048 + 2048 + 2048 * 16 + 16) + 4 * 16)}));
}

// shared_layer_loops: one layer called again on one line, its weights shared by every iteration
// (ALBERT's loop): `x = m.fc(x)` ×4, `x = m.layer(x)` ×3 (a TransformerEncoderLayer, whose
// attention reads in_proj_weight three times per call), `x = m.lstm(x)` ×2 (weight_hh read at
// every step).
TEST(DiagramGoldenRealModels, LoopCallingOneSharedLayerFolds) {
  const Diagram d = buildDiagram(traced("shared_layer_loops"), {.only = Side::train});
  EXPECT_EQ(loopLabels(d), (std::vector<std::string>{"×4", "×3", "×2"}));
  // The three loops' lines, the head, the loss.
  EXPECT_EQ(d.layerCount(), 5u);
  // encode's call and the three loops.
  EXPECT_EQ(d.clusters.size(), 4u);
  // x→fc, fc→fc (carried), fc→layer, layer→layer (carried), layer→lstm, lstm→lstm (carried),
  // lstm→head, head→loss.
  EXPECT_EQ(d.edges.size(), 8u);
  EXPECT_EQ(d.carriedEdgeCount(), 3u);
  // A folded box holds its layer's parameters once (every iteration reads the same ones) and
  // every iteration's FLOPs (2 per multiply-add; B·T = 24 rows): fc 16·16 + 16 parameters,
  // 4 · 24 · 16 · 16 · 2 FLOPs; the encoder layer 4·16·16 + 4·16 (attention) +
  // 16·2048 + 2048 + 2048·16 + 16 (feed-forward) + 4·16 (norms); the LSTM
  // 4·16·16 · 2 + 4·16 · 2.
  std::vector<std::int64_t> loopParams, loopFlops;
  for (const Node& n : d.nodes) {
    if (n.cluster >= 0 && d.clusters[static_cast<std::size_t>(n.cluster)].kind == Cluster::Kind::loop && n.cost.train) {
      loopParams.push_back(n.cost.train->params);
      loopFlops.push_back(n.cost.train->flops);
    }
  }
  EXPECT_EQ(loopParams, (std::vector<std::int64_t>{16 * 16 + 16,
                                                   (4 * 16 * 16 + 4 * 16) + (16 * 2048 + 2048 + 2048 * 16 + 16) + 4 * 16,
                                                   4 * 16 * 16 * 2 + 4 * 16 * 2}));
  EXPECT_EQ(loopFlops.at(0), 4 * 24 * 16 * 16 * 2);
}

// first_call_shorter: block 0 runs only `h = relu(b.conv(x));`, blocks 1-3 that line and the
// residual add. The loop is blocks 1-3, each a whole call; block 0's conv stands before it.
TEST(DiagramGoldenRealModels, LoopOverCallsAfterAShorterFirstCallFoldsWholeCalls) {
  const Diagram d = buildDiagram(traced("first_call_shorter"), {.only = Side::train});
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×3"});
  // Block 0's conv, the loop's conv and add, the loss.
  EXPECT_EQ(d.layerCount(), 4u);
  // forward's call, block's calls, the loop.
  EXPECT_EQ(d.clusters.size(), 3u);
  // The loop holds one conv box and one add box; block 0's conv is outside it.
  std::vector<std::string> inLoop, outside;
  for (const Node& n : d.nodes) {
    const bool looped = n.cluster >= 0 && d.clusters[static_cast<std::size_t>(n.cluster)].kind == Cluster::Kind::loop;
    (looped ? inLoop : outside).push_back(n.label);
  }
  EXPECT_EQ(inLoop, (std::vector<std::string>{"Tensor h = relu(b.conv(x));", "if (b.residual) h = add(x, h);"}));
  EXPECT_EQ(std::count(outside.begin(), outside.end(), "Tensor h = relu(b.conv(x));"), 1);
  // x→conv0, conv0→conv, conv→add, conv0→add (the residual of block 1), add→conv (carried),
  // add→add (the residual, carried), add→loss.
  EXPECT_EQ(d.edges.size(), 7u);
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
}

// skipped_first_line: MobileNetV2's blocks, whose first block skips the block's first line. Each
// call is drawn whole: b0 (dw, project), b1 (expand, dw, project), the residual blocks b2 and b3 as
// one ×2, b4 (a stride: no add), b5 (with its add). Before, the calls were cut where the second
// line ran, and nothing folded.
TEST(DiagramGoldenRealModels, CallsWhoseFirstSkipsTheFirstLineFoldWhole) {
  const Diagram d = buildDiagram(traced("skipped_first_line"), {.only = Side::train});
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×2"});
  // 2 + 3 + 4 (the loop) + 3 + 4 block boxes, and the loss.
  EXPECT_EQ(d.layerCount(), 17u);
  // forward's call, block's calls, the loop.
  EXPECT_EQ(d.clusters.size(), 3u);
  const std::string expand = "if (b.hasExpand) h = relu(b.expand(h));", dw = "h = relu(b.dw(h));",
                    project = "h = b.project(h);", residual = "if (b.useRes) h = add(x, h);";
  std::vector<std::string> inLoop, outside;
  for (const Node& n : d.nodes) {
    const bool looped = n.cluster >= 0 && d.clusters[static_cast<std::size_t>(n.cluster)].kind == Cluster::Kind::loop;
    (looped ? inLoop : outside).push_back(n.label);
  }
  EXPECT_EQ(inLoop, (std::vector<std::string>{expand, dw, project, residual}));
  // The input, b0, b1, b4, b5 in order, the loss.
  EXPECT_EQ(outside, (std::vector<std::string>{"input: x", dw, project, expand, dw, project, expand, dw, project, expand,
                                               dw, project, residual,
                                               "Tensor lossFn(Net& m, const Inputs& in) { return mean(forward(m, in[\"x\"])); }"}));
  // The chain x → b0 (2) → b1 (3) → loop (exp → dw → project → add, and b1's project → add)
  // → b4 (3) → b5 (4, and b4's project → add) → loss: 21 edges, of which add → expand and
  // add → add carried into the next round.
  EXPECT_EQ(d.edges.size(), 21u);
  EXPECT_EQ(d.carriedEdgeCount(), 2u);
}

// loop_skips_first_line: one call whose loop pools before every stage but the first, then a head.
// Its lines go back at each round as at new calls, but the head past every earlier line says it is
// one call: the rounds fold as they did before calls were read from their lines going back
// (×2 of a, b and the pool, then the last stage's a and b, and the head).
TEST(DiagramGoldenRealModels, ALoopSkippingItsFirstLineInOneCallStillFolds) {
  const Diagram d = buildDiagram(traced("loop_skips_first_line"), {.only = Side::train});
  EXPECT_EQ(loopLabels(d), std::vector<std::string>{"×2"});
  const std::string a = "x = relu(m.stages[i].a(x));", b = "x = relu(m.stages[i].b(x));",
                    pool = "if (i > 0) x = maxPool2d(x, 2);";
  std::vector<std::string> inLoop, outside;
  for (const Node& n : d.nodes) {
    const bool looped = n.cluster >= 0 && d.clusters[static_cast<std::size_t>(n.cluster)].kind == Cluster::Kind::loop;
    (looped ? inLoop : outside).push_back(n.label);
  }
  EXPECT_EQ(inLoop, (std::vector<std::string>{a, b, pool}));
  EXPECT_EQ(outside, (std::vector<std::string>{"input: x", a, b, "return m.fc(flatten(x, 1));",
                                               "Tensor lossFn(Net& m, const Inputs& in) { return mean(forward(m, in[\"x\"])); }"}));
  EXPECT_EQ(d.layerCount(), 7u);
}

// fan_out_reads: `bias` is added after each of 40 gelus, every line its own box: 81 boxes in a
// chain, and 40 edges from `bias` reaching down it. Graphviz's virtual nodes for those edges
// count towards the size at which the DOT bounds the layout.
TEST(DiagramGoldenRealModels, LongEdgesAskForTheBoundedLayout) {
  const Diagram d = buildDiagram(traced("fan_out_reads"), {.only = Side::train});
  // proj, 40 gelus, 40 adds, the loss.
  EXPECT_EQ(d.layerCount(), 82u);
  // Ranks: x and bias 0, proj 1, gelu k (k = 1..40) at 2k, add k at 2k + 1, the loss 82. The
  // edge into add k from bias spans 2k + 1 ranks (2k virtual nodes): 2·(1 + … + 40) = 1,640.
  EXPECT_EQ(detail::virtualNodeEstimate(d), 1640u);
  EXPECT_NE(d.dot.find("nslimit=0.5 nslimit1=0.5 newrank=true"), std::string::npos);
}

// huge_metrics: a legal model whose FLOPs pass 2^63. The diagram says so as an overflow_error, the
// server's 422 (the user's to fix), not an internal error.
TEST(DiagramGoldenRealModels, AModelTooLargeToCountSaysSo) {
  try {
    (void)buildDiagram(traced("huge_metrics"));
    FAIL() << "no error";
  } catch (const std::overflow_error& e) {
    EXPECT_NE(std::string(e.what()).find("overflows 64 bits: the model's parameter, FLOP or memory counts pass 2^63"),
              std::string::npos)
        << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// shared_encoder_loops: encode() loops over its 3 layers; training calls it twice (a siamese
// pair), inference once per step of a 5-step sampling loop. Each call's layer loop folds,
// although the other calls read the same layers.
TEST(DiagramGoldenRealModels, LoopOverWeightsSharedWithOtherCallsFolds) {
  const ir::TracedModel model = traced("shared_encoder_loops");
  {
    const Diagram train = buildDiagram(model, {.only = Side::train});
    // Per call: in_proj, the layer line and tanh folded ×3, out_proj (4 boxes); the loss line.
    auto labels = loopLabels(train);
    EXPECT_EQ(labels, (std::vector<std::string>{"×3", "×3"}));
    EXPECT_EQ(train.layerCount(), 9u);
  }
  {
    const Diagram infer = buildDiagram(model, {.only = Side::infer});
    // The sampling steps ×5 around encode's call and the sub/mul line; inside the call, the
    // layers ×3: in_proj, the layer line, tanh, out_proj and the sampling line.
    auto labels = loopLabels(infer);
    std::sort(labels.begin(), labels.end());
    EXPECT_EQ(labels, (std::vector<std::string>{"×3", "×5"}));
    EXPECT_EQ(infer.layerCount(), 5u);
  }
}

// ---------------------------------------------------------------------------------------------
// The output shapes of a graph's ops of one kind, in op order.
std::vector<Shape> shapesOf(const ir::Graph& g, ir::OpKind kind) {
  std::vector<Shape> out;
  for (const ir::Op& op : g.ops) {
    if (op.kind == kind) out.push_back(g.tensor(op.out).shape);
  }
  return out;
}

// groupnorm_cnn: B=4 images 3×32×32; conv1 3 → 32 (3×3, padding 1) → 32×32, GroupNorm(8, 32),
// ReLU; conv2 32 → 64 (3×3, stride 2, padding 1) → 16×16, GroupNorm(8, 64), ReLU;
// adaptiveAvgPool2d to 1×1; Linear 64 → 10.
TEST(DiagramGoldenRealModels, GroupNormCnnWithGlobalAveragePoolingCountsByHand) {
  const ir::TracedModel model = traced("groupnorm_cnn");
  constexpr std::int64_t B = 4;
  EXPECT_EQ(shapesOf(model.infer, ir::OpKind::group_norm), (std::vector<Shape>{{B, 32, 32, 32}, {B, 64, 16, 16}}));
  // Global average pooling is one avg_pool2d with a 16×16 window.
  EXPECT_EQ(shapesOf(model.infer, ir::OpKind::avg_pool2d), (std::vector<Shape>{{B, 64, 1, 1}}));
  EXPECT_EQ(model.infer.tensor(model.infer.outputs.at(0)).shape, (Shape{B, 10}));
  const Diagram d = buildDiagram(model);
  // conv1 32·3·9 + 32 = 896; gn1 2·32 = 64; conv2 64·32·9 + 64 = 18,496; gn2 2·64 = 128;
  // head 64·10 + 10 = 650.
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 896 + 64 + 18'496 + 128 + 650);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 20'234);
  // FLOPs per image (2 · output elements · window): conv1 2·(32·32·32)·(3·9) = 1,769,472;
  // conv2 2·(64·16·16)·(32·9) = 9,437,184; head 2·10·64 = 1,280. GroupNorm and pooling count
  // none (only matrix multiplies and convolutions do).
  constexpr std::int64_t conv1 = 1'769'472, conv2 = 9'437'184, head = 1'280;
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), B * (conv1 + conv2 + head));
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 44'831'744);
  // Backward: the images need no gradient, so conv1 has only its weight gradient; conv2 and the
  // head have both (each as many FLOPs as its forward).
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), B * (conv1 + conv2 + head + conv1 + 2 * conv2 + 2 * head));
  // Kernels: per conv block conv2d, the bias add, group_norm, relu (4 · 2); avg_pool2d; the
  // head's matmul and add. Reshapes are views.
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 11);
  // Activations (elements per image): block 1 four tensors of 32·32·32, block 2 four of
  // 64·16·16, the pooled 64, matmul and add 10 each; training adds the scalar loss.
  constexpr std::int64_t acts = 4 * 32 * 32 * 32 + 4 * 64 * 16 * 16 + 64 + 2 * 10;
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"), B * acts * 4);
  EXPECT_EQ(value(d.metrics, Side::train, "activations"), (B * acts + 1) * 4);
}

// conv_transpose_decoder: B=2 codes of 16 → Linear to 64·4·4 → ConvTranspose2d 64 → 32 (4×4,
// stride 2, padding 1) → 8×8 → 32 → 16 (3×3, stride 2, padding 1, outputPadding 1) → 16×16 →
// 16 → 3 (2×2, stride 2, no bias) → 32×32.
TEST(DiagramGoldenRealModels, ConvTransposeDecoderShapesParamsAndFlops) {
  const ir::TracedModel model = traced("conv_transpose_decoder");
  constexpr std::int64_t B = 2;
  EXPECT_EQ(shapesOf(model.infer, ir::OpKind::conv_transpose2d),
            (std::vector<Shape>{{B, 32, 8, 8}, {B, 16, 16, 16}, {B, 3, 32, 32}}));
  EXPECT_EQ(model.infer.tensor(model.infer.outputs.at(0)).shape, (Shape{B, 3, 32, 32}));
  std::vector<Shape> weights;
  for (const ir::Param& p : model.train.params) {
    if (p.name.ends_with(".weight") && p.name.starts_with("up")) weights.push_back(model.train.tensor(p.tensor).shape);
  }
  // PyTorch's layout: [inC, outC/groups, kH, kW].
  EXPECT_EQ(weights, (std::vector<Shape>{{64, 32, 4, 4}, {32, 16, 3, 3}, {16, 3, 2, 2}}));
  const Diagram d = buildDiagram(model);
  // fc 16·1024 + 1024 = 17,408; up1 64·32·16 + 32 = 32,800; up2 32·16·9 + 16 = 4,624; up3
  // 16·3·4 = 192.
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 17'408 + 32'800 + 4'624 + 192);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 55'024);
  // FLOPs per code, as the convolution each transposes (2 · input elements · outC · kH·kW): up1
  // 2·(64·4·4)·32·16 = 1,048,576 (= conv 32 → 64, 4×4, on 8×8: 2·(64·4·4)·(32·16)); up2
  // 2·(32·8·8)·16·9 = 589,824; up3 2·(16·16·16)·3·4 = 98,304; fc 2·1024·16 = 32,768.
  constexpr std::int64_t up1 = 1'048'576, up2 = 589'824, up3 = 98'304, fc = 32'768;
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), B * (up1 + up2 + up3 + fc));
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 3'538'944);
  // Backward: z needs no gradient (fc: weight gradient only); each transposed convolution has
  // an input gradient (a conv2d) and a weight gradient, each its forward's FLOPs.
  EXPECT_EQ(value(d.metrics, Side::train, "flops"), B * (up1 + up2 + up3 + fc + fc + 2 * (up1 + up2 + up3)));
}

// squeezenet1_0 (torchvision): ceil_mode max pools 3×3/2 keep a last, partial window: 109 -> 54
// ((109 - 3)/2 exact), 54 -> 27 (51/2 rounded up; floor gives 26), 27 -> 13 (24/2 exact).
TEST(DiagramGoldenRealModels, SqueezeNetCeilModePoolsGiveTorchvisionsShapesAndCounts) {
  const ir::TracedModel model = traced("squeezenet1_0");
  constexpr std::int64_t B = 1;
  EXPECT_EQ(shapesOf(model.infer, ir::OpKind::max_pool2d),
            (std::vector<Shape>{{B, 96, 54, 54}, {B, 256, 27, 27}, {B, 512, 13, 13}}));
  EXPECT_EQ(model.infer.tensor(model.infer.outputs.at(0)).shape, (Shape{B, 1000}));
  const Diagram d = buildDiagram(model);
  // Fire(in, s, e1, e3): squeeze in·s + s, expand1x1 s·e1 + e1, expand3x3 s·e3·9 + e3.
  constexpr auto fireParams = [](std::int64_t in, std::int64_t s, std::int64_t e1, std::int64_t e3) {
    return in * s + s + s * e1 + e1 + s * e3 * 9 + e3;
  };
  constexpr std::int64_t conv1Params = 96 * 3 * 49 + 96, classifierParams = 512 * 1000 + 1000;
  constexpr std::int64_t params = conv1Params + fireParams(96, 16, 64, 64) + fireParams(128, 16, 64, 64) +
                                  fireParams(128, 32, 128, 128) + fireParams(256, 32, 128, 128) +
                                  fireParams(256, 48, 192, 192) + fireParams(384, 48, 192, 192) +
                                  fireParams(384, 64, 256, 256) + fireParams(512, 64, 256, 256) + classifierParams;
  EXPECT_EQ(value(d.metrics, Side::train, "params"), params);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 1'248'424);  // torchvision's count
  // FLOPs per image, 2 · output elements · inputs per output, at each Fire's side S.
  constexpr auto fireFlops = [](std::int64_t in, std::int64_t s, std::int64_t e1, std::int64_t e3, std::int64_t S) {
    return 2 * S * S * (s * in + e1 * s + e3 * s * 9);
  };
  constexpr std::int64_t conv1 = 2 * (96 * 109 * 109) * (3 * 49), classifier = 2 * (1000 * 13 * 13) * 512;
  constexpr std::int64_t fires = fireFlops(96, 16, 64, 64, 54) + fireFlops(128, 16, 64, 64, 54) +
                                 fireFlops(128, 32, 128, 128, 54) + fireFlops(256, 32, 128, 128, 27) +
                                 fireFlops(256, 48, 192, 192, 27) + fireFlops(384, 48, 192, 192, 27) +
                                 fireFlops(384, 64, 256, 256, 27) + fireFlops(512, 64, 256, 256, 13);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), B * (conv1 + fires + classifier));
  // 0.82 G multiply-adds: torchvision's published figure for squeezenet1_0 (0.82 "GFLOPS").
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 1'637'849'152);
}

// ESPCN ×3 (PyTorch's super-resolution example): pixelShuffle turns conv4's [B, 9, 85, 85] into
// the [B, 1, 255, 255] image, one copy kernel that holds its output; no FLOPs of its own.
TEST(DiagramGoldenRealModels, EspcnPixelShuffleIsOneKernelAndHoldsTheUpscaledImage) {
  const ir::TracedModel model = traced("espcn");
  constexpr std::int64_t B = 1;
  EXPECT_EQ(shapesOf(model.infer, ir::OpKind::pixel_shuffle), (std::vector<Shape>{{B, 1, 255, 255}}));
  EXPECT_EQ(model.infer.tensor(model.infer.outputs.at(0)).shape, (Shape{B, 1, 255, 255}));
  const Diagram d = buildDiagram(model);
  // in·out·k² + out: 1·64·25 + 64, 64·64·9 + 64, 64·32·9 + 32, 32·9·9 + 9.
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 1'664 + 36'928 + 18'464 + 2'601);
  // 2 · output elements · inputs per output, all at 85×85 = 7,225.
  constexpr std::int64_t px = 85 * 85;
  constexpr std::int64_t conv1 = 2 * (64 * px) * 25, conv2 = 2 * (64 * px) * (64 * 9),
                         conv3 = 2 * (32 * px) * (64 * 9), conv4 = 2 * (9 * px) * (32 * 9);
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), B * (conv1 + conv2 + conv3 + conv4));
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 859'601'600);
  // Training: conv2-conv4 need input and weight gradients, conv1 (on the data) its weight's only.
  EXPECT_EQ(value(d.metrics, Side::train, "flops"),
            B * (conv1 + conv2 + conv3 + conv4 + 2 * (conv2 + conv3 + conv4) + conv1));
  // Inference kernels: 4 · (conv, bias add) + 3 relu + the shuffle = 12 (the bias reshapes are
  // views); without the shuffle's kernel it would be 11.
  EXPECT_EQ(value(d.metrics, Side::infer, "kernels"), 12);
  // Activations: conv, add, relu at [64, 85, 85] twice and at [32, 85, 85]; conv4 and its add at
  // [9, 85, 85]; the shuffled image [1, 255, 255] (as many elements as conv4's output).
  EXPECT_EQ(value(d.metrics, Side::infer, "activations"), B * (6 * 64 * px + 3 * 32 * px + 3 * 9 * px) * 4);
}

// The Nature DQN (Breakout, 4 actions): 1,686,180 parameters, the figure usually quoted for it;
// the convolutions take 84 -> (84 - 8)/4 + 1 = 20 -> (20 - 4)/2 + 1 = 9 -> 9 - 3 + 1 = 7.
TEST(DiagramGoldenRealModels, NatureDqnHasItsParametersAndFlops) {
  const ir::TracedModel model = traced("dqn_nature");
  constexpr std::int64_t B = 32;
  EXPECT_EQ(shapesOf(model.infer, ir::OpKind::conv2d),
            (std::vector<Shape>{{B, 32, 20, 20}, {B, 64, 9, 9}, {B, 64, 7, 7}}));
  EXPECT_EQ(model.infer.tensor(model.infer.outputs.at(0)).shape, (Shape{B, 4}));
  const Diagram d = buildDiagram(model);
  // conv1 4·32·64 + 32, conv2 32·64·16 + 64, conv3 64·64·9 + 64, fc1 3136·512 + 512, fc2 512·4 + 4.
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 8'224 + 32'832 + 36'928 + 1'606'144 + 2'052);
  EXPECT_EQ(value(d.metrics, Side::train, "params"), 1'686'180);
  // Per state: 2 · output elements · inputs per output.
  constexpr std::int64_t conv1 = 2 * (32 * 20 * 20) * (4 * 64), conv2 = 2 * (64 * 9 * 9) * (32 * 16),
                         conv3 = 2 * (64 * 7 * 7) * (64 * 9), fc1 = 2 * 3136 * 512, fc2 = 2 * 512 * 4;
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), B * (conv1 + conv2 + conv3 + fc1 + fc2));
  EXPECT_EQ(value(d.metrics, Side::infer, "flops"), 598'081'536);
  // Backward: every layer's weight gradient, and the input gradient of all but conv1 (its input
  // is the frames); the Huber loss and the taken action's gather count no FLOPs.
  EXPECT_EQ(value(d.metrics, Side::train, "flops"),
            B * (conv1 + conv2 + conv3 + fc1 + fc2 + 2 * (conv2 + conv3 + fc1 + fc2) + conv1));
}

}  // namespace
}  // namespace nndna::diagram
