// The HTML page in a real browser (Debian's headless Chromium): the SVG renders, the page script
// runs to its end with no console error, and a hostile spec's markup stays text.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_support.hpp"

namespace nndna::diagram {
namespace {

namespace fs = std::filesystem;

struct BrowserRun {
  std::string dom;
  std::string log;
  int status = -1;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Loads the page from file:// and dumps the DOM after the load event (scripts have run).
BrowserRun openInChromium(const std::string& html, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("nndna-browser-" + std::to_string(::getpid()) + "-" + name);
  fs::create_directories(dir);
  const fs::path page = dir / "page.html";
  std::ofstream(page, std::ios::binary) << html;
  const std::string cmd =
      "timeout 90 /usr/bin/chromium --headless --no-sandbox --disable-gpu --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync "
      "--enable-logging=stderr --v=0 --user-data-dir=" + (dir / "profile").string() +
      " --dump-dom file://" + page.string() + " > " + (dir / "dom.html").string() + " 2> " +
      (dir / "log.txt").string();
  BrowserRun run;
  run.status = std::system(cmd.c_str());
  run.dom = slurp(dir / "dom.html");
  run.log = slurp(dir / "log.txt");
  fs::remove_all(dir);
  return run;
}

void expectCleanRender(const BrowserRun& run) {
  EXPECT_EQ(run.status, 0) << run.log;
  EXPECT_NE(run.dom.find("<svg"), std::string::npos);
  EXPECT_NE(run.dom.find("class=\"node"), std::string::npos);
  // The page script sets this as its last statement: it ran to the end.
  EXPECT_NE(run.dom.find("data-ready=\"true\""), std::string::npos);
  // The metrics header was filled by the script.
  EXPECT_NE(run.dom.find("metric-chip"), std::string::npos);
  EXPECT_EQ(run.log.find("Uncaught"), std::string::npos) << run.log;
  EXPECT_EQ(run.log.find(":CONSOLE("), std::string::npos) << run.log;
}

// The viewBox of the first <svg> in `html` (the training view's), as {x, y, w, h}.
std::array<double, 4> firstViewBox(const std::string& html) {
  std::array<double, 4> box{};
  const auto svg = html.find("<svg");
  const auto at = html.find("viewBox=\"", svg);
  if (svg == std::string::npos || at == std::string::npos) {
    ADD_FAILURE() << "no <svg viewBox=...>";
    return box;
  }
  std::istringstream in(html.substr(at + 9, html.find('"', at + 9) - at - 9));
  in >> box[0] >> box[1] >> box[2] >> box[3];
  return box;
}

class Browser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "Chromium is not installed";
  }
};

TEST_F(Browser, DiffusionDenoiserPageRenders) {
  const Diagram d = buildDiagram(testing::traced("diffusion_denoiser"));
  const BrowserRun run = openInChromium(renderHtml(d), "denoiser");
  expectCleanRender(run);
  EXPECT_NE(run.dom.find("Training graph"), std::string::npos);
  EXPECT_NE(run.dom.find("×12 (inference)"), std::string::npos);
  EXPECT_NE(run.dom.find("24.9K parameters"), std::string::npos);
}

// A small diagram opens whole; a large one opens at a readable size on its top (the inputs),
// instead of shrunk to a speck, and Fit still shows the whole.
TEST_F(Browser, OpeningViewIsReadable) {
  // The page as written holds Graphviz's SVG with the whole diagram's viewBox.
  const std::string smallPage = renderHtml(buildDiagram(testing::traced("diffusion_denoiser")));
  const auto whole = firstViewBox(smallPage);
  const auto opened = firstViewBox(openInChromium(smallPage, "small-view").dom);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(opened[i], whole[i], 0.01) << i;

  const std::string largePage = renderHtml(buildDiagram(testing::traced("unfoldable_1000")));
  const auto all = firstViewBox(largePage);
  const auto top = firstViewBox(openInChromium(largePage, "large-view").dom);
  EXPECT_NEAR(top[1], all[1], 0.01);        // starts at the top
  EXPECT_LT(top[3], all[3] / 10);           // shows a part of the height
  EXPECT_GT(top[3], 100);                   // ... a readable one, not a sliver
}

TEST_F(Browser, HostileSpecStaysText) {
  const Diagram d = buildDiagram(testing::traced("hostile_labels"));
  const BrowserRun run = openInChromium(renderHtml(d), "hostile");
  expectCleanRender(run);
  EXPECT_EQ(run.dom.find("<img"), std::string::npos);
  EXPECT_EQ(testing::count(run.dom, "<script"), 2u);
  EXPECT_NE(run.dom.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
}

}  // namespace
}  // namespace nndna::diagram
