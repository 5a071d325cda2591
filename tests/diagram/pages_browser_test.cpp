// The pictures of issue 12's real-model patterns in a real browser: each diagram's page and its
// standalone SVG are written to out/diagrams/ and opened in Debian's Chromium through
// playwright-core (tests/diagram/diagram_pages.cjs), which writes a screenshot of each beside it
// for review. The checks read what the browser shows: the text of the boxes (shapes, subtitles),
// the collision note, and the fading of one side's parts in the page's two views and in the SVG.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_support.hpp"

namespace nndna::diagram {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string withoutSpace(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

struct Shown {
  json page;  // the page's report (its "train" and, with a side toggle, "infer" probes)
  json svg;   // the standalone SVG's probe
};

// Writes NAME.html and NAME.svg to out/diagrams and opens both in Chromium.
Shown showInBrowser(const Diagram& d, const std::string& name) {
  const fs::path out = fs::path(NNDNA_OUT_DIR) / "diagrams";
  fs::create_directories(out);
  const fs::path html = out / (name + ".html");
  const fs::path svg = out / (name + ".svg");
  const std::string svgText = renderSvg(d);
  std::ofstream(html, std::ios::binary) << renderHtml(d, svgText);
  std::ofstream(svg, std::ios::binary) << svgText;
  const fs::path report = out / (name + ".report.json");
  fs::remove(report);
  const std::string cmd = "NODE_PATH='" + std::string(NNDNA_NODE_MODULES) + "' timeout 240 node '" +
                          std::string(NNDNA_DIAGRAM_PAGES_SCRIPT) + "' '" + report.string() + "' '" +
                          html.string() + "' '" + svg.string() + "'";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(status, 0) << cmd;
  std::ifstream in(report);
  if (!in) {
    ADD_FAILURE() << "no report from " << cmd;
    return {};
  }
  const json r = json::parse(in);
  for (const char* file : {".html", ".svg"}) {
    const json& entry = r.at(name + file);
    EXPECT_TRUE(entry.at("errors").empty()) << name << file << ": " << entry.at("errors").dump();
    EXPECT_GT(fs::file_size(out / (name + file + ".png")), 0u);
  }
  Shown shown{r.at(name + ".html"), r.at(name + ".svg").at("svg")};
  EXPECT_TRUE(shown.page.at("train").at("ready").get<bool>());
  // Every box is in both documents.
  EXPECT_EQ(shown.page.at("train").at("boxes").size(), d.nodes.size());
  EXPECT_EQ(shown.svg.at("boxes").size(), d.nodes.size());
  return shown;
}

// The text a box shows, white space removed (Graphviz breaks lines into <text> elements).
std::string boxText(const json& probe, int node) {
  const json& boxes = probe.at("boxes");
  const std::string id = "n" + std::to_string(node);
  if (!boxes.contains(id)) {
    ADD_FAILURE() << "no box " << id;
    return "";
  }
  return withoutSpace(boxes.at(id).get<std::string>());
}

int nodeLabelled(const Diagram& d, std::string_view label, int nth = 0) {
  for (const Node& n : d.nodes) {
    if (n.label == label && nth-- == 0) return n.id;
  }
  ADD_FAILURE() << "no box labelled " << label;
  return -1;
}

// Training view: inference-only parts faded; Inference view: training-only parts faded; the
// standalone SVG reads as the Training view.
void expectFading(const Shown& shown, bool trainOnly, bool inferOnly) {
  const json& train = shown.page.at("train").at("opacity");
  const json& infer = shown.page.at("infer").at("opacity");
  const json& svg = shown.svg.at("opacity");
  EXPECT_DOUBLE_EQ(train.at("shared").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(infer.at("shared").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(svg.at("shared").get<double>(), 1.0);
  if (trainOnly) {
    EXPECT_DOUBLE_EQ(train.at("onlyTrain").get<double>(), 1.0);
    EXPECT_NEAR(infer.at("onlyTrain").get<double>(), 0.18, 1e-6);
    EXPECT_DOUBLE_EQ(svg.at("onlyTrain").get<double>(), 1.0);
  }
  if (inferOnly) {
    EXPECT_NEAR(train.at("onlyInfer").get<double>(), 0.18, 1e-6);
    EXPECT_DOUBLE_EQ(infer.at("onlyInfer").get<double>(), 1.0);
    EXPECT_NEAR(svg.at("onlyInfer").get<double>(), 0.18, 1e-6);
  }
}

class DiagramPages : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "Chromium is not installed";
    if (!fs::exists(fs::path(NNDNA_NODE_MODULES) / "playwright-core")) {
      GTEST_SKIP() << "playwright-core is not installed (ctest's browser_npm_ci installs it)";
    }
  }
};

// Issue 12, point 12: the standalone SVG fades as the page's Training view does; the page's
// toggle still decides in the page.
TEST_F(DiagramPages, DenoiserFadesInPageAndStandaloneSvg) {
  const Diagram d = buildDiagram(testing::traced("diffusion_denoiser"));
  const Shown shown = showInBrowser(d, "diffusion_denoiser");
  expectFading(shown, /*trainOnly=*/true, /*inferOnly=*/true);
  // The paired wrapper (lossFn's and predictFn's call of denoise) reads each side's line from one
  // left edge: the training line in the standalone SVG and the page's Training view, predictFn's
  // in the Inference view.
  const auto pair =
      std::find_if(d.clusters.begin(), d.clusters.end(), [](const Cluster& c) { return c.trainLabel.has_value(); });
  ASSERT_NE(pair, d.clusters.end());
  const std::string id = "c" + std::to_string(pair->id);
  const json& svg = shown.svg.at("clusterLabels").at(id);
  const json& train = shown.page.at("train").at("clusterLabels").at(id);
  const json& infer = shown.page.at("infer").at("clusterLabels").at(id);
  EXPECT_EQ(svg.at("text"), *pair->trainLabel);
  EXPECT_EQ(train.at("text"), *pair->trainLabel);
  EXPECT_EQ(infer.at("text"), *pair->inferLabel);
  for (const json* label : {&svg, &train, &infer}) {
    EXPECT_EQ(label->at("anchor"), "start");
    EXPECT_DOUBLE_EQ(label->at("x").get<double>(), svg.at("x").get<double>());
  }
}

// Points 2, 3, 4: each stage's blocks fold on their own (golden_real_models_test.cpp has the
// counts); every box shows one shape.
TEST_F(DiagramPages, ResNet50NestedLoopsDrawStagesInOrder) {
  const Diagram d = buildDiagram(testing::traced("resnet50_nested"));
  const Shown shown = showInBrowser(d, "resnet50_nested");
  expectFading(shown, true, true);
  // Stage 4's first block: 1×1 reduce to 512 at 14×14, then the strided 3×3 to 7×7.
  EXPECT_EQ(boxText(shown.svg, nodeLabelled(d, "Tensor h = relu(b.bn1(b.conv1(x)));", 6)),
            withoutSpace("Tensor h = relu(b.bn1(b.conv1(x))); [B, 512, 14, 14]"));
}

TEST_F(DiagramPages, ResNet50StageCalls) {
  const Diagram d = buildDiagram(testing::traced("resnet50_stage_calls"));
  const Shown shown = showInBrowser(d, "resnet50_stage_calls");
  expectFading(shown, true, true);
}

// Point 3: stages 2-4 of ResNet-18 fold as one loop; its boxes show every stage's width.
TEST_F(DiagramPages, ResNet18StageLoopShowsEveryShape) {
  const Diagram d = buildDiagram(testing::traced("resnet18_nested"));
  const Shown shown = showInBrowser(d, "resnet18_nested");
  expectFading(shown, true, true);
  // The stage loop's first box (the second box with this line; stage 1's loop has the first):
  // [B, 128, 28, 28], [B, 256, 14, 14], [B, 512, 7, 7], merged axis by axis. Both boxes of the
  // line in the stage loop compute alike (two blocks), so neither has a subtitle.
  const int first = nodeLabelled(d, "Tensor h = relu(b.bn1(b.conv1(x)));", 1);
  EXPECT_EQ(boxText(shown.svg, first),
            withoutSpace("Tensor h = relu(b.bn1(b.conv1(x))); [B, 128|256|512, 28|14|7, 28|14|7]"));
  EXPECT_EQ(boxText(shown.page.at("train"), first), boxText(shown.svg, first));
}

// The Summary tab shows summarize()'s table (derivations: tests/diagram/summary_test.cpp): the
// cnn_digits model, its six layers, conv1's figures as `nndna summary` prints them, the memory
// items; the diagram hidden behind it; depth 0 keeps the model's row; the inference side's table
// ends in the prediction.
TEST_F(DiagramPages, CnnSummaryTab) {
  const Diagram d = buildDiagram(testing::traced("cnn_digits"));
  const Shown shown = showInBrowser(d, "cnn_digits");
  EXPECT_GT(fs::file_size(fs::path(NNDNA_OUT_DIR) / "diagrams" / "cnn_digits.html.summary.png"), 0u);
  const json& s = shown.page.at("summary");
  EXPECT_TRUE(s.at("shown").get<bool>());
  EXPECT_FALSE(s.at("canvasShown").get<bool>());
  EXPECT_EQ(s.at("heading"), "Training graph (forward of the loss): modules");
  const json& rows = s.at("rows");
  ASSERT_EQ(rows.size(), 7u);
  std::vector<std::string> paths;
  for (const json& r : rows) paths.push_back(r.at("path"));
  EXPECT_EQ(paths, (std::vector<std::string>{"", "conv1", "bn1", "conv2", "bn2", "fc1", "fc2"}));
  // 421,738 parameters; 2,171,469,824 FLOPs = 2.17G; 31,446,017 activation values · 4 bytes =
  // 125,784,068 bytes = 120.0 MiB.
  EXPECT_EQ(rows[0].at("cells"), json({"(model)", "[]", "421,738", "2.17G", "120.0 MiB"}));
  // 288 parameters, 2·(256·32·28·28)·9 = 115,605,504 FLOPs, 6,422,528 · 4 bytes = 24.5 MiB.
  EXPECT_EQ(rows[1].at("cells"), json({"conv1", "[256, 32, 28, 28]", "288", "115.6M", "24.5 MiB"}));
  std::vector<std::string> keys;
  for (const json& m : s.at("memory")) keys.push_back(m.at("key"));
  EXPECT_EQ(keys, (std::vector<std::string>{"parameters", "gradients", "optimizer_state", "buffers", "activations",
                                            "weights", "buffers", "activations"}));
  // SGD momentum: 421,738 values · 4 bytes = 1,686,952 bytes = 1.6 MiB.
  EXPECT_EQ(s.at("memory")[2].at("cells"),
            json({"optimizer state", "1.6 MiB", "421,738 optimizer state values × 4 bytes (f32)"}));
  EXPECT_EQ(shown.page.at("summaryDepth0").at("rows").size(), 1u);
  const json& infer = shown.page.at("summaryInfer");
  EXPECT_EQ(infer.at("heading"), "Inference graph: modules");
  EXPECT_EQ(infer.at("rows")[0].at("cells")[1], "[256, 10]");
}

// Point 1: the split line hands on three pieces.
TEST_F(DiagramPages, FusedQkvSplitShowsItsPieces) {
  const Diagram d = buildDiagram(testing::traced("fused_qkv"));
  const Shown shown = showInBrowser(d, "fused_qkv");
  expectFading(shown, true, false);
  EXPECT_EQ(boxText(shown.svg, nodeLabelled(d, "std::vector<Tensor> qkv = split(b.inProj(x), {D, D, D}, -1);")),
            withoutSpace("std::vector<Tensor> qkv = split(b.inProj(x), {D, D, D}, -1); 3 × [B, T, D]"));
}

// Point 11: the two boxes of the block's attention line read "ln1" and "add".
TEST_F(DiagramPages, Gpt2BoxesOfOneLineAreToldApart) {
  const Diagram d = buildDiagram(testing::traced("gpt2_small"));
  const Shown shown = showInBrowser(d, "gpt2_small");
  expectFading(shown, true, false);
  const std::string line = "x = add(x, attention(b.attn, b.ln1(x)));";
  EXPECT_EQ(boxText(shown.svg, nodeLabelled(d, line, 0)), withoutSpace(line + "ln1 [B, T, D]"));
  EXPECT_EQ(boxText(shown.svg, nodeLabelled(d, line, 1)), withoutSpace(line + "add [B, T, D]"));
}

// Point 6: the dropout helper is drawn in its callers' lines.
TEST_F(DiagramPages, PostLnEncoderDropoutHelper) {
  const Diagram d = buildDiagram(testing::traced("post_ln_encoder"));
  const Shown shown = showInBrowser(d, "post_ln_encoder");
  expectFading(shown, true, false);
}

// Point 5: no box for the capture.
TEST_F(DiagramPages, CapturedResidualDrawsNoCaptureBox) {
  const Diagram d = buildDiagram(testing::traced("captured_residual"));
  const Shown shown = showInBrowser(d, "captured_residual");
  expectFading(shown, true, false);
  for (const auto& [id, text] : shown.svg.at("boxes").items()) {
    EXPECT_EQ(text.get<std::string>().find("capture("), std::string::npos) << id;
  }
}

// Point 10: sizes that collide (T = D = 1024; T = Dh = 128) are drawn by the names the spec gave
// them, in the page and in the SVG, and nothing is left for the collision note.
TEST_F(DiagramPages, NamedDimsDrawCollidingSizesByName) {
  const Diagram gpt = buildDiagram(testing::traced("named_dims_gpt2_medium"));
  const Shown gptShown = showInBrowser(gpt, "named_dims_gpt2_medium");
  const std::string q = "Tensor q = splitHeads(a.q(x), H);";
  EXPECT_EQ(boxText(gptShown.svg, nodeLabelled(gpt, q)), withoutSpace(q + "[B, H, T, Dh]"));
  EXPECT_EQ(boxText(gptShown.page.at("train"), nodeLabelled(gpt, q)), withoutSpace(q + "[B, H, T, Dh]"));
  const std::string proj = "return a.proj(mergeHeads(y));";
  EXPECT_EQ(boxText(gptShown.svg, nodeLabelled(gpt, proj)), withoutSpace(proj + "[B, T, D]"));
  EXPECT_TRUE(gptShown.page.at("train").at("collisionNote").is_null());

  const Diagram llama = buildDiagram(testing::traced("named_dims_llama"));
  const Shown llamaShown = showInBrowser(llama, "named_dims_llama");
  const std::string v = "Tensor v = splitHeads(a.v(x), H);";
  EXPECT_EQ(boxText(llamaShown.svg, nodeLabelled(llama, v)), withoutSpace(v + "[B, H, T, Dh]"));
  EXPECT_TRUE(llamaShown.page.at("train").at("collisionNote").is_null());
}

// Point 9: the rank-1 labels read [B/Dh], and the page says why.
TEST_F(DiagramPages, Rank1BatchCollisionIsExplained) {
  const Diagram d = buildDiagram(testing::traced("rank1_batch_collision"));
  const Shown shown = showInBrowser(d, "rank1_batch_collision");
  EXPECT_EQ(boxText(shown.svg, nodeLabelled(d, "input: labels")), withoutSpace("input: labels [B/Dh]"));
  const json& note = shown.page.at("train").at("collisionNote");
  ASSERT_TRUE(note.is_string());
  EXPECT_NE(note.get<std::string>().find("Affected: B/Dh = 64."), std::string::npos) << note;
}

}  // namespace
}  // namespace nndna::diagram
