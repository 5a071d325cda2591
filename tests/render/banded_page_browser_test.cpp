// The page of a diagram drawn in stacked bands, in a real browser (Debian's headless Chromium):
// the stacked SVG renders, the page script (hover, tooltips, pan and zoom read the SVG's
// viewBox, ids and classes) runs to its end with no console error, and every box is in the DOM.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "nndna/diagram.hpp"
#include "nndna/trace.hpp"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

TEST(BandedPageBrowser, LargeDiagramPageRendersWithNoConsoleError) {
  if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "Chromium is not installed";
  const nndna::RegisteredSpec* spec = nndna::findSpec("unfoldable_500");
  ASSERT_NE(spec, nullptr);
  const auto d = nndna::diagram::buildDiagram(nndna::traceModel(nndna::loadSpec(*spec)));
  const std::string html = nndna::diagram::renderHtml(d);
  ASSERT_NE(html.find("stacked-bands"), std::string::npos) << "expected a banded layout";

  const fs::path dir = fs::temp_directory_path() / ("nndna-banded-page-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "page.html", std::ios::binary) << html;
  const std::string cmd =
      "timeout 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync "
      "--enable-logging=stderr --v=0 --user-data-dir=" + (dir / "profile").string() +
      " --dump-dom file://" + (dir / "page.html").string() + " > " + (dir / "dom.html").string() +
      " 2> " + (dir / "log.txt").string();
  const int status = std::system(cmd.c_str());
  const std::string dom = slurp(dir / "dom.html");
  const std::string log = slurp(dir / "log.txt");
  fs::remove_all(dir);

  EXPECT_EQ(status, 0) << log;
  // The page script sets this as its last statement: it ran to the end.
  EXPECT_NE(dom.find("data-ready=\"true\""), std::string::npos);
  EXPECT_EQ(log.find("Uncaught"), std::string::npos) << log;
  EXPECT_EQ(log.find(":CONSOLE("), std::string::npos) << log;
  EXPECT_NE(dom.find("class=\"graph stacked-bands\""), std::string::npos);
  EXPECT_EQ(count(dom, "class=\"node"), d.nodes.size());
  EXPECT_NE(dom.find("iteration 500 of 500 (inference)"), std::string::npos);
}

}  // namespace
