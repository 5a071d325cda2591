// Goldens of the model summary (include/nndna/summary.hpp, docs/summary.md): the per-module table
// and the memory estimate of a CNN, GPT-2 small and LLaMA-2-7B, every figure derived by hand next
// to it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

#include "nndna/summary.hpp"
#include "test_support.hpp"

namespace nndna::diagram {
namespace {

using testing::traced;

const SummaryRow& row(const SideSummary& s, std::string_view path) {
  auto it = std::find_if(s.rows.begin(), s.rows.end(), [&](const SummaryRow& r) { return r.path == path; });
  if (it == s.rows.end()) throw std::runtime_error("no row " + std::string(path));
  return *it;
}

std::int64_t itemBytes(const std::vector<MemoryItem>& items, std::string_view key) {
  auto it = std::find_if(items.begin(), items.end(), [&](const MemoryItem& i) { return i.key == key; });
  if (it == items.end()) throw std::runtime_error("no memory item " + std::string(key));
  return it->bytes;
}

std::vector<std::string> keys(const std::vector<MemoryItem>& items) {
  std::vector<std::string> out;
  for (const MemoryItem& i : items) out.push_back(i.key);
  return out;
}

// ---------------------------------------------------------------------------------------------
// cnn_digits (examples/cnn_digits.cpp): B = 256 images 1×28×28; conv1 (no bias) → bn1 → relu →
// pool; conv2 → bn2 → relu → pool; reshape, fc1, relu, dropout (training), fc2; SGD with Nesterov
// momentum.
TEST(Summary, CnnRowsPerLayer) {
  const Summary s = summarize(traced("cnn_digits"));
  // The model, then its six layers in registration order (no deeper modules).
  std::vector<std::string> paths;
  for (const SummaryRow& r : s.train.rows) paths.push_back(r.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"", "conv1", "bn1", "conv2", "bn2", "fc1", "fc2"}));
  const SummaryRow& conv1 = row(s.train, "conv1");
  EXPECT_EQ(conv1.depth, 1);
  EXPECT_EQ(conv1.params, 32 * 1 * 3 * 3);
  EXPECT_EQ(conv1.output, (Shape{256, 32, 28, 28}));
  EXPECT_EQ(conv1.flops, 2LL * (256 * 32 * 28 * 28) * (1 * 3 * 3));  // 2·|out|·inC·kH·kW
  EXPECT_EQ(conv1.activationBytes, 256LL * 32 * 28 * 28 * 4);     // the conv's output
  const SummaryRow& bn1 = row(s.train, "bn1");
  EXPECT_EQ(bn1.params, 2 * 32);  // weight and bias; the running statistics are buffers
  EXPECT_EQ(bn1.flops, 0);
  EXPECT_EQ(bn1.activationBytes, 256LL * 32 * 28 * 28 * 4);  // the normalised output
  const SummaryRow& fc1 = row(s.train, "fc1");
  EXPECT_EQ(fc1.params, 3136 * 128 + 128);
  EXPECT_EQ(fc1.output, (Shape{256, 128}));
  EXPECT_EQ(fc1.flops, 2LL * 256 * 3136 * 128);
  EXPECT_EQ(fc1.activationBytes, 2 * 256 * 128 * 4);  // matmul and bias add
  const SummaryRow& fc2 = row(s.train, "fc2");
  EXPECT_EQ(fc2.output, (Shape{256, 10}));
  EXPECT_EQ(fc2.activationBytes, 2 * 256 * 10 * 4);
  // The model row holds everything: the relus, pools, dropout and cross-entropy read no
  // parameter and run in classify(), whose call reads every layer, so they are the model's own.
  const SummaryRow& model = s.train.rows.at(0);
  EXPECT_EQ(model.output, Shape{});  // the loss
  EXPECT_EQ(model.params, 421'738);  // as the diagram's golden
  EXPECT_EQ(model.flops, 2'171'469'824);
  // conv1, bn1, relu [256,32,28,28] 3·6,422,528; pool 1,605,632; conv2, bn2, relu 3·3,211,264;
  // pool 802,816; fc1 matmul, add, relu 3·32,768; dropout 32,768; fc2 2·2,560; cross-entropy 1.
  const std::int64_t trainActs =
      3 * 6'422'528 + 1'605'632 + 3 * 3'211'264 + 802'816 + 3 * 32'768 + 32'768 + 2 * 2'560 + 1;
  EXPECT_EQ(model.activationBytes, trainActs * 4);
  const std::int64_t ownActs = 6'422'528 + 1'605'632 + 3'211'264 + 802'816 + 32'768 + 32'768 + 1;
  std::int64_t children = 0;
  for (const SummaryRow& r : s.train.rows) children += r.depth == 1 ? r.activationBytes : 0;
  EXPECT_EQ(model.activationBytes - children, ownActs * 4);
  // Step FLOPs: the diagram's golden (forward + backward).
  EXPECT_EQ(s.stepFlops, 6'398'803'968);
  // The inference table has no dropout and no loss: the prediction [256, 10].
  ASSERT_TRUE(s.infer);
  EXPECT_EQ(s.infer->rows.at(0).output, (Shape{256, 10}));
  EXPECT_EQ(s.infer->rows.at(0).activationBytes, (trainActs - 32'768 - 1) * 4);
}

// composite_layer_rows: B = 4, T = 5, E = 8 (2 heads of 4), H = 6. A layer made of several ops
// keeps all of them in its row: attention's scores and weighted sum, the LSTM's gates and its
// stacked output (the call's last tensor, after h_n and c_n), BatchNorm1d's views back to
// [N, C, L].
TEST(Summary, LayersOfSeveralOpsHoldAllOfThem) {
  const Summary s = summarize(traced("composite_layer_rows"));
  // attn: in_proj 2·(B·T)·E·3E = 7,680; scores and weighted sum 2 · 2·B·heads·T·T·(E/heads) =
  // 3,200; out_proj 2·(B·T)·E·E = 2,560.
  EXPECT_EQ(row(s.train, "attn").flops, 7'680 + 3'200 + 2'560);
  EXPECT_EQ(row(s.train, "attn").output, (Shape{4, 5, 8}));
  // rnn: the input projection 2·(B·T)·E·4H = 7,680, each of the T steps 2·B·H·4H = 1,152.
  EXPECT_EQ(row(s.train, "rnn").flops, 7'680 + 5 * 1'152);
  EXPECT_EQ(row(s.train, "rnn").output, (Shape{4, 5, 6}));
  EXPECT_EQ(row(s.train, "rnn").params, 4 * 6 * (8 + 6) + 2 * 4 * 6);
  EXPECT_EQ(row(s.train, "bn").output, (Shape{4, 6, 5}));
  EXPECT_EQ(row(s.train, "bn").params, 2 * 6);
  EXPECT_EQ(row(s.train, "head").output, (Shape{4, 5, 1}));
  EXPECT_EQ(row(s.train, "head").flops, 2 * 20 * 6);
}

// bare_layer_loops: a loop whose body is one layer call gives each list element its own row.
TEST(Summary, ALoopOfOneLayerCallGivesEachElementItsRow) {
  const Summary s = summarize(traced("bare_layer_loops"));
  // B·T = 24 rows of D = 16: each fcs.k 2·24·16·16.
  for (int k = 0; k < 5; ++k) EXPECT_EQ(row(s.train, "fcs." + std::to_string(k)).flops, 12'288) << k;
  // Each encoder layer: in_proj 2·24·16·48 = 36,864, scores and weighted sum 2·(2·4·2·6·6·8) =
  // 9,216, out_proj 12,288, the feed-forward 2 · 2·24·16·2048 = 3,145,728; its attention's own
  // row the projections.
  for (int k = 0; k < 3; ++k) {
    const std::string layer = "layers." + std::to_string(k);
    EXPECT_EQ(row(s.train, layer).flops, 36'864 + 9'216 + 12'288 + 3'145'728) << layer;
    EXPECT_EQ(row(s.train, layer + ".self_attn").flops, 36'864 + 12'288) << layer;
    EXPECT_EQ(row(s.train, layer).output, (Shape{4, 6, 16})) << layer;
  }
}

TEST(Summary, CnnMemoryF32) {
  const Summary s = summarize(traced("cnn_digits"));
  const MemoryEstimate& m = s.memory;
  constexpr std::int64_t P = 421'738;
  EXPECT_EQ(keys(m.training),
            (std::vector<std::string>{"parameters", "gradients", "optimizer_state", "buffers", "activations"}));
  EXPECT_EQ(itemBytes(m.training, "parameters"), P * 4);  // 1,686,952
  EXPECT_EQ(itemBytes(m.training, "gradients"), P * 4);
  EXPECT_EQ(itemBytes(m.training, "optimizer_state"), P * 4);  // SGD momentum: one buffer per weight
  EXPECT_EQ(itemBytes(m.training, "buffers"), (2 * 32 + 2 * 64) * 4);  // running mean and variance
  const std::int64_t trainActs =
      3 * 6'422'528 + 1'605'632 + 3 * 3'211'264 + 802'816 + 3 * 32'768 + 32'768 + 2 * 2'560 + 1;
  EXPECT_EQ(itemBytes(m.training, "activations"), trainActs * 4);  // 125,784,068
  EXPECT_EQ(m.trainingTotal, 3 * P * 4 + 192 * 4 + trainActs * 4);
  EXPECT_EQ(m.trainingTotal, 130'845'692);
  EXPECT_EQ(keys(m.inference), (std::vector<std::string>{"weights", "buffers", "activations"}));
  EXPECT_FALSE(m.kvCache);  // no attention
  EXPECT_EQ(m.inferenceTotal, P * 4 + 192 * 4 + (trainActs - 32'768 - 1) * 4);
}


// ---------------------------------------------------------------------------------------------
// gpt2_small (examples/gpt2_small.cpp): B = 8, T = 1024, D = 768, H = 12 heads of 64, F = 3072,
// V = 50,257, 12 pre-LayerNorm blocks, token embedding tied to the logits, AdamW.
constexpr std::int64_t kB = 8, kT = 1024, kD = 768, kH = 12, kDh = 64, kF = 3072, kV = 50'257;
constexpr std::int64_t BTD = kB * kT * kD, BHTT = kB * kH * kT * kT, BTF = kB * kT * kF;

TEST(Summary, Gpt2SmallRowsNestByPath) {
  const Summary s = summarize(traced("gpt2_small"));
  // The model (tok_emb is its own), pos_emb, layers, per block 11 (the block, ln1, attn and its
  // q, k, v, proj, ln2, mlp and its fc, proj), ln_f: 3 + 12·11 + 1.
  EXPECT_EQ(s.train.rows.size(), 3u + 12 * 11 + 1);
  EXPECT_EQ(s.train.rows[1].path, "pos_emb");
  EXPECT_EQ(s.train.rows[2].path, "layers");
  EXPECT_EQ(s.train.rows[3].path, "layers.0");
  EXPECT_EQ(s.train.rows[4].path, "layers.0.ln1");
  EXPECT_EQ(s.train.rows[5].path, "layers.0.attn");
  EXPECT_EQ(s.train.rows[6].path, "layers.0.attn.q");
  EXPECT_EQ(s.train.rows[6].depth, 4);
  EXPECT_EQ(s.train.rows[6].name, "q");
  EXPECT_EQ(s.train.rows.back().path, "ln_f");
  // Parameters: tok_emb V·D, pos_emb T·D, per block 2·D (ln1) + 4·(D² + D) (attn) + 2·D (ln2)
  // + (D·F + F) + (F·D + D) (mlp) = 7,087,872, ln_f 2·D: 124,439,808, GPT-2's published count.
  EXPECT_EQ(s.params, 124'439'808);
  EXPECT_EQ(s.train.rows[0].params, 124'439'808);
  EXPECT_EQ(row(s.train, "layers").params, 12 * 7'087'872);
  EXPECT_EQ(row(s.train, "layers.0").params, 7'087'872);
  EXPECT_EQ(row(s.train, "layers.0.attn").params, 4 * (kD * kD + kD));
  EXPECT_EQ(row(s.train, "layers.0.attn.q").params, kD * kD + kD);
  // Attention: q, k, v, proj 4·2·(B·T)·D²; scores and ·v 2·(2·B·H·T·T·Dh).
  const std::int64_t attnFlops = 4 * 2 * (kB * kT) * kD * kD + 2 * (2 * BHTT * kDh);
  const SummaryRow& attn = row(s.train, "layers.0.attn");
  EXPECT_EQ(attn.flops, attnFlops);
  EXPECT_EQ(attn.flops, 64'424'509'440);
  EXPECT_EQ(attn.output, (Shape{kB, kT, kD}));  // proj's bias add
  // Its activations: q, k, v matmul and bias add 6·BTD (splitHeads and swapAxes are views),
  // scores, the 1/√Dh scale and the causal softmax 3·BHTT (they read no parameter: attention()'s
  // call reads only attn's), ·v BTD, mergeHeads (a copy) BTD, proj matmul and add 2·BTD.
  EXPECT_EQ(attn.activationBytes, (10 * BTD + 3 * BHTT) * 4);
  EXPECT_EQ(row(s.train, "layers.0.attn.q").activationBytes, 2 * BTD * 4);
  // The block adds ln1, the two residual adds and ln2 (4·BTD), and the mlp: fc matmul, add and
  // gelu 3·BTF, proj matmul and add 2·BTD.
  const SummaryRow& block = row(s.train, "layers.0");
  EXPECT_EQ(block.activationBytes, (16 * BTD + 3 * BHTT + 3 * BTF) * 4);
  EXPECT_EQ(block.flops, attnFlops + 2 * 2 * (kB * kT) * kD * kF);
  EXPECT_EQ(block.output, (Shape{kB, kT, kD}));
  EXPECT_EQ(row(s.train, "layers").activationBytes, 12 * block.activationBytes);
  // pos_emb: its embedding [T, D] (the arange reads no parameter: gpt()'s, the model's).
  EXPECT_EQ(row(s.train, "pos_emb").activationBytes, kT * kD * 4);
  EXPECT_EQ(row(s.train, "pos_emb").output, (Shape{kT, kD}));
  // The model: token embedding BTD, arange T, pos_emb TD, add BTD, 12 blocks, ln_f BTD, the tied
  // logits B·T·V (a matmul with tok_emb's transpose: the model's own), cross-entropy 1.
  const std::int64_t acts = BTD + kT + kT * kD + BTD + 12 * (16 * BTD + 3 * BHTT + 3 * BTF) + BTD + kB * kT * kV + 1;
  EXPECT_EQ(s.train.rows[0].activationBytes, acts * 4);
  EXPECT_EQ(s.train.rows[0].flops, 12 * block.flops + 2 * (kB * kT) * kD * kV);
  // Every matmul input depends on a parameter: a step is 3 × forward.
  EXPECT_EQ(s.stepFlops, 3 * s.train.rows[0].flops);
}

TEST(Summary, Gpt2SmallMemoryAndKvCache) {
  constexpr std::int64_t P = 124'439'808;
  const std::int64_t trainActs =
      BTD + kT + kT * kD + BTD + 12 * (16 * BTD + 3 * BHTT + 3 * BTF) + BTD + kB * kT * kV + 1;
  const Summary f32 = summarize(traced("gpt2_small"));
  // AdamW: two moments per weight.
  EXPECT_EQ(itemBytes(f32.memory.training, "parameters"), P * 4);  // 497,759,232
  EXPECT_EQ(itemBytes(f32.memory.training, "gradients"), P * 4);
  EXPECT_EQ(itemBytes(f32.memory.training, "optimizer_state"), 2 * P * 4);
  EXPECT_EQ(itemBytes(f32.memory.training, "activations"), trainActs * 4);
  EXPECT_EQ(f32.memory.trainingTotal, 4 * P * 4 + trainActs * 4);
  // KV cache: 12 causal attentions, each keeping k and v ([B, T, D] before splitHeads) per
  // token: 2·B·D = 12,288 values; 12 · 12,288 · 4 bytes = 589,824 bytes per token, and the
  // traced context of 1,024 tokens: 603,979,776 bytes (576 MiB).
  ASSERT_TRUE(f32.memory.kvCache);
  EXPECT_EQ(f32.memory.kvCache->attentions, 12);
  EXPECT_EQ(f32.memory.kvCache->bytesPerToken, 12 * 2 * kB * kD * 4);
  EXPECT_EQ(f32.memory.kvCache->context, 1024);
  EXPECT_EQ(f32.memory.kvCache->bytes, 603'979'776);
  // Inference: weights, the prediction's activations (no cross-entropy), the cache.
  EXPECT_EQ(keys(f32.memory.inference), (std::vector<std::string>{"weights", "activations", "kv_cache"}));
  EXPECT_EQ(itemBytes(f32.memory.inference, "activations"), (trainActs - 1) * 4);
  EXPECT_EQ(f32.memory.inferenceTotal, P * 4 + (trainActs - 1) * 4 + 603'979'776);

  // f16 with mixed precision: 16-bit weights, gradients and activations; f32 master weights and
  // moments: 2P + 2P + 4P + 8P = 16 bytes per weight.
  const Summary mixed = summarize(traced("gpt2_small"), {.dtype = MemoryDtype::f16, .mixedPrecision = true,
                                                         .context = 2048});
  EXPECT_EQ(keys(mixed.memory.training), (std::vector<std::string>{"parameters", "gradients", "master_weights",
                                                                   "optimizer_state", "activations"}));
  EXPECT_EQ(itemBytes(mixed.memory.training, "master_weights"), P * 4);
  EXPECT_EQ(itemBytes(mixed.memory.training, "optimizer_state"), 2 * P * 4);
  EXPECT_EQ(mixed.memory.trainingTotal, 16 * P + trainActs * 2);
  // The cache at 2,048 tokens in f16: 12 · 12,288 · 2 bytes · 2,048.
  EXPECT_EQ(mixed.memory.kvCache->bytes, 12 * 12'288 * 2 * 2048);
  EXPECT_EQ(mixed.memory.kvCache->bytes, 603'979'776);
}

TEST(Summary, InvalidMemoryOptions) {
  const ir::TracedModel model = traced("cnn_digits");
  EXPECT_THROW(summarize(model, {.dtype = MemoryDtype::f32, .mixedPrecision = true}), std::invalid_argument);
  EXPECT_THROW(summarize(model, {.context = 0}), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// LLaMA-2-7B (specs/llama2_7b.cpp): V = 32,000, D = 4,096, 32 layers, F = 11,008, no biases,
// RMSNorm weights only, untied lm_head; one sequence of 4,096 tokens; AdamW.
TEST(Summary, Llama2SevenB) {
  const Summary s = summarize(traced("llama2_7b"), {.dtype = MemoryDtype::bf16});
  // embed 32,000·4,096 = 131,072,000; per layer q, k, v, o 4·4,096² = 67,108,864, gate, up,
  // down 3·4,096·11,008 = 135,266,304, two norms 2·4,096: 202,383,360; 32 layers 6,476,267,520;
  // norm 4,096; lm_head 131,072,000. 6,738,415,616 parameters.
  EXPECT_EQ(row(s.train, "layers.0.self_attn").params, 67'108'864);
  EXPECT_EQ(row(s.train, "layers.0.mlp").params, 135'266'304);
  EXPECT_EQ(row(s.train, "layers.0").params, 202'383'360);
  EXPECT_EQ(s.params, 6'738'415'616);
  // bf16 weights: 2 bytes each.
  EXPECT_EQ(itemBytes(s.memory.inference, "weights"), 13'476'831'232);
  // KV cache: 32 layers · (k + v) 2 · 4,096 values · 2 bytes = 524,288 bytes per token; the
  // 4,096-token context: 2 GiB.
  ASSERT_TRUE(s.memory.kvCache);
  EXPECT_EQ(s.memory.kvCache->attentions, 32);
  EXPECT_EQ(s.memory.kvCache->bytesPerToken, 524'288);
  EXPECT_EQ(s.memory.kvCache->bytes, 2'147'483'648);
  // The MLP of one layer: gate and up matmuls [1, 4096, 11008], silu, the product (4·TF), down
  // [1, 4096, 4096]; FLOPs 3·2·T·D·F.
  constexpr std::int64_t T = 4096, D = 4096, F = 11'008;
  const SummaryRow& mlp = row(s.train, "layers.0.mlp");
  EXPECT_EQ(mlp.activationBytes, (4 * T * F + T * D) * 4);
  EXPECT_EQ(mlp.flops, 3 * 2 * T * D * F);
  EXPECT_EQ(mlp.output, (Shape{1, T, D}));
  // Training in bf16 with mixed precision: 16 bytes per weight (2 + 2 + 4 master + 8 moments).
  const Summary mixed = summarize(traced("llama2_7b"), {.dtype = MemoryDtype::bf16, .mixedPrecision = true});
  EXPECT_EQ(mixed.memory.trainingTotal - itemBytes(mixed.memory.training, "activations"), 16 * 6'738'415'616LL);
  EXPECT_EQ(mixed.memory.trainingTotal - itemBytes(mixed.memory.training, "activations"), 107'814'649'856);
}

}  // namespace
}  // namespace nndna::diagram
