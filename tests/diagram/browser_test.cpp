// The HTML page in a real browser (Debian's headless Chromium): the SVG renders, the page script
// runs to its end with no console error, and a hostile spec's markup stays text.
#include <gtest/gtest.h>

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
