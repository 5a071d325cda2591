// Descriptions for the offline designer, written for the tests, each with what it must give: the
// template (or preset), the sizes of the filled spec, its options, and what its diagram shows.
// offline_choice_test.cpp checks the choices in process; offline_designs_test.cpp compiles,
// traces and draws every one.
//
// How the expectations are derived (from the templates in src/designer/templates/ and the rules
// of docs/design.md, never from a run):
// - defaults: decoder_lm B 8, T 64, V 256, D 128, H 4, F 4·D, 4 layers; mlp B 64, IN 16,
//   HIDDEN 128, 4 Linear layers, OUT 10; cnn B 128, 3 channels, side 32, WIDTH 64, 3 blocks,
//   10 classes; unet B 8, side 64, WIDTH 32, DEPTH 3, 5 classes; rnn B 32, T 16, IN 8, HIDDEN 64;
//   transformer_encoder D 256, H 8, 4 layers; encoder_decoder D 256, H 8, 3 + 3 blocks; vit
//   side 32, patch 4, D 192, H 4, 6 layers; diffusion WIDTH 64, 4 blocks, 10 steps; moe D 128,
//   8 experts, 2 layers.
// - scale words multiply widths and depths: tiny ½ and ½, large 4 and 3, huge 8 and 6; heads
//   follow the width.
// - loops (diagram clusters "×N"): one per repeated block list with at least 2 iterations — the
//   transformer stacks (×layers; encoder and decoder stacks each), a list of N-2 hidden Linear
//   layers in mlp/nerf/kan/policy/siamese, the conv blocks of cnn, the down and up levels of
//   unet (×DEPTH twice), the unrolled steps of rnn (×T), the experts inside each MoE block,
//   diffusion's blocks (×N_BLOCKS, both sides) and its sampling loop (×STEPS, inference only).
//   ResNet-18's blocks are [identity, identity] then three stages of [projection, identity]:
//   ×2 (period 1, two equal calls) and ×3 (period 2). A loop inside a function that lossFn calls
//   twice is drawn twice: once shared with inference, once marked "(training)".
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>
#include <utility>
#include <vector>

namespace nndna::designer::testcases {

struct OfflineCase {
  std::string_view name;         // the test's name
  std::string_view description;  // what the user types
  std::string_view templateName;
  std::string_view preset;       // "" when none
  std::vector<std::pair<std::string_view, std::int64_t>> constants;  // of the filled spec
  std::vector<std::string_view> options;                            // exactly these
  std::optional<std::vector<std::string_view>> loops;               // sorted; nullopt: not checked
  std::vector<std::pair<std::string_view, std::int64_t>> dims;       // legend name -> size
  std::optional<std::int64_t> params;                               // exact parameter count
};

// Published parameter counts (see Preset::citation in src/designer/offline/template_catalogue.cpp),
// each derived by hand below from the architecture.
//
// GPT-2 (tied embeddings, learned positions, LayerNorm with bias, biases everywhere, MLP 4·D):
//   V·D + T·D + L·(12·D² + 13·D) + 2·D with V = 50257, T = 1024; per block q, k, v, proj
//   4·(D² + D), MLP D·4D + 4D + 4D·D + D, two LayerNorms 4·D.
constexpr std::int64_t gpt2(std::int64_t d, std::int64_t layers) {
  return 50257 * d + 1024 * d + layers * (12 * d * d + 13 * d) + 2 * d;
}
static_assert(gpt2(768, 12) == 124'439'808);      // GPT-2 small: HF "gpt2" (paper: 117M)
static_assert(gpt2(1024, 24) == 354'823'168);     // GPT-2 medium: HF "gpt2-medium" (paper: 345M)
static_assert(gpt2(1280, 36) == 774'030'080);     // GPT-2 large: HF "gpt2-large" (paper: 762M)
static_assert(gpt2(1600, 48) == 1'557'611'200);   // GPT-2 XL: HF "gpt2-xl" (paper: 1542M)

// BERT (BertModel: token, position (512) and segment (2) embeddings with a LayerNorm, post-norm
// blocks, the D×D tanh pooler; the masked-LM head reuses the token table):
//   embeddings V·D + 512·D + 2·D + 2·D; per block 4·(D² + D) + 2·D + (D·4D + 4D + 4D·D + D) + 2·D
//   = 12·D² + 13·D; pooler D² + D. V = 30522.
constexpr std::int64_t bert(std::int64_t d, std::int64_t layers) {
  return 30522 * d + 512 * d + 2 * d + 2 * d + layers * (12 * d * d + 13 * d) + d * d + d;
}
static_assert(bert(768, 12) == 109'482'240);   // BERT base: HF "bert-base-uncased" BertModel (paper: 110M)
static_assert(bert(1024, 24) == 335'141'888);  // BERT large: HF "bert-large-uncased" BertModel (paper: 340M)

// ViT-B/16: patch conv 3·16·16·768 + 768, [CLS] 768, positions 197·768, 12 pre-norm blocks of
// 12·D² + 13·D (qkv 3·(D² + D) as one Linear, proj D² + D, MLP 8·D² + 5·D, two LayerNorms 4·D),
// final LayerNorm 2·D, head 768·1000 + 1000. timm vit_base_patch16_224: 86,567,656.
constexpr std::int64_t kVitB16 =
    (3 * 16 * 16 * 768 + 768) + 768 + 197 * 768 + 12 * (12 * 768 * 768 + 13 * 768) + 2 * 768 + (768 * 1000 + 1000);
static_assert(kVitB16 == 86'567'656);

// ResNets (torchvision): convs without bias, BatchNorm weight + bias 2·C (running statistics are
// state, not parameters), fc 512·e·1000 + 1000.
// Basic block (in, out, stride): 9·in·out + 9·out·out + 4·out, plus in·out + 2·out when the shape
// changes. ResNet-18: stem 7·7·3·64 + 128; stage 1 two blocks 2·(73,728 + 256); stages 2-4: a
// projecting block and an identity block each.
constexpr std::int64_t basicBlock(std::int64_t in, std::int64_t out, bool projects) {
  return 9 * in * out + 9 * out * out + 4 * out + (projects ? in * out + 2 * out : 0);
}
constexpr std::int64_t kResNetStem = 7 * 7 * 3 * 64 + 2 * 64;
constexpr std::int64_t resnetBasic(const int (&blocks)[4], std::int64_t classes) {
  std::int64_t total = kResNetStem;
  std::int64_t in = 64;
  for (int s = 0; s < 4; ++s) {
    const std::int64_t out = 64 << s;
    for (int i = 0; i < blocks[s]; ++i) {
      total += basicBlock(i == 0 ? in : out, out, i == 0 && in != out);
      if (i == 0) in = out;
    }
  }
  return total + 512 * classes + classes;
}
constexpr int kResNet18Blocks[4] = {2, 2, 2, 2};
constexpr int kResNet34Blocks[4] = {3, 4, 6, 3};
static_assert(resnetBasic(kResNet18Blocks, 1000) == 11'689'512);  // torchvision resnet18
static_assert(resnetBasic(kResNet34Blocks, 1000) == 21'797'672);  // torchvision resnet34
// Bottleneck block (in, inner, projects): 1×1 in·w, 3×3 9·w·w, 1×1 w·4w, BatchNorms 2·(w + w + 4w),
// plus in·4w + 2·4w when projecting. ResNet-50: blocks 3, 4, 6, 3; every stage's first block projects.
constexpr std::int64_t bottleneck(std::int64_t in, std::int64_t w, bool projects) {
  return in * w + 9 * w * w + w * 4 * w + 2 * (w + w + 4 * w) + (projects ? in * 4 * w + 2 * 4 * w : 0);
}
constexpr std::int64_t resnet50() {
  const int blocks[4] = {3, 4, 6, 3};
  std::int64_t total = kResNetStem;
  std::int64_t in = 64;
  for (int s = 0; s < 4; ++s) {
    const std::int64_t w = 64 << s;
    for (int i = 0; i < blocks[s]; ++i) {
      total += bottleneck(i == 0 ? in : 4 * w, w, i == 0);
    }
    in = 4 * w;
  }
  return total + 2048 * 1000 + 1000;
}
static_assert(resnet50() == 25'557'032);  // torchvision resnet50

// LLaMA 2 (no biases, RMSNorm weights D, SwiGLU 3·D·F, untied head): 2·V·D + L·(4·D² + 3·D·F + 2·D)
// + D with V = 32000.
constexpr std::int64_t llama(std::int64_t d, std::int64_t f, std::int64_t layers) {
  return 2 * 32000 * d + layers * (4 * d * d + 3 * d * f + 2 * d) + d;
}
static_assert(llama(4096, 11008, 32) == 6'738'415'616);     // HF meta-llama/Llama-2-7b-hf
static_assert(llama(5120, 13824, 40) == 13'015'864'320);    // HF meta-llama/Llama-2-13b-hf

using V = std::vector<std::string_view>;

// gtest prints a case by its name (ctest's test names stay readable).
inline void PrintTo(const OfflineCase& c, std::ostream* os) { *os << c.name; }

inline const std::vector<OfflineCase>& offlineCases() {
  static const std::vector<OfflineCase> cases = {
      // --- decoder-only language models
      {"AdderTransformer", "a small transformer that adds two-digit numbers", "decoder_lm", "",
       {{"T", 12}, {"V", 16}, {"D", 128}, {"H", 4}, {"N_LAYERS", 4}}, {}, V{"×4"},
       {{"D", 128}, {"H", 4}, {"V", 16}, {"T", 12}}, std::nullopt},
      // 50000·768 + 1024·768 + 12·(12·768² + 13·768) + 2·768 = 124,242,432.
      {"GptSizes", "a GPT-style language model with 12 layers, width 768, 12 heads, context 1024 and vocab 50k",
       "decoder_lm", "", {{"N_LAYERS", 12}, {"D", 768}, {"H", 12}, {"T", 1024}, {"V", 50000}}, {}, V{"×12"},
       {{"D", 768}, {"H", 12}, {"T", 1024}, {"V", 50000}}, 124'242'432},
      {"LlamaLike", "a llama-like decoder with RMSNorm, SwiGLU and rotary embeddings, 8 layers, width 512, 8 heads",
       "decoder_lm", "", {{"N_LAYERS", 8}, {"D", 512}, {"H", 8}}, {"rmsnorm", "rope", "swiglu"}, V{"×8"},
       {{"D", 512}, {"H", 8}}, std::nullopt},
      {"CharacterModel",
       "a character-level language model with 6 layers and 6 heads of width 384, context 256", "decoder_lm", "",
       {{"V", 96}, {"N_LAYERS", 6}, {"H", 6}, {"D", 384}, {"T", 256}}, {}, V{"×6"},
       {{"D", 384}, {"H", 6}, {"V", 96}, {"T", 256}}, std::nullopt},
      {"TinyGpt", "a tiny GPT", "decoder_lm", "", {{"D", 64}, {"H", 2}, {"N_LAYERS", 2}}, {}, V{"×2"},
       {{"D", 64}, {"H", 2}}, std::nullopt},
      {"LargeLanguageModel", "a large language model", "decoder_lm", "",
       {{"D", 512}, {"H", 16}, {"N_LAYERS", 12}, {"F", 2048}}, {}, V{"×12"}, {{"D", 512}, {"H", 16}}, std::nullopt},
      {"HugeTransformer", "a huge transformer", "decoder_lm", "", {{"D", 1024}, {"H", 32}, {"N_LAYERS", 24}}, {},
       V{"×24"}, {{"D", 1024}}, std::nullopt},
      // --- presets
      {"Gpt2Small", "GPT-2 small", "decoder_lm", "GPT-2 small", {{"D", 768}, {"H", 12}, {"N_LAYERS", 12}}, {},
       V{"×12"}, {{"D", 768}, {"H", 12}, {"V", 50257}, {"T", 1024}}, gpt2(768, 12)},
      {"Gpt2Medium", "gpt2-medium", "decoder_lm", "GPT-2 medium", {{"D", 1024}, {"H", 16}, {"N_LAYERS", 24}}, {},
       V{"×24"}, {{"D", 1024}, {"H", 16}}, gpt2(1024, 24)},
      {"Gpt2Large", "GPT-2 large", "decoder_lm", "GPT-2 large", {{"D", 1280}, {"H", 20}, {"N_LAYERS", 36}}, {},
       V{"×36"}, {{"D", 1280}, {"H", 20}}, gpt2(1280, 36)},
      {"Gpt2Xl", "GPT-2 XL", "decoder_lm", "GPT-2 XL", {{"D", 1600}, {"H", 25}, {"N_LAYERS", 48}}, {}, V{"×48"},
       {{"D", 1600}, {"H", 25}}, gpt2(1600, 48)},
      {"BertBase", "BERT base", "transformer_encoder", "BERT base", {{"D", 768}, {"H", 12}, {"N_LAYERS", 12}},
       {"mlm"}, V{"×12"}, {{"D", 768}, {"H", 12}, {"V", 30522}, {"T", 512}}, bert(768, 12)},
      {"BertLarge", "bert-large", "transformer_encoder", "BERT large", {{"D", 1024}, {"H", 16}, {"N_LAYERS", 24}},
       {"mlm"}, V{"×24"}, {{"D", 1024}, {"H", 16}}, bert(1024, 24)},
      {"VitB16", "ViT-B/16", "vit", "ViT-B/16", {{"SIDE", 224}, {"PATCH", 16}, {"D", 768}, {"N", 196}}, {},
       V{"×12"}, {{"D", 768}, {"H", 12}, {"N", 197}}, kVitB16},
      {"ResNet18", "ResNet-18", "resnet", "ResNet-18", {{"SIDE", 224}, {"CLASSES", 1000}}, {}, V{"×2", "×3"},
       {{"W", 64}, {"K", 1000}}, resnetBasic(kResNet18Blocks, 1000)},
      {"ResNet50", "resnet50", "resnet", "ResNet-50", {{"EXPANSION", 4}}, {"bottleneck"}, std::nullopt,
       {{"W", 64}, {"K", 1000}}, resnet50()},
      {"Llama2_7B", "LLaMA-2-7B", "decoder_lm", "LLaMA-2-7B",
       {{"D", 4096}, {"H", 32}, {"F", 11008}, {"N_LAYERS", 32}, {"T", 4096}, {"B", 1}},
       {"nobias", "rmsnorm", "rope", "swiglu", "untied"}, V{"×32"}, {{"F", 11008}, {"V", 32000}},
       llama(4096, 11008, 32)},
      {"Llama2_13B", "Llama 2 13B", "decoder_lm", "LLaMA-2-13B",
       {{"D", 5120}, {"H", 40}, {"F", 13824}, {"N_LAYERS", 40}}, {"nobias", "rmsnorm", "rope", "swiglu", "untied"},
       V{"×40"}, {{"D", 5120}, {"H", 40}, {"F", 13824}}, llama(5120, 13824, 40)},
      // --- encoders, encoder-decoders, vision transformers
      {"SentimentEncoder", "a BERT-style encoder that classifies sentiment into 3 classes with 6 layers",
       "transformer_encoder", "", {{"CLASSES", 3}, {"N_LAYERS", 6}}, {}, V{"×6"}, {{"D", 256}, {"H", 8}},
       std::nullopt},
      {"MaskedLanguageModel", "masked language model encoder with 4 layers, width 256 and 4 heads",
       "transformer_encoder", "", {{"N_LAYERS", 4}, {"D", 256}, {"H", 4}}, {"mlm"}, V{"×4"},
       {{"D", 256}, {"H", 4}}, std::nullopt},
      {"Translation", "an encoder-decoder transformer for translation with 6 layers, width 512 and 8 heads",
       "encoder_decoder", "", {{"N_ENCODER", 6}, {"N_DECODER", 6}, {"D", 512}, {"H", 8}}, {}, V{"×6", "×6"},
       {{"D", 512}, {"H", 8}}, std::nullopt},
      {"Seq2SeqStacks", "a seq2seq model with 4 encoder layers and 2 decoder layers", "encoder_decoder", "",
       {{"N_ENCODER", 4}, {"N_DECODER", 2}}, {}, V{"×2", "×4"}, {{"D", 256}, {"H", 8}}, std::nullopt},
      {"VitPatches",
       "a vision transformer for 64x64 colour images with 8x8 patches, 8 layers and 100 classes", "vit", "",
       {{"SIDE", 64}, {"CHANNELS", 3}, {"PATCH", 8}, {"N_LAYERS", 8}, {"CLASSES", 100}, {"N", 64}}, {}, V{"×8"},
       {{"N", 65}, {"D", 192}, {"K", 100}}, std::nullopt},
      {"VitSmallPatches", "ViT with patch size 4 for 32x32 images, width 256, 8 heads", "vit", "",
       {{"PATCH", 4}, {"SIDE", 32}, {"D", 256}, {"H", 8}}, {}, V{"×6"}, {{"D", 256}, {"H", 8}, {"N", 65}},
       std::nullopt},
      // --- convolutional networks
      {"DigitCnn", "a CNN that classifies 28x28 grayscale digits into 10 classes", "cnn", "",
       {{"SIDE", 28}, {"CHANNELS", 1}, {"CLASSES", 10}, {"N_BLOCKS", 3}}, {}, V{"×3"},
       {{"S", 28}, {"W", 64}, {"K", 10}}, std::nullopt},
      {"CifarCnn", "a convolutional network for CIFAR-10 with 4 conv blocks of 96 channels", "cnn", "",
       {{"SIDE", 32}, {"CHANNELS", 3}, {"CLASSES", 10}, {"N_BLOCKS", 4}, {"WIDTH", 96}}, {}, V{"×4"},
       {{"W", 96}, {"S", 32}}, std::nullopt},
      {"ImagesOnly", "a network for 32x32 images", "cnn", "", {{"SIDE", 32}}, {}, V{"×3"}, {{"S", 32}},
       std::nullopt},
      // ResNet-34 with a 10-way head: torchvision's 21,797,672 less 513·990 = 21,289,802.
      {"ResNet34", "a ResNet-34 for 10 classes", "resnet", "", {{"CLASSES", 10}, {"EXPANSION", 1}}, {},
       std::nullopt, {{"K", 10}}, resnetBasic(kResNet34Blocks, 10)},
      {"UNetLevels", "a U-Net for segmenting 128x128 RGB images into 3 classes with 4 levels", "unet", "",
       {{"SIDE", 128}, {"CHANNELS", 3}, {"CLASSES", 3}, {"DEPTH", 4}}, {}, V{"×4", "×4"},
       {{"S", 128}, {"W", 32}}, std::nullopt},
      {"Segmentation", "image segmentation network for 96x96 grey images, 2 classes, width 16", "unet", "",
       {{"SIDE", 96}, {"CHANNELS", 1}, {"CLASSES", 2}, {"WIDTH", 16}}, {}, V{"×3", "×3"},
       {{"W", 16}, {"S", 96}}, std::nullopt},
      // 100 is not divisible by 2^3: rounded up to 104.
      {"UNetRoundsTheSide", "a U-Net for 100x100 images", "unet", "", {{"SIDE", 104}}, {}, V{"×3", "×3"},
       {{"S", 104}}, std::nullopt},
      // --- recurrent networks
      {"Lstm", "an LSTM forecaster over 24 time steps with 128 hidden units and 4 input features", "rnn", "",
       {{"T", 24}, {"HIDDEN", 128}, {"IN", 4}}, {"lstm"}, V{"×24"}, {{"T", 24}, {"H", 128}, {"F", 4}},
       std::nullopt},
      {"Gru", "a GRU that reads sequences of length 24", "rnn", "", {{"T", 24}}, {"gru"}, V{"×24"}, {{"T", 24}},
       std::nullopt},
      {"ElmanRnn", "a recurrent network for time series, batch 128", "rnn", "", {{"B", 128}, {"T", 16}}, {"rnn"},
       V{"×16"}, {{"B", 128}, {"H", 64}}, std::nullopt},
      // --- generative models
      {"MnistVae", "a variational autoencoder for 28x28 MNIST digits with a 16-dimensional latent space", "vae",
       "", {{"SIDE", 28}, {"CHANNELS", 1}, {"LATENT", 16}, {"PIXELS", 784}}, {}, V{}, {{"Z", 16}, {"P", 784}},
       std::nullopt},
      {"ColourVae", "a VAE with hidden width 512 for 32x32 colour images", "vae", "",
       {{"HIDDEN", 512}, {"SIDE", 32}, {"CHANNELS", 3}, {"PIXELS", 3072}}, {}, V{}, {{"H", 512}, {"P", 3072}},
       std::nullopt},
      {"Gan", "a GAN with a generator and a discriminator for 48x48 colour images, noise dim 128", "gan", "",
       {{"SIDE", 48}, {"CHANNELS", 3}, {"NOISE", 128}, {"PIXELS", 6912}}, {}, V{}, {{"Z", 128}, {"S", 48}},
       std::nullopt},
      {"WideGan", "a DCGAN-like generative adversarial network with 512 hidden units", "gan", "",
       {{"HIDDEN", 512}}, {}, V{}, {{"H", 512}}, std::nullopt},
      {"Diffusion", "a diffusion model for 48x48 images with 8 residual blocks and 50 sampling steps", "diffusion",
       "", {{"SIDE", 48}, {"N_BLOCKS", 8}, {"STEPS", 50}}, {}, V{"×50 (inference)", "×8"}, {{"S", 48}, {"W", 64}},
       std::nullopt},
      {"DdpmSteps", "a DDPM noise predictor with width 48 and 5 steps", "diffusion", "",
       {{"WIDTH", 48}, {"STEPS", 5}}, {}, V{"×4", "×5 (inference)"}, {{"W", 48}}, std::nullopt},
      // --- fields, KANs, agents, contrastive encoders, experts, MLPs
      {"Nerf", "a NeRF with 8 layers of 128 units and 6 frequencies", "nerf", "",
       {{"N_LAYERS", 8}, {"HIDDEN", 128}, {"FREQS", 6}, {"ENC", 39}}, {}, V{"×6"},
       {{"H", 128}, {"E", 39}, {"L", 6}}, std::nullopt},
      {"Kan", "a Kolmogorov-Arnold network with 4 layers of width 32 and 16 knots", "kan", "",
       {{"N_LAYERS", 4}, {"HIDDEN", 32}, {"KNOTS", 16}}, {}, V{"×2"}, {{"H", 32}, {"K", 16}}, std::nullopt},
      {"KanRegressor", "a KAN regressor with 3 inputs and 2 outputs", "kan", "", {{"IN", 3}, {"OUT", 2}}, {}, V{},
       {{"I", 3}}, std::nullopt},
      {"Dqn", "a DQN agent for CartPole with 4 observations and 2 actions", "policy", "",
       {{"OBS", 4}, {"ACTIONS", 2}}, {}, V{}, {{"O", 4}, {"A", 2}}, std::nullopt},
      {"PolicyGradient", "a policy gradient agent with 6 actions and 3 layers of 256 units", "policy", "",
       {{"ACTIONS", 6}, {"N_LAYERS", 3}, {"HIDDEN", 256}}, {"pg"}, V{}, {{"A", 6}, {"H", 256}}, std::nullopt},
      // lossFn embeds both views (two calls, two ×3 loops), predictFn one: one is shared with
      // inference, the other is drawn for training only.
      {"Siamese", "a siamese network for contrastive learning of 48-d embeddings with 5 layers", "siamese", "",
       {{"EMBED", 48}, {"N_LAYERS", 5}}, {}, V{"×3", "×3 (training)"}, {{"E", 48}}, std::nullopt},
      {"MixtureOfExperts", "a mixture of experts transformer with 12 experts and 4 layers", "moe", "",
       {{"EXPERTS", 12}, {"N_LAYERS", 4}}, {}, V{"×12", "×4"}, {{"E", 12}, {"D", 128}}, std::nullopt},
      {"SwitchTransformer", "a switch transformer with top-1 routing over 6 experts", "moe", "",
       {{"EXPERTS", 6}}, {"top1"}, V{"×2", "×6"}, {{"E", 6}}, std::nullopt},
      // 20·256 + 256 + 2·(256·256 + 256) + 256·5 + 5 = 138,245.
      {"MlpHiddenLayers", "an MLP with 3 hidden layers of 256 units for 20 features and 5 classes", "mlp", "",
       {{"N_LAYERS", 4}, {"HIDDEN", 256}, {"IN", 20}, {"OUT", 5}}, {}, V{"×2"}, {{"H", 256}, {"F", 20}, {"K", 5}},
       138'245},
      {"RegressionMlp", "a regression MLP that fits sin(x) with 2 layers of 32 neurons", "mlp", "",
       {{"N_LAYERS", 2}, {"HIDDEN", 32}}, {"regression"}, V{}, {{"H", 32}}, std::nullopt},
      // The page's suggestions (src/server/web/index.html) name a task, not an architecture.
      {"HandwrittenDigits", "recognize handwritten digits", "cnn", "", {{"SIDE", 28}, {"CHANNELS", 1}, {"CLASSES", 10}},
       {}, std::nullopt, {}, std::nullopt},
      {"BalanceARod", "balance a rod", "policy", "", {}, {}, std::nullopt, {}, std::nullopt},
      {"SineWave", "draw a sine wave", "mlp", "", {{"IN", 1}, {"OUT", 1}}, {"regression"}, std::nullopt, {},
       std::nullopt},
      {"TabularMlp", "a model for tabular data with 12 features", "mlp", "", {{"IN", 12}}, {}, V{"×2"},
       {{"F", 12}}, std::nullopt},
      {"NothingNamed", "something that predicts house prices", "mlp", "", {{"N_LAYERS", 4}}, {}, V{"×2"},
       {{"H", 128}}, std::nullopt},
  };
  return cases;
}

}  // namespace nndna::designer::testcases
