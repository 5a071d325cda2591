// The example specs (examples/*.cpp): each loads and traces into a training and an inference
// graph, and its parameter count, forward op counts by kind and output shapes equal the values
// derived by hand next to each entry below.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "nndna/ir.hpp"
#include "nndna/op_kind.hpp"
#include "nndna/trace.hpp"

namespace nndna {
namespace {

using OpCounts = std::map<std::string, std::int64_t>;

struct Expected {
  std::string name;            // the spec's file stem
  std::int64_t params;         // trainable parameter elements
  std::int64_t paramTensors;   // trainable parameter tensors
  std::int64_t stateElements;  // non-trainable state (BatchNorm running statistics)
  Shape prediction;            // the inference graph's output
  DType predictionDType;
  OpCounts trainOps;  // forward ops of the loss by kind, leaves (params, inputs) excluded
  OpCounts inferOps;  // ops of predict by kind, leaves excluded
};

// gtest prints a failing parameter by its spec name.
void PrintTo(const Expected& e, std::ostream* os) { *os << e.name; }

// Per transformer layer (gpt2_small, decoder_96): 6 Linear layers (q, k, v, attention proj, MLP
// fc and proj), each one matmul + one bias add; 2 attention matmuls (Q·Kᵀ, weights·V); 2
// residual adds; 2 LayerNorms; 3 splitHeads; 1 swapAxes (Kᵀ, a permute); 1 mul (scores scaled
// by 1/sqrt(Dh)); 1 softmaxCausal; 1 mergeHeads; 1 gelu. Outside the layers: 2 embeddings (token
// table, learned positions) over 1 arange, 1 add (token + position), the final LayerNorm, and
// the tied output matmul against swapAxes(tok_emb) (1 permute). The loss adds 2 reshapes and
// crossEntropy.
OpCounts transformerForward(std::int64_t layers) {
  return {{"embedding", 2},
          {"arange", 1},
          {"add", 1 + 8 * layers},
          {"layer_norm", 2 * layers + 1},
          {"matmul", 8 * layers + 1},
          {"split_heads", 3 * layers},
          {"permute", layers + 1},
          {"mul", layers},
          {"softmax_causal", layers},
          {"merge_heads", layers},
          {"gelu", layers}};
}
OpCounts withLoss(OpCounts ops, const OpCounts& loss) {
  for (const auto& [kind, n] : loss) ops[kind] += n;
  return ops;
}

// Parameter counts derived by hand. "Linear(i, o)" with bias has i·o + o parameters.
const std::vector<Expected>& expectations() {
  static const std::vector<Expected> all = {
      // GPT-2 small: V = 50257, T = 1024, D = 768, 12 layers; B = 8.
      //   token table (tied to the output) 50257·768            =  38,597,376
      //   learned positions                1024·768             =     786,432
      //   per layer: ln1, ln2              2·(768 + 768)        =       3,072
      //              q, k, v, proj         4·(768·768 + 768)    =   2,362,368
      //              fc                    768·3072 + 3072      =   2,362,368
      //              proj                  3072·768 + 768       =   2,360,064
      //              layer                 = 12·D² + 13·D       =   7,087,872
      //   12 layers                                              =  85,054,464
      //   final LayerNorm                  2·768                =       1,536
      //   total                                                  = 124,439,808
      // Tensors: 2 + 12·16 (2 LayerNorms × 2, 6 Linear × 2) + 2 = 196.
      {"gpt2_small", 124'439'808, 196, 0, {8, 1024, 50257}, f32,
       withLoss(transformerForward(12), {{"reshape", 2}, {"cross_entropy", 1}}),
       transformerForward(12)},
      // The 96-layer decoder: V = 100000, T = 8192, D = 16384; B = 1.
      //   100000·16384 + 8192·16384 + 96·(12·16384² + 13·16384) + 2·16384
      //   = 1,638,400,000 + 134,217,728 + 96·3,221,438,464 + 32,768 = 311,030,743,040.
      // Tensors: 2 + 96·16 + 2 = 1540.
      {"decoder_96", 311'030'743'040, 1540, 0, {1, 8192, 100000}, f32,
       withLoss(transformerForward(96), {{"reshape", 2}, {"cross_entropy", 1}}),
       transformerForward(96)},
      // Diffusion denoiser: Linear(32, 128) + Linear(128, 128) + Linear(128, 32)
      //   = 4,224 + 16,512 + 4,128 = 24,864.
      // Train: denoise = 3 × (matmul, add) + 2 gelu; sub (true noise), sub (error), square, mean.
      // Infer: 12 steps × (denoise + mul by the step size + sub).
      {"diffusion_denoiser", 24'864, 6, 0, {256, 32}, f32,
       {{"matmul", 3}, {"add", 3}, {"gelu", 2}, {"sub", 2}, {"square", 1}, {"mean", 1}},
       {{"matmul", 36}, {"add", 36}, {"gelu", 24}, {"mul", 12}, {"sub", 12}}},
      // MLP 1 -> 64 -> 64 -> 1 (tensorgrad's README): (1·64 + 64) + (64·64 + 64) + (64·1 + 1)
      //   = 128 + 4,160 + 65 = 4,353.
      // Train: 3 × (matmul, add), 2 relu; d = sub, mul(d, d), mean.
      {"mlp_sin", 4'353, 6, 0, {256, 1}, f32,
       {{"matmul", 3}, {"add", 3}, {"relu", 2}, {"sub", 1}, {"mul", 1}, {"mean", 1}},
       {{"matmul", 3}, {"add", 3}, {"relu", 2}}},
      // CNN: conv1 1→32 3×3 no bias 288; bn1 2·32 = 64; conv2 32→64 3×3 no bias 18,432;
      //   bn2 2·64 = 128; fc1 Linear(64·7·7 = 3136, 128) 401,536; fc2 Linear(128, 10) 1,290
      //   = 421,738. State: running mean and var, 2·32 + 2·64 = 192.
      // Train: 2 × (conv2d, batch_norm2d, relu, max_pool2d); reshape (flatten); fc1 (matmul,
      //   add) + relu; dropout; fc2 (matmul, add); cross_entropy. Infer: BatchNorm with running
      //   statistics, no dropout, no loss.
      {"cnn_digits", 421'738, 10, 192, {256, 10}, f32,
       {{"conv2d", 2}, {"batch_norm2d", 2}, {"relu", 3}, {"max_pool2d", 2}, {"reshape", 1},
        {"matmul", 2}, {"add", 2}, {"dropout", 1}, {"cross_entropy", 1}},
       {{"conv2d", 2}, {"batch_norm2d_inference", 2}, {"relu", 3}, {"max_pool2d", 2},
        {"reshape", 1}, {"matmul", 2}, {"add", 2}}},
      // Char transformer: V = 96, D = 192, F = 768, 4 layers, no biases, RMSNorm.
      //   token table 96·192 = 18,432; per layer 2·192 (norms) + 4·192² (q, k, v, proj)
      //   + 2·192·768 (fc, fc_out) = 384 + 147,456 + 294,912 = 442,752; 4 layers 1,771,008;
      //   final norm 192. Total 1,789,632. Tensors: 1 + 4·8 + 1 = 34.
      // Train per layer: 2 rms_norm; 8 matmul (6 projections + 2 attention); 3 split_heads;
      //   2 rope (q and k); 1 permute (Kᵀ); 1 mul (scale); 1 softmax_causal; 1 merge_heads;
      //   1 gelu; 2 dropout; 2 residual adds. Plus: 1 embedding, final rms_norm, tied output
      //   (permute + matmul); loss: 2 reshape + cross_entropy.
      // Infer: no dropout and no loss; narrow (last position) + categorical.
      {"char_transformer", 1'789'632, 34, 0, {64, 1}, i32,
       {{"embedding", 1}, {"rms_norm", 9}, {"matmul", 33}, {"split_heads", 12}, {"rope", 8},
        {"permute", 5}, {"mul", 4}, {"softmax_causal", 4}, {"merge_heads", 4}, {"gelu", 4},
        {"dropout", 8}, {"add", 8}, {"reshape", 2}, {"cross_entropy", 1}},
       {{"embedding", 1}, {"rms_norm", 9}, {"matmul", 33}, {"split_heads", 12}, {"rope", 8},
        {"permute", 5}, {"mul", 4}, {"softmax_causal", 4}, {"merge_heads", 4}, {"gelu", 4},
        {"add", 8}, {"narrow", 1}, {"categorical", 1}}},
      // RNN: ih Linear(8, 64) 576; hh 64·64 (no bias) 4,096; head Linear(64, 8) 520 = 5,192.
      // Forward: zeros (h0); 16 steps × (narrow, reshape, ih matmul + add, hh matmul, add,
      //   tanh); stack; head (matmul, add). Loss: sub, square, mean.
      {"rnn_unrolled", 5'192, 5, 0, {32, 16, 8}, f32,
       {{"zeros", 1}, {"narrow", 16}, {"reshape", 16}, {"matmul", 33}, {"add", 33},
        {"tanh", 16}, {"stack", 1}, {"sub", 1}, {"square", 1}, {"mean", 1}},
       {{"zeros", 1}, {"narrow", 16}, {"reshape", 16}, {"matmul", 33}, {"add", 33},
        {"tanh", 16}, {"stack", 1}}},
      // VAE: enc Linear(784, 400) 314,000; mu, log_var Linear(400, 20) 8,020 each; dec1
      //   Linear(20, 400) 8,400; dec2 Linear(400, 784) 314,384. Total 652,824.
      // Train: encode 3 × (matmul, add) + relu; sample: randn, mul (·0.5), exp, mul (·eps), add;
      //   decode 2 × (matmul, add) + relu; recon: softplus, mul, sub, sum; KL: add (+1), square,
      //   2 sub, exp, sum, mul (·-0.5); total: add, div.
      // Infer: decode + sigmoid.
      {"vae", 652'824, 10, 0, {128, 784}, f32,
       {{"matmul", 5}, {"add", 8}, {"relu", 2}, {"randn", 1}, {"mul", 4}, {"exp", 2},
        {"softplus", 1}, {"sub", 3}, {"sum", 2}, {"square", 1}, {"div", 1}},
       {{"matmul", 2}, {"add", 2}, {"relu", 1}, {"sigmoid", 1}}},
      // U-Net: DoubleConv(i, o) = (9·i·o + o) + (9·o·o + o).
      //   enc1 (3, 32) 10,144; enc2 (32, 64) 55,424; mid (64, 128) 221,440;
      //   dec2 (128 + 64, 64) 147,584; dec1 (64 + 32, 32) 36,928; head 1×1 (32, 5) 165.
      //   Total 471,685. Tensors: 5·4 + 2 = 22.
      // Forward: 11 convs, each conv2d + bias add (the Conv2d layer reshapes its bias to
      //   [C, 1, 1]: 1 reshape); 10 relu; 2 max_pool2d; 2 × (nearest_upsample2d, concat).
      //   Loss: permute to channels-last, 2 reshape, cross_entropy. Infer: argmax over classes.
      {"unet", 471'685, 22, 0, {8, 80, 80}, i32,
       {{"conv2d", 11}, {"add", 11}, {"reshape", 13}, {"relu", 10}, {"max_pool2d", 2},
        {"nearest_upsample2d", 2}, {"concat", 2}, {"permute", 1}, {"cross_entropy", 1}},
       {{"conv2d", 11}, {"add", 11}, {"reshape", 11}, {"relu", 10}, {"max_pool2d", 2},
        {"nearest_upsample2d", 2}, {"concat", 2}, {"argmax", 1}}},
      // NeRF-style INR: in Linear(2 + 2·2·10 = 42, 256) 11,008; h1, h2 Linear(256, 256)
      //   65,792 each; out Linear(256, 3) 771. Total 143,363.
      // Encoding: arange, mul (ln 2), exp, mul (π), 2 reshape, mul (angles), sin, cos, concat,
      //   reshape (flatten), concat (with p). MLP: 4 × (matmul, add), 3 relu, sigmoid.
      //   Loss: sub, square, mean.
      {"nerf", 143'363, 8, 0, {1024, 3}, f32,
       {{"arange", 1}, {"mul", 3}, {"exp", 1}, {"reshape", 3}, {"sin", 1}, {"cos", 1},
        {"concat", 2}, {"matmul", 4}, {"add", 4}, {"relu", 3}, {"sigmoid", 1}, {"sub", 1},
        {"square", 1}, {"mean", 1}},
       {{"arange", 1}, {"mul", 3}, {"exp", 1}, {"reshape", 3}, {"sin", 1}, {"cos", 1},
        {"concat", 2}, {"matmul", 4}, {"add", 4}, {"relu", 3}, {"sigmoid", 1}}},
      // KAN [2, 16, 16, 1], 12 knots: a layer (i, o) has i·o base weights and i·12·o
      //   coefficients: l1 32 + 384 = 416; l2 256 + 3,072 = 3,328; l3 16 + 192 = 208.
      //   Total 3,952.
      // Per layer: basis = arange, mul, add (knots), reshape, sub, abs, div, sub (1 - ·), relu;
      //   reshape, 2 matmul, silu, add. 2 tanh between layers. Loss: sub, square, mean.
      {"kan", 3'952, 6, 0, {256, 1}, f32,
       {{"arange", 3}, {"mul", 3}, {"add", 6}, {"reshape", 6}, {"sub", 7}, {"abs", 3},
        {"div", 3}, {"relu", 3}, {"matmul", 6}, {"silu", 3}, {"tanh", 2}, {"square", 1},
        {"mean", 1}},
       {{"arange", 3}, {"mul", 3}, {"add", 6}, {"reshape", 6}, {"sub", 6}, {"abs", 3},
        {"div", 3}, {"relu", 3}, {"matmul", 6}, {"silu", 3}, {"tanh", 2}}},
      // Flow matching: l1 Linear(2 + 32, 128) 4,480; l2 Linear(128, 128) 16,512; l3
      //   Linear(128, 2) 258. Total 21,250.
      // Time embedding: arange, mul, exp, 2 reshape, mul, sin, cos, concat. Velocity: concat,
      //   3 × (matmul, add), 2 silu. Loss: reshape (t), sub (1 - t), 2 mul, add (x_t), sub
      //   (target), sub, square, mean.
      // Infer: 8 Euler steps × (ones, mul (t), time embedding, velocity, mul (·dt), add).
      {"flow_matching", 21'250, 6, 0, {512, 2}, f32,
       {{"arange", 1}, {"mul", 4}, {"exp", 1}, {"reshape", 3}, {"sin", 1}, {"cos", 1},
        {"concat", 2}, {"matmul", 3}, {"add", 4}, {"silu", 2}, {"sub", 3}, {"square", 1},
        {"mean", 1}},
       {{"ones", 8}, {"mul", 32}, {"arange", 8}, {"exp", 8}, {"reshape", 16}, {"sin", 8},
        {"cos", 8}, {"concat", 16}, {"matmul", 24}, {"add", 32}, {"silu", 16}}},
      // Deep MLP: input Linear(784, 256) 200,960; 8 × Linear(256, 256) 8·65,792 = 526,336;
      //   head Linear(256, 10) 2,570. Total 729,866.
      // Forward: 10 × (matmul, add), 9 relu; loss cross_entropy.
      {"deep_mlp", 729'866, 20, 0, {128, 10}, f32,
       {{"matmul", 10}, {"add", 10}, {"relu", 9}, {"cross_entropy", 1}},
       {{"matmul", 10}, {"add", 10}, {"relu", 9}}},
  };
  return all;
}

const RegisteredSpec& registered(const std::string& name) {
  const RegisteredSpec* spec = findSpec(name);
  if (spec == nullptr) throw std::runtime_error("spec not registered: " + name);
  return *spec;
}

// Forward ops by kind, leaves excluded.
OpCounts forwardOpCounts(const ir::Graph& g) {
  OpCounts counts;
  for (const ir::Op& op : g.ops) {
    if (op.phase != ir::Phase::forward || ir::isLeafKind(op.kind)) continue;
    ++counts[std::string(ir::opKindName(op.kind))];
  }
  return counts;
}

std::int64_t elements(const ir::Graph& g, const std::vector<ir::Param>& params) {
  std::int64_t total = 0;
  for (const ir::Param& p : params) total += ir::numel(g.tensor(p.tensor).shape);
  return total;
}

const ir::Frame& frame(const ir::Graph& g, ir::FrameId id) {
  return g.sites.frames.at(static_cast<std::size_t>(id));
}
const std::vector<ir::FrameId>& chain(const ir::Graph& g, const ir::Op& op) {
  return g.sites.chains.at(static_cast<std::size_t>(op.site));
}
std::vector<std::string> chainFunctions(const ir::Graph& g, const ir::Op& op) {
  std::vector<std::string> names;
  for (ir::FrameId id : chain(g, op)) names.push_back(frame(g, id).function);
  return names;
}
// The text of a 1-based line of a recorded source file.
std::string sourceLine(const ir::Graph& g, const ir::Frame& f) {
  const std::string& text = g.sites.files.at(static_cast<std::size_t>(f.file)).text;
  std::size_t begin = 0;
  for (int line = 1; line < f.line; ++line) {
    begin = text.find('\n', begin);
    if (begin == std::string::npos) return {};
    ++begin;
  }
  return text.substr(begin, text.find('\n', begin) - begin);
}

TEST(Examples, RegisteredSpecsAreExactlyTheTestedOnes) {
  std::set<std::string> registeredNames;
  for (const RegisteredSpec& spec : registeredSpecs()) registeredNames.insert(spec.name);
  std::set<std::string> expectedNames;
  for (const Expected& e : expectations()) expectedNames.insert(e.name);
  EXPECT_EQ(registeredNames, expectedNames);
  EXPECT_GE(registeredNames.size(), 12u);  // issue 4 asks for at least 12 examples
}

class ExampleTest : public ::testing::TestWithParam<Expected> {
 protected:
  LoadedSpec load() const { return loadSpec(registered(GetParam().name)); }
};

TEST_P(ExampleTest, HasTheSpecFields) {
  const LoadedSpec spec = load();
  const detail::ErasedSpec& s = spec.spec;
  EXPECT_EQ(spec.name, GetParam().name);
  EXPECT_FALSE(s.label.empty());
  EXPECT_GE(s.description.size(), 80u) << "a description explains the architecture";
  EXPECT_TRUE(s.loss);
  EXPECT_TRUE(s.predict);
  EXPECT_FALSE(s.inputs.empty());
  EXPECT_FALSE(s.predictInputs.empty());
  ASSERT_FALSE(s.dims.empty());
  // Declared dims have distinct sizes and names: a size maps to one name in every badge.
  std::set<std::int64_t> sizes;
  std::set<std::string> names;
  for (const DimDecl& d : s.dims) {
    EXPECT_TRUE(sizes.insert(d.size).second) << "dim size declared twice: " << d.size;
    EXPECT_TRUE(names.insert(std::string(d.name)).second) << "dim name declared twice: " << d.name;
  }
}

TEST_P(ExampleTest, ParameterCountIsExact) {
  const Expected& e = GetParam();
  const LoadedSpec spec = load();
  const ir::Graph g = trace(spec);
  EXPECT_EQ(elements(g, g.params), e.params);
  EXPECT_EQ(static_cast<std::int64_t>(g.params.size()), e.paramTensors);
  EXPECT_EQ(elements(g, g.state), e.stateElements);
  // Parameter paths are unique.
  std::set<std::string> paths;
  for (const ir::Param& p : g.params) EXPECT_TRUE(paths.insert(p.name).second) << p.name;
}

TEST_P(ExampleTest, TrainingGraphHasAScalarLossAndTheDerivedOps) {
  const Expected& e = GetParam();
  const ir::Graph g = trace(load());
  ASSERT_EQ(g.outputs.size(), 1u);
  const ir::TensorInfo& loss = g.tensor(g.outputs[0]);
  EXPECT_EQ(loss.shape, Shape{});
  EXPECT_EQ(loss.dtype, f32);
  EXPECT_EQ(forwardOpCounts(g), e.trainOps);
}

TEST_P(ExampleTest, InferenceGraphHasThePredictionShapeAndTheDerivedOps) {
  const Expected& e = GetParam();
  const ir::Graph g = traceForward(load());
  ASSERT_EQ(g.outputs.size(), 1u);
  const ir::TensorInfo& out = g.tensor(g.outputs[0]);
  EXPECT_EQ(out.shape, e.prediction);
  EXPECT_EQ(out.dtype, e.predictionDType);
  EXPECT_EQ(forwardOpCounts(g), e.inferOps);
}

// Every computing op is attributed to a line of the example's own file, called from the spec's
// loss or predict function: the diagram labels boxes with these lines.
TEST_P(ExampleTest, EveryOpIsAttributedToTheExampleSource) {
  const LoadedSpec spec = load();
  const std::string file = std::filesystem::path(spec.sourceFile).filename().string();
  for (bool training : {true, false}) {
    const ir::Graph g = training ? trace(spec) : traceForward(spec);
    const std::string entry = training ? "lossFn" : "predictFn";
    for (const ir::Op& op : g.ops) {
      if (op.phase != ir::Phase::forward || ir::isLeafKind(op.kind)) continue;
      ASSERT_NE(op.site, ir::kNone) << ir::opKindName(op.kind) << " has no call site";
      const std::vector<ir::FrameId>& frames = chain(g, op);
      ASSERT_FALSE(frames.empty());
      EXPECT_EQ(frame(g, frames.front()).function, entry) << ir::opKindName(op.kind);
      const ir::Frame& innermost = frame(g, frames.back());
      const std::string& path = g.sites.files.at(static_cast<std::size_t>(innermost.file)).path;
      EXPECT_EQ(std::filesystem::path(path).filename().string(), file);
      EXPECT_GT(innermost.line, 0);
    }
  }
}

std::string paramName(const ::testing::TestParamInfo<Expected>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(AllExamples, ExampleTest, ::testing::ValuesIn(expectations()),
                         paramName);

// ----- Architecture details the counts alone would not catch -----------------------------------

Shape paramShape(const ir::Graph& g, std::string_view name) {
  for (const ir::Param& p : g.params) {
    if (p.name == name) return g.tensor(p.tensor).shape;
  }
  return {};
}

TEST(Gpt2Small, ParametersHaveGpt2Shapes) {
  const ir::Graph g = trace(loadSpec(registered("gpt2_small")));
  EXPECT_EQ(paramShape(g, "tok_emb"), (Shape{50257, 768}));
  EXPECT_EQ(paramShape(g, "pos_emb.weight"), (Shape{1024, 768}));
  EXPECT_EQ(paramShape(g, "layers.0.ln1.weight"), (Shape{768}));
  EXPECT_EQ(paramShape(g, "layers.0.ln1.bias"), (Shape{768}));
  EXPECT_EQ(paramShape(g, "layers.11.attn.q.weight"), (Shape{768, 768}));
  EXPECT_EQ(paramShape(g, "layers.11.attn.proj.bias"), (Shape{768}));
  EXPECT_EQ(paramShape(g, "layers.11.mlp.fc.weight"), (Shape{768, 3072}));
  EXPECT_EQ(paramShape(g, "layers.11.mlp.proj.weight"), (Shape{3072, 768}));
  EXPECT_EQ(paramShape(g, "ln_f.bias"), (Shape{768}));
  EXPECT_EQ(paramShape(g, "layers.12.ln1.weight"), Shape{}) << "only 12 layers";
}

// The token table feeds both the input lookup and, transposed, the output projection.
void expectTiedEmbedding(const std::string& specName, std::int64_t vocab, std::int64_t width) {
  const ir::Graph g = trace(loadSpec(registered(specName)));
  ir::TensorId table = ir::kNone;
  for (const ir::Param& p : g.params) {
    if (p.name == "tok_emb") table = p.tensor;
  }
  ASSERT_NE(table, ir::kNone);
  int lookups = 0;
  int transposes = 0;
  for (const ir::Op& op : g.ops) {
    if (op.inputs.empty() || op.inputs[0] != table) continue;
    if (op.kind == ir::OpKind::embedding) ++lookups;
    if (op.kind == ir::OpKind::permute) {
      ++transposes;
      EXPECT_EQ(g.tensor(op.out).shape, (Shape{width, vocab}));
    }
  }
  EXPECT_EQ(lookups, 1) << specName;
  EXPECT_EQ(transposes, 1) << specName;
}

TEST(Examples, TransformersTieTheirEmbeddings) {
  expectTiedEmbedding("gpt2_small", 50257, 768);
  expectTiedEmbedding("decoder_96", 100000, 16384);
  expectTiedEmbedding("char_transformer", 96, 192);
}

// Attention ops are issued three user functions deep: lossFn > gpt > block > attention.
TEST(Gpt2Small, AttentionOpsCarryTheirCallChain) {
  const ir::Graph g = trace(loadSpec(registered("gpt2_small")));
  int causal = 0;
  for (const ir::Op& op : g.ops) {
    if (op.kind != ir::OpKind::softmax_causal) continue;
    ++causal;
    EXPECT_EQ(chainFunctions(g, op),
              (std::vector<std::string>{"lossFn", "gpt", "block", "attention"}));
    EXPECT_EQ(g.tensor(op.out).shape, (Shape{8, 12, 1024, 1024}));
  }
  EXPECT_EQ(causal, 12);
}

// The decoder's attention scores have 1·128·8192·8192 = 2^33 elements: past 32 bits.
TEST(Decoder96, AttentionScoresExceedThirtyTwoBits) {
  const ir::Graph g = traceForward(loadSpec(registered("decoder_96")));
  int scores = 0;
  for (const ir::Op& op : g.ops) {
    if (op.kind != ir::OpKind::softmax_causal) continue;
    ++scores;
    EXPECT_EQ(g.tensor(op.out).shape, (Shape{1, 128, 8192, 8192}));
    EXPECT_EQ(ir::numel(g.tensor(op.out).shape), std::int64_t{1} << 33);
  }
  EXPECT_EQ(scores, 96);
}

// The char transformer rotates queries and keys (after splitHeads) in every layer.
TEST(CharTransformer, RopeRotatesSplitQueriesAndKeys) {
  const ir::Graph g = trace(loadSpec(registered("char_transformer")));
  int rotated = 0;
  for (const ir::Op& op : g.ops) {
    if (op.kind != ir::OpKind::rope) continue;
    ++rotated;
    EXPECT_EQ(g.tensor(op.out).shape, (Shape{64, 6, 256, 32}));
    ASSERT_FALSE(op.inputs.empty());
    EXPECT_EQ(g.producer(op.inputs[0]).kind, ir::OpKind::split_heads);
  }
  EXPECT_EQ(rotated, 8);
}

// deep_mlp's 8 hidden layers come from one loop line that calls no user function: the diagram
// must fold them into one ×8 box from the call sites alone. All 8 share one innermost frame
// line (and the input layer's relu is on another line).
TEST(DeepMlp, LoopLayersShareOneSourceLine) {
  const ir::Graph g = trace(loadSpec(registered("deep_mlp")));
  std::map<int, int> reluLines;
  const ir::Frame* loopFrame = nullptr;
  for (const ir::Op& op : g.ops) {
    if (op.kind != ir::OpKind::relu) continue;
    const ir::Frame& f = frame(g, chain(g, op).back());
    if (++reluLines[f.line] == 8) loopFrame = &f;
    EXPECT_EQ(chainFunctions(g, op), (std::vector<std::string>{"lossFn", "classify"}));
  }
  ASSERT_EQ(reluLines.size(), 2u);
  ASSERT_NE(loopFrame, nullptr);
  EXPECT_EQ(sourceLine(g, *loopFrame),
            "  for (const Linear& layer : m.layers) h = relu(layer(h));");
}

// list<Linear> names each layer by its slot.
TEST(DeepMlp, ListLayersAreNamedBySlot) {
  const ir::Graph g = trace(loadSpec(registered("deep_mlp")));
  EXPECT_EQ(paramShape(g, "input.weight"), (Shape{784, 256}));
  EXPECT_EQ(paramShape(g, "layers.0.weight"), (Shape{256, 256}));
  EXPECT_EQ(paramShape(g, "layers.7.weight"), (Shape{256, 256}));
  EXPECT_EQ(paramShape(g, "layers.7.bias"), (Shape{256}));
  EXPECT_EQ(paramShape(g, "layers.8.weight"), Shape{}) << "only 8 hidden layers";
  EXPECT_EQ(paramShape(g, "head.weight"), (Shape{256, 10}));
}

// The RNN's 16 unrolled steps each call `step` from the same line of `forecast`.
TEST(RnnUnrolled, StepsAreSixteenCallsOfOneFunction) {
  const ir::Graph g = traceForward(loadSpec(registered("rnn_unrolled")));
  int steps = 0;
  for (const ir::Op& op : g.ops) {
    if (op.kind != ir::OpKind::tanh) continue;
    ++steps;
    EXPECT_EQ(chainFunctions(g, op), (std::vector<std::string>{"predictFn", "forecast", "step"}));
    EXPECT_EQ(g.tensor(op.out).shape, (Shape{32, 64}));
  }
  EXPECT_EQ(steps, 16);
}

// The U-Net's skip connections: each concat joins an upsampled map with an encoder map of the
// same resolution along channels.
TEST(Unet, SkipConcatsJoinUpsampledAndEncoderMaps) {
  const ir::Graph g = traceForward(loadSpec(registered("unet")));
  std::vector<Shape> joined;
  for (const ir::Op& op : g.ops) {
    if (op.kind != ir::OpKind::concat) continue;
    ASSERT_EQ(op.inputs.size(), 2u);
    EXPECT_EQ(g.producer(op.inputs[0]).kind, ir::OpKind::nearest_upsample2d);
    joined.push_back(g.tensor(op.out).shape);
  }
  EXPECT_EQ(joined, (std::vector<Shape>{{8, 192, 40, 40}, {8, 96, 80, 80}}));
}

}  // namespace
}  // namespace nndna
