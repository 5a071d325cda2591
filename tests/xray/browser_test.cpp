// The generated pages in headless Chromium: the viewer's script runs, renders the timeline and
// the details panel, keeps hostile text as text; the stepper fills in gradients step by step.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>
#include <nndna/xray_value.hpp>

#include "run_program.hpp"

namespace {

namespace fs = std::filesystem;
namespace xr = nndna::xray;

std::string dumpDom(const fs::path& page, const std::string& hash) {
  fs::path profile = fs::temp_directory_path() / ("xray_chromium_" + std::to_string(::getpid()));
  auto r = xray_test::runProgram({"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                                  "--user-data-dir=" + profile.string(),
                                  // The viewer inflates its data asynchronously: dump the DOM after
                                  // the page's tasks have run (virtual time, not a wall-clock wait).
                                  "--virtual-time-budget=30000", "--dump-dom",
                                  "file://" + page.string() + hash},
                                 true);
  fs::remove_all(profile);
  EXPECT_EQ(r.exitCode(), 0);
  return r.out;
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

TEST(Browser, TraceViewerRendersTimelineAndDetailsAndKeepsHostileTextAsText) {
  xr::Session session;
  {
    XRAY_SPAN("agent");
    for (int i = 0; i < 3; ++i) {
      XRAY_SPAN("call_llm", {{"prompt", "</script><script>alert(1)</script><img src=x onerror=alert(2)>"}});
    }
    try {
      XRAY_SPAN("tool");
      throw std::runtime_error("boom");
    } catch (const std::exception&) {
    }
  }
  xr::Trace trace = session.finish();
  std::string llmId = trace.nodes[1].id;
  fs::path page = fs::temp_directory_path() / ("xray_viewer_" + std::to_string(::getpid()) + ".html");
  std::ofstream(page) << xr::toHtml(trace);

  std::string dom = dumpDom(page, "#timeline&node=" + llmId);
  fs::remove(page);
  EXPECT_NE(dom.find("data-ready=\"1\""), std::string::npos) << "the viewer script did not finish";
  EXPECT_EQ(count(dom, "class=\"row "), 5u);  // one timeline row per span
  EXPECT_NE(dom.find("class=\"row err"), std::string::npos);
  // The details panel shows the selected span's input as text.
  EXPECT_NE(dom.find("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"),
            std::string::npos);
  EXPECT_EQ(dom.find("<img src=\"x\""), std::string::npos);
  EXPECT_EQ(dom.find("<script>alert(1)"), std::string::npos);
  EXPECT_NE(dom.find("<div id=\"picker\">call<input"), std::string::npos);  // the folded box's call picker
  EXPECT_NE(dom.find("<span>of 3</span>"), std::string::npos);
  // The call graph's selected box.
  EXPECT_NE(dom.find("class=\"node call sel\""), std::string::npos);
}

TEST(Browser, SearchFiltersTheTimeline) {
  xr::Session session;
  {
    XRAY_SPAN("root");
    for (int i = 0; i < 4; ++i) {
      XRAY_SPAN("fetch_page");
    }
    XRAY_SPAN("parse");
  }
  fs::path page = fs::temp_directory_path() / ("xray_search_" + std::to_string(::getpid()) + ".html");
  std::ofstream(page) << xr::toHtml(session.finish());
  std::string dom = dumpDom(page, "#timeline&search=fetch");
  fs::remove(page);
  EXPECT_EQ(count(dom, "class=\"row "), 4u);
  EXPECT_NE(dom.find("4 matches"), std::string::npos);
  EXPECT_NE(dom.find("class=\"node call dim\""), std::string::npos);
}

TEST(Browser, StepperShowsTheGradientsOfTheChosenStep) {
  xr::Value a(2.0, "a"), b(-3.0, "b"), c(10.0, "c");
  xr::Value L = ((a * b) + c).relu().tanh();
  L.setLabel("L");
  fs::path page = fs::temp_directory_path() / ("xray_stepper_" + std::to_string(::getpid()) + ".html");
  std::ofstream(page) << xr::GraphDebugger(L).stepperHtml("stepper");

  std::string forward = dumpDom(page, "");
  EXPECT_NE(forward.find("forward  (0/7)"), std::string::npos);
  EXPECT_EQ(count(forward, "class=\"grad-hidden\""), 7u);

  std::string step1 = dumpDom(page, "#step=1");
  EXPECT_NE(step1.find("backward_step_0  (1/7)"), std::string::npos);
  EXPECT_NE(step1.find("grad: 0.00134095"), std::string::npos);  // relu's grad after tanh's step
  EXPECT_EQ(count(step1, "grad: 0<"), 5u);                        // the rest not reached yet

  std::string last = dumpDom(page, "#step=7");
  fs::remove(page);
  EXPECT_NE(last.find("backward_step_6 = after_backward  (7/7)"), std::string::npos);
  EXPECT_NE(last.find("grad: -0.00402285"), std::string::npos);  // a
  EXPECT_NE(last.find("grad: 0.0026819"), std::string::npos);    // b
}

}  // namespace
