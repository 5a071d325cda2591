// The offline designer's templates: each compiles as it is (linked into this test) and traces;
// filling one replaces exactly what it should; the catalogue and the test descriptions cover
// every template and every option.
#include <gtest/gtest.h>

#include <nndna/trace.hpp>

#include <set>
#include <sstream>

#include "designer/offline/template_catalogue.hpp"
#include "designer/offline/template_text.hpp"
#include "offline_cases.hpp"

namespace nndna::designer {
namespace {

std::vector<std::string> linesOf(std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Templates, EveryTemplateTracesAsItIs) {
  for (const TemplateInfo& info : templateCatalogue()) {
    SCOPED_TRACE(std::string(info.name));
    const RegisteredSpec* spec = findSpec(info.name);
    ASSERT_NE(spec, nullptr) << "not linked into the test";
    const ir::TracedModel model = traceModel(loadSpec(*spec));
    EXPECT_FALSE(model.train.params.empty());
    EXPECT_TRUE(model.hasInfer);
  }
}

// The file as it is must be the template with its default options: a line active in the file
// has a condition that holds for them, a commented-out variant line one that does not.
TEST(Templates, TheFileIsTheDefaultVariant) {
  for (const TemplateInfo& info : templateCatalogue()) {
    SCOPED_TRACE(std::string(info.name));
    const std::string_view text = templateText(info.name);
    const std::string filled = fillTemplate(text, {.options = info.defaultOptions});
    const std::vector<std::string> fileLines = linesOf(text);
    const std::vector<std::string> filledLines = linesOf(filled);
    ASSERT_EQ(filledLines.size(), fileLines.size() - [&] {
      std::size_t commentedOut = 0;
      for (const std::string& l : fileLines) commentedOut += l.find_first_not_of(' ') != std::string::npos &&
                                                             l.substr(l.find_first_not_of(' ')).starts_with("//[");
      return commentedOut;
    }());
    EXPECT_EQ(filled.find("//["), std::string::npos);
  }
}

TEST(Templates, EveryParameterIsAConstantOfItsTemplate) {
  for (const TemplateInfo& info : templateCatalogue()) {
    const std::string_view text = templateText(info.name);
    for (const TemplateParam& p : info.params) {
      if (p.constant.empty()) continue;
      std::string copy(text);
      EXPECT_TRUE(setConstant(copy, p.constant, "1")) << info.name << " has no constant " << p.constant;
    }
  }
}

TEST(Templates, TheTestDescriptionsCoverEveryTemplateAndOption) {
  std::map<std::string, std::set<std::string>, std::less<>> seen;
  for (const auto& c : testcases::offlineCases()) {
    auto& options = seen[std::string(c.templateName)];
    for (std::string_view o : c.options) options.insert(std::string(o));
  }
  for (const TemplateInfo& info : templateCatalogue()) {
    SCOPED_TRACE(std::string(info.name));
    ASSERT_TRUE(seen.contains(info.name)) << "no description chooses this template";
    std::set<std::string> covered = seen.at(std::string(info.name));
    for (const std::string& o : info.defaultOptions) covered.insert(o);
    for (const std::string& option : templateOptions(templateText(info.name))) {
      EXPECT_TRUE(covered.contains(option)) << "no description sets option " << option;
    }
  }
}

TEST(Templates, ThereAreTheIssuesArchitectures) {
  std::set<std::string_view> names;
  for (const TemplateInfo& info : templateCatalogue()) names.insert(info.name);
  EXPECT_EQ(names, (std::set<std::string_view>{"mlp", "cnn", "resnet", "unet", "rnn", "transformer_encoder",
                                                "decoder_lm", "encoder_decoder", "vit", "vae", "gan",
                                                "diffusion", "nerf", "kan", "policy", "siamese", "moe"}));
  // Every preset names a template and reproduces a published count.
  for (const Preset& p : presets()) {
    EXPECT_NE(findTemplate(p.templateName), nullptr) << p.name;
    EXPECT_GT(p.publishedParams, 0) << p.name;
  }
}

constexpr std::string_view kSmallTemplate =
    "constexpr int B = 8;            // batch\n"
    "constexpr int D = 4 * B;        // width\n"
    "constexpr int BLOCKS[] = {1, 2};\n"
    "using Norm = LayerNorm;  //[!rms]\n"
    "//[rms] using Norm = RMSNorm;\n"
    "  //[rms] int onlyWithRms;\n"
    "int always;\n"
    "      .label = \"Old\",\n"
    "      .description =\n"
    "          \"old one \"\n"
    "          \"old two\",\n"
    "      .loss = lossFn,\n";

TEST(TemplateText, DefaultFillStripsMarkers) {
  EXPECT_EQ(fillTemplate(kSmallTemplate, {}),
            "constexpr int B = 8;            // batch\n"
            "constexpr int D = 4 * B;        // width\n"
            "constexpr int BLOCKS[] = {1, 2};\n"
            "using Norm = LayerNorm;\n"
            "int always;\n"
            "      .label = \"Old\",\n"
            "      .description =\n"
            "          \"old one \"\n"
            "          \"old two\",\n"
            "      .loss = lossFn,\n");
}

TEST(TemplateText, ConstantsOptionsLabelAndDescription) {
  TemplateFill fill;
  fill.constants = {{"B", "1024"}, {"BLOCKS", "{3, 4}"}};
  fill.options = {"rms"};
  fill.label = "New \"quoted\"";
  fill.description = "A new description.";
  EXPECT_EQ(fillTemplate(kSmallTemplate, fill),
            "constexpr int B = 1024;         // batch\n"  // the comment keeps its column
            "constexpr int D = 4 * B;        // width\n"
            "constexpr int BLOCKS[] = {3, 4};\n"
            "using Norm = RMSNorm;\n"
            "  int onlyWithRms;\n"
            "int always;\n"
            "      .label = \"New \\\"quoted\\\"\",\n"
            "      .description =\n"
            "          \"A new description.\",\n"
            "      .loss = lossFn,\n");
}

TEST(TemplateText, LongDescriptionsWrap) {
  TemplateFill fill;
  fill.label = "L";
  fill.description = std::string(60, 'a') + " " + std::string(40, 'b') + " end";
  const std::string out = fillTemplate(kSmallTemplate, fill);
  EXPECT_NE(out.find("          \"" + std::string(60, 'a') + " \"\n          \"" + std::string(40, 'b') + " end\",\n"),
            std::string::npos)
      << out;
}

TEST(TemplateText, UnknownConstantIsADefectOfTheTemplate) {
  EXPECT_THROW((void)fillTemplate(kSmallTemplate, {.constants = {{"NOPE", "1"}}}), TemplateError);
}

TEST(TemplateText, OptionsOfATemplate) {
  EXPECT_EQ(templateOptions(kSmallTemplate), (std::set<std::string, std::less<>>{"rms"}));
}

TEST(TemplateText, ConstantsAreEvaluated) {
  const auto values = specConstants(
      "constexpr int B = 8;\nconstexpr int D = (B + 2) * 3 - 6 / 2;\n  constexpr int W = 32 << 2;\n"
      "constexpr int N = UNKNOWN + 1;\nconstexpr double P = 0.5;\nconstexpr std::int64_t BIG = 1 << 40;\n");
  EXPECT_EQ(values.at("B"), 8);
  EXPECT_EQ(values.at("D"), 27);
  EXPECT_EQ(values.at("W"), 128);
  EXPECT_EQ(values.at("BIG"), std::int64_t{1} << 40);
  EXPECT_FALSE(values.contains("N"));  // an unknown name: left out
  EXPECT_FALSE(values.contains("P"));  // not an integer
}

TEST(TemplateText, StringLiterals) {
  EXPECT_EQ(cppStringLiteral("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\x01\"");
}

}  // namespace
}  // namespace nndna::designer
