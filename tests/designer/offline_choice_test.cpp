// The offline designer's choices, in process (no compile): the template or preset each
// description names, the sizes and options of the filled spec, what it says about its choice.
#include <gtest/gtest.h>

#include <algorithm>

#include "designer/designer.hpp"
#include "designer/offline/offline_designer.hpp"
#include "designer/offline/template_text.hpp"
#include "offline_cases.hpp"

namespace nndna::designer {
namespace {

using testcases::OfflineCase;

class OfflineChoice : public ::testing::TestWithParam<OfflineCase> {};

std::vector<std::string> optionsOf(const designer::OfflineChoice& choice) {
  std::vector<std::string> options;
  for (const std::string& s : choice.settings) {
    if (s.starts_with("option ")) options.push_back(s.substr(7));
  }
  return options;
}

TEST_P(OfflineChoice, TemplateSizesAndOptions) {
  const OfflineCase& c = GetParam();
  const OfflineDesign d = designOffline(c.description);
  EXPECT_EQ(d.choice.templateName, c.templateName) << d.choice.why;
  EXPECT_EQ(d.choice.preset, c.preset);
  const auto constants = specConstants(d.source);
  for (const auto& [name, value] : c.constants) {
    ASSERT_TRUE(constants.contains(name)) << name << " in\n" << d.source;
    EXPECT_EQ(constants.at(std::string(name)), value) << name;
  }
  EXPECT_EQ(optionsOf(d.choice), std::vector<std::string>(c.options.begin(), c.options.end()));
  // The filled spec carries no template markers and says what it is.
  EXPECT_EQ(d.source.find("//["), std::string::npos);
  EXPECT_NE(d.source.find("NNDNA_SPEC("), std::string::npos);
  EXPECT_FALSE(d.choice.why.empty());
  EXPECT_FALSE(d.choice.settings.empty());
}

INSTANTIATE_TEST_SUITE_P(Descriptions, OfflineChoice, ::testing::ValuesIn(testcases::offlineCases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(OfflineDesigner, SaysWhyAndWhatItDidNotUse) {
  const OfflineDesign adder = designOffline("a small transformer that adds two-digit numbers");
  EXPECT_EQ(adder.choice.why, "\"transformer\" names it");
  EXPECT_TRUE(adder.choice.unusedWords.empty());
  EXPECT_NE(std::find(adder.choice.settings.begin(), adder.choice.settings.end(),
                      "vocabulary 16 (arithmetic: ten digits and a few signs)"),
            adder.choice.settings.end());
  EXPECT_NE(std::find(adder.choice.settings.begin(), adder.choice.settings.end(), "width 128 (default)"),
            adder.choice.settings.end());

  const OfflineDesign nothing = designOffline("something that predicts house prices");
  EXPECT_EQ(nothing.choice.why, "no architecture is named: an MLP, the default");
  EXPECT_EQ(nothing.choice.unusedWords, (std::vector<std::string>{"something", "predicts", "house", "prices"}));

  const OfflineDesign sine = designOffline("a regression MLP that fits sin(x) with 2 layers of 32 neurons");
  EXPECT_EQ(sine.choice.unusedWords, (std::vector<std::string>{"sin"}));
}

// A dataset's images, flattened, are an MLP's input; the dataset's name, which gave the classes
// too, is used (it was listed as unused, beside "outputs 10 (from "mnist")").
TEST(OfflineDesigner, AnMlpForADatasetTakesItsImagesFlattened) {
  const OfflineDesign mnist = designOffline("a small MLP for MNIST");
  EXPECT_EQ(mnist.choice.templateName, "mlp");
  EXPECT_EQ(specConstants(mnist.source).at("IN"), 784);
  EXPECT_EQ(specConstants(mnist.source).at("OUT"), 10);
  EXPECT_TRUE(mnist.choice.unusedWords.empty()) << mnist.choice.unusedWords.front();
  EXPECT_NE(std::find(mnist.choice.settings.begin(), mnist.choice.settings.end(),
                      "input features 784 (from \"mnist\": 28×28×1 images, flattened)"),
            mnist.choice.settings.end());
  EXPECT_EQ(specConstants(designOffline("an MLP for CIFAR-10").source).at("IN"), 32 * 32 * 3);
  // Features the text gives win.
  EXPECT_EQ(specConstants(designOffline("an MLP with 100 input features for MNIST").source).at("IN"), 100);
}

TEST(OfflineDesigner, SizesAndChoicesATemplateHasNoPlaceFor) {
  // A CNN has no heads and no RMSNorm: both are reported, not silently dropped.
  const OfflineDesign d = designOffline("a CNN with 8 heads and RMSNorm for 10 classes");
  EXPECT_EQ(d.choice.templateName, "cnn");
  EXPECT_EQ(d.choice.unusedWords, (std::vector<std::string>{"8 heads", "rmsnorm"}));
  // A masked language model has no classes.
  const OfflineDesign mlm = designOffline("a masked language model encoder for 3 classes");
  EXPECT_EQ(mlm.choice.templateName, "transformer_encoder");
  EXPECT_NE(std::find(mlm.choice.unusedWords.begin(), mlm.choice.unusedWords.end(), "3 classes"),
            mlm.choice.unusedWords.end());
}

// The recurrent template forecasts: asked for a classifier, it says it did not make one.
TEST(OfflineDesigner, AForecasterAskedToClassifySaysSo) {
  const OfflineDesign d = designOffline("an LSTM that classifies sentences");
  EXPECT_EQ(d.choice.templateName, "rnn");
  EXPECT_EQ(d.choice.unusedWords, (std::vector<std::string>{"classification", "sentences"}));
  EXPECT_NE(std::find(d.choice.notes.begin(), d.choice.notes.end(),
                      "this recurrent template forecasts the next step of a series: it does not classify"),
            d.choice.notes.end());
  // Asked to forecast, nothing is said.
  const OfflineDesign forecast = designOffline("an LSTM that forecasts a time series");
  EXPECT_EQ(forecast.choice.templateName, "rnn");
  EXPECT_TRUE(forecast.choice.notes.empty());
}

TEST(OfflineDesigner, AdjustmentsAreSaid) {
  const OfflineDesign unet = designOffline("a U-Net for 100x100 images");
  ASSERT_EQ(unet.choice.notes.size(), 1u);
  EXPECT_EQ(unet.choice.notes[0],
            "SIDE 100 rounded up to 104: each level halves the image and the skip connections must match");
  const OfflineDesign heads = designOffline("a GPT with width 100 and 8 heads");
  EXPECT_EQ(specConstants(heads.source).at("D"), 104);
  EXPECT_EQ(heads.choice.notes.at(0), "D 100 rounded up to 104: the width must split evenly into the heads");
}

TEST(OfflineDesigner, SizesAreBoundedAndSaid) {
  // Below 1, above the largest depth (1,000) and the largest other size (2^20 = 1,048,576).
  const OfflineDesign d = designOffline("a GPT with 0 heads, 5000 layers and a vocab of 2m");
  const auto values = specConstants(d.source);
  EXPECT_EQ(values.at("H"), 1);
  EXPECT_EQ(values.at("N_LAYERS"), 1000);
  EXPECT_EQ(values.at("V"), 1048576);
  EXPECT_EQ(d.choice.notes, (std::vector<std::string>{
                                "V 2,000,000 lowered to 1,048,576: the offline designer's largest size",
                                "H 0 raised to 1: a size is at least 1",
                                "N_LAYERS 5,000 lowered to 1,000: the offline designer's largest depth"}));
  // Adjustments that halve an image stop where it cannot halve further.
  const OfflineDesign cnn = designOffline("a CNN for 32x32 images with 100 blocks");
  EXPECT_EQ(specConstants(cnn.source).at("N_BLOCKS"), 5);  // 32 → 16 → 8 → 4 → 2 → 1
  const OfflineDesign unet = designOffline("a U-Net with 70 levels");
  EXPECT_EQ(specConstants(unet.source).at("DEPTH"), 12);
  EXPECT_EQ(specConstants(unet.source).at("SIDE"), 4096);  // the default 64 rounded up to 2^12
}

TEST(OfflineDesigner, APresetChangedByTheTextSaysSo) {
  const OfflineDesign d = designOffline("GPT-2 small with 6 layers");
  EXPECT_EQ(d.choice.preset, "GPT-2 small");
  EXPECT_EQ(specConstants(d.source).at("N_LAYERS"), 6);
  ASSERT_FALSE(d.choice.notes.empty());
  EXPECT_EQ(d.choice.notes.back(),
            "sizes from the text change the preset: the published count (124,439,808) no longer applies");
  // "BERT-style" asks for the kind of model, not the published one.
  EXPECT_EQ(designOffline("a BERT-style classifier").choice.preset, "");
}

TEST(OfflineDesigner, TheLabelAndDescriptionFollowTheSizes) {
  const OfflineDesign d = designOffline("a GPT with 6 layers, width 256 and 8 heads");
  EXPECT_NE(d.source.find(".label = \"Decoder-only transformer\","), std::string::npos);
  EXPECT_NE(d.source.find("A decoder-only transformer of 6 pre-norm blocks: width 256, 8 heads of 32"),
            std::string::npos)
      << d.source;
}

TEST(OfflineDesigner, ChangesAGivenSpec) {
  const std::string spec =
      "constexpr int N_LAYERS = 4;  // blocks\nconstexpr int D = 64;\nstruct M : Module { LayerNorm ln{\"ln\", D}; "
      "};\n";
  const OfflineDesign d = changeOffline("use RMSNorm and 16 layers", spec);
  EXPECT_EQ(d.source,
            "constexpr int N_LAYERS = 16;  // blocks\nconstexpr int D = 64;\nstruct M : Module { RMSNorm "
            "ln{\"ln\", D}; };\n");
  EXPECT_EQ(d.choice.settings,
            (std::vector<std::string>{"N_LAYERS = 16 (from \"16 layers\")", "LayerNorm -> RMSNorm (1 place)"}));
  EXPECT_TRUE(d.choice.unusedWords.empty());

  // What it cannot do is said, and the spec stays as it was.
  const OfflineDesign none = changeOffline("add SwiGLU and 8 experts", spec);
  EXPECT_EQ(none.source, spec);
  EXPECT_EQ(none.choice.unusedWords, (std::vector<std::string>{"8 experts", "swiglu"}));
}

// The offline CNN changed to more blocks than its image can halve keeps to what traces (a fifth
// 2×2 pooling of 28×28 digits failed, and the failed spec replaced the working one in the app).
TEST(OfflineDesigner, AChangedCnnKeepsToTheBlocksItsImageAllows) {
  const OfflineDesign digits = designOffline("a small convolutional network that recognizes handwritten digits");
  ASSERT_EQ(digits.choice.templateName, "cnn");
  ASSERT_EQ(specConstants(digits.source).at("SIDE"), 28);
  const OfflineDesign deeper = changeOffline("use 5 conv layers", digits.source);
  EXPECT_EQ(specConstants(deeper.source).at("N_BLOCKS"), 4);
  EXPECT_EQ(deeper.choice.settings, (std::vector<std::string>{"N_BLOCKS = 4 (adjusted)"}));
  EXPECT_NE(std::find(deeper.choice.notes.begin(), deeper.choice.notes.end(),
                      "N_BLOCKS 5 lowered to 4: a 28×28 image halves only 4 times"),
            deeper.choice.notes.end());
  EXPECT_EQ(specConstants(changeOffline("use 3 conv layers", digits.source).source).at("N_BLOCKS"), 3);
}

// "hidden 256" names HIDDEN, which goes before the usual width constant D; named dims
// (`constexpr Dim H{"H", 12, "heads"};`, as the examples declare them) change as plain constants do.
TEST(OfflineDesigner, ChangesTheConstantTheDescriptionNamesAndNamedDims) {
  const std::string spec =
      "constexpr int D = 32;  // signal dim\nconstexpr int HIDDEN = 128;\nconstexpr Dim H{\"H\", 12, \"heads\"};\n"
      "constexpr nndna::Dim T{\"T\", 1024};\n";
  const OfflineDesign d = changeOffline("use hidden 256, 7 heads and a context of 512", spec);
  EXPECT_EQ(d.source,
            "constexpr int D = 32;  // signal dim\nconstexpr int HIDDEN = 256;\nconstexpr Dim H{\"H\", 7, \"heads\"};\n"
            "constexpr nndna::Dim T{\"T\", 512};\n");
  EXPECT_EQ(d.choice.settings, (std::vector<std::string>{"HIDDEN = 256 (from \"hidden 256\")", "H = 7 (from \"7 heads\")",
                                                         "T = 512 (from \"context of 512\")"}));
}

// A description is a few sentences: a document is refused before anything runs.
TEST(DesignRequestLimits, ALongDescriptionIsRefusedAtOnce) {
  DesignRequest request;
  request.prompt = std::string(kMaxPromptBytes + 1, 'a');
  request.offline = true;
  std::vector<DesignEvent> events;
  const DesignResult result = design(request, [&](const DesignEvent& e) { events.push_back(e); });
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.attempts.empty());
  EXPECT_EQ(result.error, "the description is 32,769 bytes long; the designer reads at most 32,768");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, EventKind::finished);
  EXPECT_EQ(events[0].message, result.error);
}

}  // namespace
}  // namespace nndna::designer
