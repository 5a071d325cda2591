#include "designer/offline/template_catalogue.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <stdexcept>

#include "designer/numbers.hpp"
#include "designer/offline/description.hpp"
#include "embedded_file.hpp"

namespace nndna::designer {
namespace embedded {
std::span<const EmbeddedFile> templateFiles();  // generated from src/designer/templates/*.cpp
}

namespace {

std::int64_t at(const ConstantValues& v, std::string_view name) {
  const auto it = v.find(name);
  if (it == v.end()) throw std::logic_error(fmt::format("template constant {} is missing", name));
  return it->second;
}

std::string num(std::int64_t n) { return withThousands(n); }

std::string plural(std::int64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", num(n), n == 1 ? one : many);
}

std::string imageWords(const ConstantValues& v) {
  const std::int64_t c = at(v, "CHANNELS");
  const std::string_view kind = c == 3 ? "colour" : c == 1 ? "grey" : "";
  return kind.empty() ? fmt::format("{0}×{0} images of {1} channels", at(v, "SIDE"), c)
                      : fmt::format("{0}×{0} {1} images", at(v, "SIDE"), kind);
}

// --- Adjustments: sizes that must agree -------------------------------------------------------

void roundUpToMultiple(Draft& d, std::string_view constant, std::int64_t multiple, std::string_view why) {
  std::int64_t& value = d.values.at(std::string(constant));
  if (multiple <= 0 || value % multiple == 0) return;
  const std::int64_t rounded = (value / multiple + 1) * multiple;
  d.notes.push_back(fmt::format("{} {} rounded up to {}: {}", constant, value, rounded, why));
  value = rounded;
  d.sourceOf[std::string(constant)] += " (adjusted)";
}

void atLeast(Draft& d, std::string_view constant, std::int64_t minimum, std::string_view why) {
  std::int64_t& value = d.values.at(std::string(constant));
  if (value >= minimum) return;
  d.notes.push_back(fmt::format("{} {} raised to {}: {}", constant, value, minimum, why));
  value = minimum;
  d.sourceOf[std::string(constant)] += " (adjusted)";
}

void widthByHeads(Draft& d, Description&) {
  atLeast(d, "H", 1, "at least one head");
  roundUpToMultiple(d, "D", d.values.at("H"), "the width must split evenly into the heads");
}

// N_LAYERS counts Linear layers; "3 hidden layers" are the activations between them: 4 layers.
// Images named by the text ("MNIST", "32x32 colour images") are flattened into the input
// features, unless it gives those itself.
void mlpLike(Draft& d, Description& description) {
  if (auto hidden = description.size("hidden_layers"); hidden && !description.size("layers")) {
    d.values["N_LAYERS"] = hidden->value + 1;
    d.sourceOf["N_LAYERS"] = fmt::format("from \"{}\": one more Linear layer than hidden layers", hidden->phrase);
  }
  atLeast(d, "N_LAYERS", 2, "an input and an output layer");
  const auto side = description.size("side");
  if (side && !description.size("features") && d.values.contains("IN")) {
    const std::int64_t channels = description.size("channels") ? description.size("channels")->value : 1;
    d.values["IN"] = side->value * side->value * channels;
    d.sourceOf["IN"] = fmt::format("from \"{}\": {}×{}×{} images, flattened", side->phrase, side->value, side->value,
                                   channels);
  }
}

void cnnSizes(Draft& d, Description&) {
  atLeast(d, "N_BLOCKS", 1, "at least one conv block");
  atLeast(d, "SIDE", 2, "the image must survive one 2×2 pooling");
  std::int64_t& blocks = d.values.at("N_BLOCKS");
  const std::int64_t side = d.values.at("SIDE");
  // How often the side halves before it reaches 1: floor(log2(side)).
  const std::int64_t fit = std::bit_width(static_cast<std::uint64_t>(side)) - 1;
  if (blocks > fit) {
    d.notes.push_back(fmt::format("N_BLOCKS {} lowered to {}: a {}×{} image halves only {} times", blocks, fit,
                                  side, side, fit));
    blocks = fit;
    d.sourceOf["N_BLOCKS"] += " (adjusted)";
  }
}

void atMost(Draft& d, std::string_view constant, std::int64_t maximum, std::string_view why) {
  std::int64_t& value = d.values.at(std::string(constant));
  if (value <= maximum) return;
  d.notes.push_back(fmt::format("{} {} lowered to {}: {}", constant, value, maximum, why));
  value = maximum;
  d.sourceOf[std::string(constant)] += " (adjusted)";
}

void unetSizes(Draft& d, Description&) {
  atLeast(d, "DEPTH", 1, "at least one level");
  atMost(d, "DEPTH", 12, "each level halves the image, and 12 levels already need a side of 4,096");
  roundUpToMultiple(d, "SIDE", std::int64_t{1} << d.values.at("DEPTH"),
                    "each level halves the image and the skip connections must match");
}

void vitSizes(Draft& d, Description& description) {
  widthByHeads(d, description);
  roundUpToMultiple(d, "SIDE", d.values.at("PATCH"), "the image must cut into whole patches");
}

void rnnCell(Draft& d, Description& description) {
  if (d.options.contains("gru") && d.options.contains("lstm")) {
    d.options.erase("gru");
    d.notes.push_back("both GRU and LSTM named: used an LSTM cell");
  }
  if (d.options.contains("gru") || d.options.contains("lstm")) d.options.erase("rnn");
  // The template forecasts a series; asked to classify ("an LSTM that classifies sentences"), it
  // says so rather than answer another question in silence.
  if (description.has("classification")) {
    d.unusedPhrases.emplace_back("classification");
    d.notes.emplace_back("this recurrent template forecasts the next step of a series: it does not classify");
  }
}

void encoderDecoderLayers(Draft& d, Description& description) {
  widthByHeads(d, description);
  // "6 layers" without "encoder"/"decoder" sets both stacks.
  if (auto layers = description.size("layers")) {
    for (std::string_view stack : {"N_ENCODER", "N_DECODER"}) {
      const std::string key = stack == "N_ENCODER" ? "encoder_layers" : "decoder_layers";
      if (!description.size(key)) {
        d.values[std::string(stack)] = layers->value;
        d.sourceOf[std::string(stack)] = fmt::format("from \"{}\"", layers->phrase);
      }
    }
  }
}

void resnetDepth(Draft& d, Description& description) {
  const auto depth = description.size("layers");
  if (description.mentions("bottleneck", true)) d.options.insert("bottleneck");
  if (!depth) return;
  struct Layout {
    std::int64_t depth;
    std::string_view blocks;
    bool bottleneck;
  };
  static constexpr Layout kLayouts[] = {{18, "{2, 2, 2, 2}", false},
                                        {34, "{3, 4, 6, 3}", false},
                                        {50, "{3, 4, 6, 3}", true},
                                        {101, "{3, 4, 23, 3}", true},
                                        {152, "{3, 8, 36, 3}", true}};
  const Layout* best = &kLayouts[0];
  for (const Layout& layout : kLayouts) {
    if (std::abs(layout.depth - depth->value) < std::abs(best->depth - depth->value)) best = &layout;
  }
  if (best->depth != depth->value) {
    d.notes.push_back(fmt::format("ResNets come in depths 18, 34, 50, 101 and 152: \"{}\" used depth {}",
                                  depth->phrase, best->depth));
  }
  d.textConstants["BLOCKS"] = std::string(best->blocks);
  d.sourceOf["BLOCKS"] = fmt::format("from \"{}\" (ResNet-{})", depth->phrase, best->depth);
  if (best->bottleneck) d.options.insert("bottleneck");
}

void moeRouting(Draft& d, Description& description) {
  widthByHeads(d, description);
  if (auto k = description.size("top_k")) {
    if (k->value == 1) {
      d.options.insert("top1");
    } else if (k->value != 2) {
      d.notes.push_back(fmt::format("\"{}\": the template routes to the top 1 or 2 experts; used top-2", k->phrase));
    }
  }
  atLeast(d, "EXPERTS", d.options.contains("top1") ? 1 : 2, "top-2 routing needs two experts");
}

void languageTask(Draft& d, Description& description) {
  widthByHeads(d, description);
  // A model of arithmetic or of characters needs a small vocabulary, not a tokenizer's.
  if (!description.size("vocab")) {
    if (description.has("arithmetic")) {
      d.values["V"] = 16;
      d.sourceOf["V"] = "arithmetic: ten digits and a few signs";
      if (!description.size("context")) {
        d.values["T"] = 12;
        d.sourceOf["T"] = "arithmetic: room for a sum written out";
      }
    } else if (description.has("characters")) {
      d.values["V"] = 96;
      d.sourceOf["V"] = "characters: the printable ones";
    }
  }
}

// --- Texts --------------------------------------------------------------------------------------

Texts mlpTexts(const ConstantValues& v, const OptionSet& o) {
  const bool regression = o.contains("regression");
  return {regression ? "MLP regressor" : "MLP classifier",
          fmt::format("A multilayer perceptron of {}: {} input features, hidden layers of {} ReLU units, {}. {} on "
                      "batches of {}, Adam at 1e-3.",
                      plural(at(v, "N_LAYERS"), "Linear layer", "Linear layers"), num(at(v, "IN")),
                      num(at(v, "HIDDEN")),
                      regression ? plural(at(v, "OUT"), "predicted value", "predicted values")
                                 : plural(at(v, "OUT"), "output class", "output classes"),
                      regression ? "Mean squared error" : "Cross-entropy", num(at(v, "B")))};
}

Texts cnnTexts(const ConstantValues& v, const OptionSet&) {
  return {"CNN image classifier",
          fmt::format("A convolutional network for {}: a 3×3 stem and {} of {} channels (3×3 conv, BatchNorm, ReLU, "
                      "2×2 max pooling), global average pooling and a {}-way linear head. Cross-entropy on batches "
                      "of {}, SGD with momentum.",
                      imageWords(v), plural(at(v, "N_BLOCKS"), "conv block", "conv blocks"), num(at(v, "WIDTH")),
                      num(at(v, "CLASSES")), num(at(v, "B")))};
}

Texts resnetTexts(const ConstantValues& v, const OptionSet& o) {
  const bool bottleneck = o.contains("bottleneck");
  const std::int64_t w = at(v, "WIDTH"), e = at(v, "EXPANSION");
  return {bottleneck ? "ResNet with bottleneck blocks" : "ResNet image classifier",
          fmt::format("A residual network of 4 stages of {} blocks ({} to {} channels out), after a 7×7 stride-2 stem "
                      "and max pooling; global average pooling and a {}-way head. {} in batches of {}, SGD with "
                      "momentum.",
                      bottleneck ? "bottleneck (1×1, 3×3, 1×1)" : "basic (two 3×3 convs)", num(w * e), num(w * 8 * e),
                      num(at(v, "CLASSES")), imageWords(v), num(at(v, "B")))};
}

Texts unetTexts(const ConstantValues& v, const OptionSet&) {
  const std::int64_t depth = at(v, "DEPTH"), w = at(v, "WIDTH");
  return {"U-Net segmentation",
          fmt::format("A U-Net with {} ({} to {} channels, bottleneck {}) segmenting {} into {} classes: double 3×3 "
                      "convs with BatchNorm, max pooling down, nearest-neighbour upsampling up, skip connections "
                      "joined by channel concatenation. Per-pixel cross-entropy on batches of {}, Adam.",
                      plural(depth, "level", "levels"), num(w), num(w << (depth - 1)), num(w << depth), imageWords(v),
                      num(at(v, "CLASSES")), num(at(v, "B")))};
}

Texts rnnTexts(const ConstantValues& v, const OptionSet& o) {
  const std::string_view cell = o.contains("lstm") ? "LSTM" : o.contains("gru") ? "GRU" : "Elman RNN (tanh)";
  const std::string_view label = o.contains("lstm") ? "Unrolled LSTM forecaster"
                                 : o.contains("gru") ? "Unrolled GRU forecaster"
                                                     : "Unrolled RNN forecaster";
  return {std::string(label),
          fmt::format("An {} of {} hidden units unrolled over {} of a {}-feature series from a zero state; a shared "
                      "linear head forecasts the next step from each state. MSE on batches of {}, Adam at 1e-3.",
                      cell, num(at(v, "HIDDEN")), plural(at(v, "T"), "time step", "time steps"), num(at(v, "IN")),
                      num(at(v, "B")))};
}

Texts encoderTexts(const ConstantValues& v, const OptionSet& o) {
  const std::string body = fmt::format(
      "{} post-norm blocks (width {}, {} heads of {}, GELU MLP of {}) over {}-token sequences from a {}-token "
      "vocabulary, with learned positions",
      num(at(v, "N_LAYERS")), num(at(v, "D")), num(at(v, "H")), num(at(v, "DH")), num(at(v, "F")), num(at(v, "T")),
      num(at(v, "V")));
  if (o.contains("mlm")) {
    return {"BERT-style masked language model",
            fmt::format("A BERT-style encoder of {} and segment embeddings. Pre-trained as a masked language model "
                        "(every position predicted through the tied token table); inference gives the pooled "
                        "first-token embedding. Batches of {}, AdamW.",
                        body, num(at(v, "B")))};
  }
  return {"Transformer encoder classifier",
          fmt::format("A BERT-style encoder of {}. The pooled first token is classified into {} labels; cross-entropy "
                      "on batches of {}, AdamW.",
                      body, num(at(v, "CLASSES")), num(at(v, "B")))};
}

Texts decoderTexts(const ConstantValues& v, const OptionSet& o) {
  std::vector<std::string> choices;
  choices.push_back(o.contains("rope") ? "rotary position embeddings" : "learned positions");
  choices.push_back(o.contains("rmsnorm") ? "RMSNorm" : "LayerNorm");
  choices.push_back(fmt::format("{} MLP of {}", o.contains("swiglu") ? "SwiGLU" : "GELU", num(at(v, "F"))));
  if (o.contains("nobias")) choices.push_back("bias-free projections");
  choices.push_back(o.contains("untied") ? "a separate output head" : "the token embedding tied to the output");
  const std::int64_t layers = at(v, "N_LAYERS");
  return {at(v, "D") >= 2048 ? "Large decoder-only transformer" : "Decoder-only transformer",
          fmt::format("A decoder-only transformer of {} pre-norm blocks: width {}, {} heads of {}, causal "
                      "self-attention, {}. Context of {} tokens, vocabulary of {}; next-token cross-entropy on "
                      "batches of {}, AdamW.",
                      num(layers), num(at(v, "D")), num(at(v, "H")), num(at(v, "DH")), fmt::join(choices, ", "),
                      num(at(v, "T")), num(at(v, "V")), num(at(v, "B")))};
}

Texts encoderDecoderTexts(const ConstantValues& v, const OptionSet&) {
  return {"Encoder–decoder transformer",
          fmt::format("A sequence-to-sequence transformer: {} encoder blocks read {} source tokens, {} decoder blocks "
                      "write {} target tokens with causal self-attention and cross-attention to the encoder (width "
                      "{}, {} heads, GELU MLP of {}, pre-norm). One {}-token embedding is shared by source, target "
                      "and output. Cross-entropy with teacher forcing, batches of {}, AdamW.",
                      num(at(v, "N_ENCODER")), num(at(v, "S")), num(at(v, "N_DECODER")), num(at(v, "T")),
                      num(at(v, "D")), num(at(v, "H")), num(at(v, "F")), num(at(v, "V")), num(at(v, "B")))};
}

Texts vitTexts(const ConstantValues& v, const OptionSet&) {
  return {"Vision transformer (ViT)",
          fmt::format("A vision transformer for {}: {}×{} patches ({} per image) embedded by a strided convolution, "
                      "a learned [CLS] token and positions, {} pre-norm blocks (width {}, {} heads of {}, GELU MLP of "
                      "{}) and a {}-way head on the [CLS] state. Cross-entropy on batches of {}, AdamW.",
                      imageWords(v), at(v, "PATCH"), at(v, "PATCH"), num(at(v, "N")), num(at(v, "N_LAYERS")),
                      num(at(v, "D")), num(at(v, "H")), num(at(v, "DH")), num(at(v, "F")), num(at(v, "CLASSES")),
                      num(at(v, "B")))};
}

Texts vaeTexts(const ConstantValues& v, const OptionSet&) {
  return {"Variational autoencoder",
          fmt::format("A VAE on {}: an encoder of {} ReLU units gives the mean and log-variance of a {}-d Gaussian "
                      "latent, sampled by the reparameterisation trick and decoded by {} units to pixel logits. "
                      "Bernoulli reconstruction loss plus the KL term, batches of {}, Adam; inference decodes prior "
                      "samples.",
                      imageWords(v), num(at(v, "HIDDEN")), num(at(v, "LATENT")), num(at(v, "HIDDEN")), num(at(v, "B")))};
}

Texts ganTexts(const ConstantValues& v, const OptionSet&) {
  return {"GAN: generator and discriminator",
          fmt::format("A GAN for {}: a generator of two {}-unit ReLU layers maps {}-d noise to tanh pixels, a "
                      "discriminator of two {}-unit leaky-ReLU layers scores images. Both non-saturating losses in "
                      "one step, batches of {}, Adam at 2e-4 with beta1 0.5.",
                      imageWords(v), num(at(v, "HIDDEN")), num(at(v, "NOISE")), num(at(v, "HIDDEN")), num(at(v, "B")))};
}

Texts diffusionTexts(const ConstantValues& v, const OptionSet&) {
  return {"Diffusion noise predictor",
          fmt::format("A diffusion model's noise predictor for {}: a 3×3 conv in, {} of {} channels told the time by "
                      "a {}-wide sinusoidal embedding, a 3×3 conv out. Trained with MSE on the added noise (batches "
                      "of {}, AdamW); inference denoises pure noise in {}.",
                      imageWords(v), plural(at(v, "N_BLOCKS"), "residual block", "residual blocks"),
                      num(at(v, "WIDTH")), num(at(v, "TEMB")), num(at(v, "B")), plural(at(v, "STEPS"), "step", "steps"))};
}

Texts nerfTexts(const ConstantValues& v, const OptionSet&) {
  return {"NeRF coordinate network",
          fmt::format("A NeRF-style MLP: 3-D points encoded with sines and cosines of {} octave frequencies ({} "
                      "values), {} of {} ReLU units, a head to colour (sigmoid) and density (ReLU). MSE on batches of "
                      "{} points, Adam at 5e-4.",
                      num(at(v, "FREQS")), num(at(v, "ENC")), plural(at(v, "N_LAYERS"), "Linear layer", "Linear layers"),
                      num(at(v, "HIDDEN")), num(at(v, "B")))};
}

Texts kanTexts(const ConstantValues& v, const OptionSet&) {
  return {"Kolmogorov–Arnold network",
          fmt::format("A KAN of {} from {} inputs through {}-wide hidden layers to {}: each edge a piecewise-linear "
                      "spline over {} knots plus a SiLU base term. MSE regression on batches of {}, Adam.",
                      plural(at(v, "N_LAYERS"), "layer", "layers"), num(at(v, "IN")), num(at(v, "HIDDEN")),
                      plural(at(v, "OUT"), "output", "outputs"), num(at(v, "KNOTS")), num(at(v, "B")))};
}

Texts policyTexts(const ConstantValues& v, const OptionSet& o) {
  const std::string net = fmt::format("an MLP of {} ({} ReLU units)", plural(at(v, "N_LAYERS"), "Linear layer", "Linear layers"),
                                      num(at(v, "HIDDEN")));
  if (o.contains("pg")) {
    return {"Policy-gradient agent",
            fmt::format("A policy-gradient agent over {}-feature observations: {} gives logits over {} actions; the "
                        "log-probability of each action taken is weighted by its advantage (REINFORCE with a "
                        "baseline). Inference samples an action. Batches of {}, Adam.",
                        num(at(v, "OBS")), net, num(at(v, "ACTIONS")), num(at(v, "B")))};
  }
  return {"Deep Q-network",
          fmt::format("A double DQN over {}-feature observations: {} gives a Q-value for each of {} actions; the Q of "
                      "the action taken is regressed on the reward plus the discounted target-network value (gamma "
                      "0.99) of the next state's best action. Batches of {} transitions, Adam.",
                      num(at(v, "OBS")), net, num(at(v, "ACTIONS")), num(at(v, "B")))};
}

Texts siameseTexts(const ConstantValues& v, const OptionSet&) {
  return {"Siamese contrastive encoder",
          fmt::format("A siamese network: one MLP encoder ({}, {} ReLU units, {}-d output) embeds both views of {} "
                      "pairs of {}-feature inputs; unit-length embeddings are compared by cosine similarity at "
                      "temperature 0.1 with the InfoNCE loss. Adam at 1e-3.",
                      plural(at(v, "N_LAYERS"), "Linear layer", "Linear layers"), num(at(v, "HIDDEN")),
                      num(at(v, "EMBED")), num(at(v, "B")), num(at(v, "IN")))};
}

Texts moeTexts(const ConstantValues& v, const OptionSet& o) {
  return {"Mixture-of-experts transformer",
          fmt::format("A decoder-only transformer of {} whose MLP is a mixture of {} GELU experts ({} wide) with a "
                      "top-{} router; width {}, {} heads, causal attention, learned positions, a {}-token vocabulary "
                      "tied to the output. Next-token cross-entropy on batches of {} × {} tokens, AdamW.",
                      plural(at(v, "N_LAYERS"), "block", "blocks"), num(at(v, "EXPERTS")), num(at(v, "F")),
                      o.contains("top1") ? 1 : 2, num(at(v, "D")), num(at(v, "H")), num(at(v, "V")), num(at(v, "B")),
                      num(at(v, "T")))};
}

// Parameters shared by several templates.
constexpr TemplateParam kBatch{"batch", "B", "batch", Scaling::none};
constexpr TemplateParam kSide{"side", "SIDE", "image side", Scaling::none};
constexpr TemplateParam kChannels{"channels", "CHANNELS", "image channels", Scaling::none};
constexpr TemplateParam kClasses{"classes", "CLASSES", "classes", Scaling::none};

std::vector<TemplateInfo> buildCatalogue() {
  const std::vector<TemplateParam> transformer = {
      kBatch,
      {"context", "T", "context", Scaling::none},
      {"vocab", "V", "vocabulary", Scaling::none},
      {"width", "D", "width", Scaling::width},
      {"embedding", "D", "width", Scaling::width},
      {"heads", "H", "heads", Scaling::heads},
      {"ffn", "F", "MLP hidden", Scaling::none},
      {"layers", "N_LAYERS", "layers", Scaling::depth},
      {"hidden_layers", "N_LAYERS", "layers", Scaling::depth},
  };
  // Templates whose N_LAYERS counts Linear layers read "3 hidden layers" in mlpLike().
  constexpr TemplateParam kHiddenLayers{"hidden_layers", "", "hidden layers", Scaling::none};
  std::vector<TemplateInfo> c;
  c.push_back({"moe", "mixture-of-experts transformer",
               {{"mixture of experts", 6}, {"moe", 6}, {"mixtral", 5}, {"switch transformer", 5}, {"experts", 3},
                {"expert", 3}, {"router", 2}, {"routing", 2}, {"transformer", 1}, {"language model", 1}},
               [&] {
                 auto p = transformer;
                 p.push_back({"experts", "EXPERTS", "experts", Scaling::none});
                 p.push_back({"top_k", "", "experts per token", Scaling::none});
                 return p;
               }(),
               {{"top1", "top1"}},
               {},
               moeRouting,
               moeTexts});
  c.push_back({"cnn", "convolutional image classifier",
               {{"cnn", 3}, {"convolutional", 3}, {"convnet", 3}, {"conv net", 3}, {"convolution", 2},
                {"convolutions", 2}, {"image classifier", 2}, {"classify images", 2}, {"classifies images", 2},
                {"vgg", 2}, {"lenet", 2}, {"alexnet", 2}, {"images", 1}, {"image", 1}, {"mnist", 1}, {"cifar", 1},
                // The page's own suggestion, "recognize handwritten digits": MNIST.
                {"handwritten digits", 3}, {"handwritten", 2}, {"handwriting", 2}},
               {kBatch, kSide, kChannels, kClasses,
                {"width", "WIDTH", "conv channels", Scaling::width},
                {"layers", "N_BLOCKS", "conv blocks", Scaling::depth}},
               {},
               {},
               cnnSizes,
               cnnTexts});
  c.push_back({"vit", "vision transformer",
               {{"vit", 5}, {"vision transformer", 5}, {"image transformer", 4}, {"deit", 4}, {"patches", 2},
                {"patch", 2}, {"transformer", 1}, {"images", 1}, {"image", 1}},
               {kBatch, kSide, kChannels, kClasses,
                {"patch", "PATCH", "patch side", Scaling::none},
                {"width", "D", "width", Scaling::width},
                {"embedding", "D", "width", Scaling::width},
                {"heads", "H", "heads", Scaling::heads},
                {"ffn", "F", "MLP hidden", Scaling::none},
                {"layers", "N_LAYERS", "layers", Scaling::depth}},
               {},
               {},
               vitSizes,
               vitTexts});
  c.push_back({"encoder_decoder", "encoder–decoder transformer",
               {{"encoder decoder", 5}, {"seq2seq", 5}, {"sequence to sequence", 5}, {"translation", 4},
                {"translate", 4}, {"translates", 4}, {"translator", 4}, {"t5", 4}, {"bart", 4},
                {"summarization", 3}, {"summarisation", 3}, {"summarize", 3}, {"summarise", 3},
                {"cross attention", 3}, {"transformer", 1}},
               {kBatch,
                {"context", "S", "source length", Scaling::none},
                {"context", "T", "target length", Scaling::none},
                {"vocab", "V", "vocabulary", Scaling::none},
                {"width", "D", "width", Scaling::width},
                {"embedding", "D", "width", Scaling::width},
                {"heads", "H", "heads", Scaling::heads},
                {"ffn", "F", "MLP hidden", Scaling::none},
                {"layers", "", "layers of each stack", Scaling::none},
                {"encoder_layers", "N_ENCODER", "encoder layers", Scaling::depth},
                {"decoder_layers", "N_DECODER", "decoder layers", Scaling::depth}},
               {},
               {},
               encoderDecoderLayers,
               encoderDecoderTexts});
  c.push_back({"transformer_encoder", "transformer encoder (BERT-style)",
               {{"bert", 5}, {"roberta", 4}, {"encoder only", 4}, {"transformer encoder", 4},
                {"masked language model", 4}, {"mlm", 4}, {"text classifier", 3}, {"classify text", 3},
                {"text classification", 3}, {"sentiment", 3}, {"encoder", 2}, {"transformer", 1}},
               [&] {
                 auto p = transformer;
                 p.push_back(kClasses);
                 return p;
               }(),
               {{"mlm", "mlm"}},
               {},
               widthByHeads,
               encoderTexts});
  c.push_back({"decoder_lm", "decoder-only transformer language model",
               {{"gpt", 4}, {"language model", 4}, {"llm", 4}, {"decoder only", 4}, {"next token", 3},
                {"autoregressive", 3}, {"chatbot", 3}, {"text generation", 3}, {"generate text", 3},
                {"generates text", 3}, {"llama", 3}, {"mistral", 3}, {"causal", 2}, {"transformer", 2}, {"lm", 2}},
               transformer,
               {{"rmsnorm", "rmsnorm"}, {"swiglu", "swiglu"}, {"rope", "rope"}, {"no_bias", "nobias"},
                {"untied", "untied"}},
               {},
               languageTask,
               decoderTexts});
  c.push_back({"resnet", "residual network (ResNet)",
               {{"resnet", 5}, {"residual network", 4}, {"deep residual", 3}, {"residual", 2},
                {"skip connections", 1}},
               {kBatch, kSide, kChannels, kClasses, {"width", "WIDTH", "stem channels", Scaling::width},
                {"layers", "", "depth", Scaling::none}},
               {{"bottleneck", "bottleneck"}},
               {},
               resnetDepth,
               resnetTexts});
  c.push_back({"unet", "U-Net",
               {{"u net", 5}, {"unet", 5}, {"segmentation", 3}, {"segments", 2}, {"segment", 2}, {"per pixel", 2},
                {"masks", 1}},
               {kBatch, kSide, kChannels, kClasses,
                {"width", "WIDTH", "first-level channels", Scaling::width},
                {"layers", "DEPTH", "levels", Scaling::none}},
               {},
               {},
               unetSizes,
               unetTexts});
  c.push_back({"rnn", "unrolled recurrent network",
               {{"rnn", 4}, {"lstm", 4}, {"gru", 4}, {"recurrent", 3}, {"elman", 3}, {"time series", 3},
                {"forecast", 2}, {"forecasts", 2}, {"forecasting", 2}, {"unrolled", 2}, {"sequence", 1}},
               {kBatch,
                {"steps", "T", "time steps", Scaling::none},
                {"context", "T", "time steps", Scaling::none},
                {"features", "IN", "features", Scaling::none},
                {"width", "HIDDEN", "state width", Scaling::width}},
               {{"gru", "gru"}, {"lstm", "lstm"}},
               {"rnn"},
               rnnCell,
               rnnTexts});
  c.push_back({"vae", "variational autoencoder",
               {{"vae", 5}, {"variational autoencoder", 5}, {"variational auto encoder", 5}, {"variational", 3},
                {"reparameterization", 3}, {"reparameterisation", 3}, {"autoencoder", 2}, {"auto encoder", 2},
                {"latent space", 2}},
               {kBatch, kSide, kChannels,
                {"width", "HIDDEN", "hidden", Scaling::width},
                {"latent", "LATENT", "latent", Scaling::none}},
               {},
               {},
               nullptr,
               vaeTexts});
  c.push_back({"gan", "generative adversarial network",
               {{"gan", 5}, {"generative adversarial", 5}, {"dcgan", 4}, {"adversarial", 3}, {"generator", 3},
                {"discriminator", 3}},
               {kBatch, kSide, kChannels,
                {"width", "HIDDEN", "hidden", Scaling::width},
                {"noise", "NOISE", "noise", Scaling::none},
                {"latent", "NOISE", "noise", Scaling::none}},
               {},
               {},
               nullptr,
               ganTexts});
  c.push_back({"diffusion", "diffusion noise predictor",
               {{"diffusion", 5}, {"ddpm", 5}, {"noise predictor", 4}, {"stable diffusion", 4}, {"denoising", 3},
                {"denoiser", 3}, {"denoise", 3}, {"score model", 3}, {"score based", 3}},
               {kBatch, kSide, kChannels,
                {"width", "WIDTH", "channels", Scaling::width},
                {"layers", "N_BLOCKS", "residual blocks", Scaling::depth},
                {"steps", "STEPS", "denoising steps", Scaling::none},
                {"embedding", "TEMB", "time embedding", Scaling::none}},
               {},
               {},
               nullptr,
               diffusionTexts});
  c.push_back({"nerf", "NeRF coordinate network",
               {{"nerf", 5}, {"radiance field", 5}, {"radiance fields", 5}, {"implicit neural representation", 4},
                {"coordinate network", 4}, {"coordinate mlp", 4}, {"neural field", 3}, {"view synthesis", 3},
                {"siren", 3}, {"3d scene", 2}},
               {kBatch,
                {"frequencies", "FREQS", "frequencies", Scaling::none},
                {"width", "HIDDEN", "width", Scaling::width},
                {"layers", "N_LAYERS", "layers", Scaling::depth},
                kHiddenLayers},
               {},
               {},
               mlpLike,
               nerfTexts});
  c.push_back({"kan", "Kolmogorov–Arnold network",
               {{"kan", 5}, {"kolmogorov arnold", 5}, {"kolmogorov", 4}, {"spline", 2}, {"splines", 2}},
               {kBatch,
                {"features", "IN", "inputs", Scaling::none},
                {"width", "HIDDEN", "width", Scaling::width},
                {"layers", "N_LAYERS", "layers", Scaling::depth},
                {"outputs", "OUT", "outputs", Scaling::none},
                {"knots", "KNOTS", "knots", Scaling::none},
                kHiddenLayers},
               {},
               {},
               mlpLike,
               kanTexts});
  c.push_back({"policy", "reinforcement-learning agent (DQN or policy gradient)",
               {{"dqn", 5}, {"q network", 5}, {"q learning", 5}, {"deep q", 5}, {"reinforcement learning", 4},
                {"policy gradient", 4}, {"reinforcement", 3}, {"rl", 3}, {"policy", 3}, {"cartpole", 3},
                {"agent", 2}, {"actor", 2}, {"atari", 2}, {"reward", 2}, {"rewards", 2}, {"game", 1},
                // The control task a new user names ("balance a rod", the page's suggestion).
                {"cart pole", 3}, {"inverted pendulum", 3}, {"pendulum", 2}, {"balance", 2}},
               {kBatch,
                {"features", "OBS", "observation features", Scaling::none},
                {"width", "HIDDEN", "width", Scaling::width},
                {"layers", "N_LAYERS", "layers", Scaling::depth},
                {"actions", "ACTIONS", "actions", Scaling::none},
                {"outputs", "ACTIONS", "actions", Scaling::none},
                kHiddenLayers},
               {{"policy_gradient", "pg"}},
               {},
               mlpLike,
               policyTexts});
  c.push_back({"siamese", "siamese / contrastive encoder",
               {{"siamese", 5}, {"contrastive", 5}, {"simclr", 5}, {"infonce", 4}, {"clip", 4},
                {"metric learning", 4}, {"triplet", 3}, {"face verification", 3}, {"similarity", 2},
                {"embedding model", 2}, {"pairs", 1}},
               {kBatch,
                {"features", "IN", "input features", Scaling::none},
                {"width", "HIDDEN", "width", Scaling::width},
                {"embedding", "EMBED", "embedding size", Scaling::none},
                {"outputs", "EMBED", "embedding size", Scaling::none},
                {"layers", "N_LAYERS", "layers", Scaling::depth},
                kHiddenLayers},
               {},
               {},
               mlpLike,
               siameseTexts});
  c.push_back({"mlp", "multilayer perceptron",
               {{"mlp", 3}, {"multilayer perceptron", 3}, {"multi layer perceptron", 3}, {"perceptron", 2},
                {"fully connected", 2}, {"tabular", 2}, {"feedforward", 1}, {"feed forward", 1}},
               {kBatch,
                {"features", "IN", "input features", Scaling::none},
                {"width", "HIDDEN", "width", Scaling::width},
                {"layers", "N_LAYERS", "layers", Scaling::depth},
                {"classes", "OUT", "outputs", Scaling::none},
                {"outputs", "OUT", "outputs", Scaling::none},
                kHiddenLayers},
               {{"regression", "regression"}},
               {},
               mlpLike,
               mlpTexts});
  return c;
}

}  // namespace

const std::vector<TemplateInfo>& templateCatalogue() {
  static const std::vector<TemplateInfo> catalogue = buildCatalogue();
  return catalogue;
}

const TemplateInfo* findTemplate(std::string_view name) {
  for (const TemplateInfo& t : templateCatalogue()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::string_view templateText(std::string_view name) {
  const std::string file = std::string(name) + ".cpp";
  for (const EmbeddedFile& f : embedded::templateFiles()) {
    if (f.name == file) return f.bytes;
  }
  throw std::logic_error(fmt::format("no template file {} is built in", file));
}

const std::vector<Preset>& presets() {
  // Published counts: Hugging Face transformers' `num_parameters()` of the released checkpoints
  // (GPT-2, BERT, LLaMA-2), timm's vit_base_patch16_224, torchvision's resnet18/resnet50.
  static const std::vector<Preset> all = {
      {"GPT-2 medium", {"gpt2medium"}, "decoder_lm",
       {{"B", "8"}, {"T", "1024"}, {"V", "50257"}, {"D", "1024"}, {"H", "16"}, {"N_LAYERS", "24"}}, {},
       354'823'168, "Hugging Face transformers, GPT2LMHeadModel \"gpt2-medium\" (the paper's 345M)",
       "GPT-2 medium (355M)",
       "OpenAI's GPT-2 medium: 24 pre-LayerNorm decoder blocks of width 1024 with 16 heads of 64 and a GELU MLP of "
       "4096, learned positions over a 1024-token context, and the 50,257-token BPE embedding tied to the output. "
       "Next-token cross-entropy on batches of 8 × 1024 tokens, AdamW."},
      {"GPT-2 large", {"gpt2large"}, "decoder_lm",
       {{"B", "8"}, {"T", "1024"}, {"V", "50257"}, {"D", "1280"}, {"H", "20"}, {"N_LAYERS", "36"}}, {},
       774'030'080, "Hugging Face transformers, GPT2LMHeadModel \"gpt2-large\" (the paper's 762M)",
       "GPT-2 large (774M)",
       "OpenAI's GPT-2 large: 36 pre-LayerNorm decoder blocks of width 1280 with 20 heads of 64 and a GELU MLP of "
       "5120, learned positions over a 1024-token context, and the 50,257-token BPE embedding tied to the output. "
       "Next-token cross-entropy on batches of 8 × 1024 tokens, AdamW."},
      {"GPT-2 XL", {"gpt2xl", "gpt2extralarge"}, "decoder_lm",
       {{"B", "8"}, {"T", "1024"}, {"V", "50257"}, {"D", "1600"}, {"H", "25"}, {"N_LAYERS", "48"}}, {},
       1'557'611'200, "Hugging Face transformers, GPT2LMHeadModel \"gpt2-xl\" (the paper's 1542M)", "GPT-2 XL (1.5B)",
       "OpenAI's GPT-2 XL: 48 pre-LayerNorm decoder blocks of width 1600 with 25 heads of 64 and a GELU MLP of "
       "6400, learned positions over a 1024-token context, and the 50,257-token BPE embedding tied to the output. "
       "Next-token cross-entropy on batches of 8 × 1024 tokens, AdamW."},
      {"GPT-2 small", {"gpt2small", "gpt2"}, "decoder_lm",
       {{"B", "8"}, {"T", "1024"}, {"V", "50257"}, {"D", "768"}, {"H", "12"}, {"N_LAYERS", "12"}}, {},
       124'439'808, "Hugging Face transformers, GPT2LMHeadModel \"gpt2\" (the paper's 117M)", "GPT-2 small (124M)",
       "OpenAI's GPT-2 small: 12 pre-LayerNorm decoder blocks of width 768 with 12 heads of 64 and a GELU MLP of "
       "3072, learned positions over a 1024-token context, and the 50,257-token BPE embedding tied to the output. "
       "Next-token cross-entropy on batches of 8 × 1024 tokens, AdamW."},
      {"BERT large", {"bertlarge"}, "transformer_encoder",
       {{"B", "8"}, {"T", "512"}, {"V", "30522"}, {"D", "1024"}, {"H", "16"}, {"N_LAYERS", "24"}}, {"mlm"},
       335'141'888, "Hugging Face transformers, BertModel \"bert-large-uncased\" (the paper's 340M)",
       "BERT large (335M)",
       "Google's BERT large: 24 post-LayerNorm encoder blocks of width 1024 with 16 heads of 64 and a GELU MLP of "
       "4096 over 512 positions, a 30,522-token WordPiece vocabulary and two segment embeddings, and the tanh "
       "pooler. Masked-LM pre-training through the tied token table; inference gives the pooled embedding."},
      {"BERT base", {"bertbase", "bert"}, "transformer_encoder",
       {{"B", "8"}, {"T", "512"}, {"V", "30522"}, {"D", "768"}, {"H", "12"}, {"N_LAYERS", "12"}}, {"mlm"},
       109'482'240, "Hugging Face transformers, BertModel \"bert-base-uncased\" (the paper's 110M)", "BERT base (110M)",
       "Google's BERT base: 12 post-LayerNorm encoder blocks of width 768 with 12 heads of 64 and a GELU MLP of "
       "3072 over 512 positions, a 30,522-token WordPiece vocabulary and two segment embeddings, and the tanh "
       "pooler. Masked-LM pre-training through the tied token table; inference gives the pooled embedding."},
      {"ViT-B/16", {"vitb16", "vitbase16", "vitbasepatch16", "vitbpatch16"}, "vit",
       {{"B", "32"}, {"SIDE", "224"}, {"PATCH", "16"}, {"D", "768"}, {"H", "12"}, {"N_LAYERS", "12"},
        {"CLASSES", "1000"}},
       {}, 86'567'656, "timm, vit_base_patch16_224 (the paper's 86M)", "ViT-B/16 (86.6M)",
       "The ViT-Base/16 vision transformer: 224×224 colour images cut into 196 patches of 16×16, a [CLS] token and "
       "learned positions, 12 pre-LayerNorm blocks of width 768 with 12 heads of 64 and a GELU MLP of 3072, and a "
       "1000-way ImageNet head. Cross-entropy on batches of 32, AdamW."},
      {"ResNet-18", {"resnet18"}, "resnet", {{"B", "32"}, {"SIDE", "224"}, {"BLOCKS", "{2, 2, 2, 2}"}}, {},
       11'689'512, "torchvision, resnet18", "ResNet-18 (11.7M)",
       "torchvision's ResNet-18: a 7×7 stride-2 stem and max pooling, 4 stages of 2 basic blocks each (64, 128, 256, "
       "512 channels, strided 1×1 projection shortcuts where the shape changes), global average pooling and a "
       "1000-way head. 224×224 colour images in batches of 32, SGD with momentum."},
      {"ResNet-50", {"resnet50"}, "resnet", {{"B", "32"}, {"SIDE", "224"}, {"BLOCKS", "{3, 4, 6, 3}"}},
       {"bottleneck"}, 25'557'032, "torchvision, resnet50", "ResNet-50 (25.6M)",
       "torchvision's ResNet-50: a 7×7 stride-2 stem and max pooling, 4 stages of 3, 4, 6 and 3 bottleneck blocks "
       "(1×1, 3×3, 1×1; 256 to 2048 channels out, strided projection shortcuts), global average pooling and a "
       "1000-way head. 224×224 colour images in batches of 32, SGD with momentum."},
      {"LLaMA-2-7B", {"llama27b", "llama7b"}, "decoder_lm",
       {{"B", "1"}, {"T", "4096"}, {"V", "32000"}, {"D", "4096"}, {"H", "32"}, {"F", "11008"}, {"N_LAYERS", "32"}},
       {"rmsnorm", "swiglu", "rope", "nobias", "untied"}, 6'738'415'616,
       "Hugging Face transformers, LlamaForCausalLM \"meta-llama/Llama-2-7b-hf\"", "LLaMA-2-7B",
       "Meta's LLaMA 2 7B: 32 pre-RMSNorm decoder blocks of width 4096 with 32 heads of 128 and rotary positions, a "
       "SwiGLU MLP of 11008, no biases, a 32,000-token vocabulary with a separate output head, context 4096. "
       "Next-token cross-entropy on one 4096-token sequence, AdamW."},
      {"LLaMA-2-13B", {"llama213b", "llama13b"}, "decoder_lm",
       {{"B", "1"}, {"T", "4096"}, {"V", "32000"}, {"D", "5120"}, {"H", "40"}, {"F", "13824"}, {"N_LAYERS", "40"}},
       {"rmsnorm", "swiglu", "rope", "nobias", "untied"}, 13'015'864'320,
       "Hugging Face transformers, LlamaForCausalLM \"meta-llama/Llama-2-13b-hf\"", "LLaMA-2-13B",
       "Meta's LLaMA 2 13B: 40 pre-RMSNorm decoder blocks of width 5120 with 40 heads of 128 and rotary positions, a "
       "SwiGLU MLP of 13824, no biases, a 32,000-token vocabulary with a separate output head, context 4096. "
       "Next-token cross-entropy on one 4096-token sequence, AdamW."},
  };
  return all;
}

}  // namespace nndna::designer
