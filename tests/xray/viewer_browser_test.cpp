// xray's pages in a real browser (playwright-core driving Debian's Chromium, tests/browser): the
// viewer's overview, graph (fit, zoom, legend by kind), search over every field, timeline axis and
// filters, copying a span's JSON; the folded-call picker deep in a 30,000-call box; the diff page;
// the stepper's title. Pages and screenshots go to out/xray/ for review.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>
#include <nndna/xray_value.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace {

namespace fs = std::filesystem;
namespace xr = nndna::xray;
using nlohmann::json;

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// An agent run: 46 spans on two threads, 40 distinct steps (a graph wider than the window), two
// identical LLM calls, a failing tool, a last step that ends last.
xr::Trace agentTrace() {
  xr::Session session;
  {
    XRAY_SPAN("agent", {{"goal", "weekend in Paris"}}, {.kind = "agent"});
    for (int i = 0; i < 2; ++i) {
      XRAY_SPAN("call_llm", {{"prompt", "plan the trip"}}, {.kind = "llm"});
      xr::annotate({.model = "gpt-4o-mini", .promptTokens = 100, .completionTokens = 20});
      xr::annotate("temperature", 0.2);
    }
    try {
      XRAY_SPAN("tool.flights", {{"city", "Paris"}}, {.kind = "tool"});
      throw std::runtime_error("flight API timed out for Paris");
    } catch (const std::exception&) {
    }
    for (int i = 0; i < 40; ++i) {
      std::string name = "step_" + std::to_string(100 + i);
      XRAY_SPAN(name);
    }
    std::thread(xr::bindContext([] { XRAY_SPAN("worker"); })).join();
    XRAY_SPAN("final_answer");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  xr::Trace trace = session.finish();
  trace.title = "agent run";
  return trace;
}

TEST(ViewerBrowser, OverviewGraphSearchTimelineCopyPickerDiffAndStepper) {
  if (!fs::exists(fs::path(NNDNA_NODE_MODULES) / "playwright-core")) GTEST_SKIP() << "playwright-core is not installed";
  const fs::path dir = fs::path(NNDNA_OUT_DIR) / "xray";
  fs::create_directories(dir);

  xr::Trace agent = agentTrace();
  ASSERT_EQ(agent.nodes.size(), 46u);
  write(dir / "viewer.html", xr::toHtml(agent));

  // One box of 30,000 calls; a deep link to call 29,507.
  xr::Trace many;
  {
    xr::Session session;
    {
      XRAY_SPAN("batch");
      for (int i = 0; i < 30'000; ++i) {
        XRAY_SPAN("item");
      }
    }
    many = session.finish();
  }
  const std::string linked = many.nodes[many.nodes[0].children[29'506]].id;
  write(dir / "picker.html", xr::toHtml(many));
  write(dir / "picker.json", json{{"id", linked}}.dump());

  xr::Trace after = agent;
  after.nodes[1].setOutput("a different plan");  // call_llm[0]: changed
  write(dir / "diff.html", xr::diffHtml(agent, after, xr::diffTraces(agent, after), "two runs"));

  xr::Value a(2.0, "a"), b(-3.0, "b"), c(10.0, "c");
  xr::Value L = ((a * b) + c).relu().tanh();
  L.setLabel("L");
  write(dir / "stepper.html", xr::GraphDebugger(L).stepperHtml("stepper"));

  const fs::path report = dir / "report.json";
  const std::string cmd = "NODE_PATH='" + std::string(NNDNA_NODE_MODULES) + "' timeout 300 node '" +
                          std::string(XRAY_PAGES_SCRIPT) + "' '" + dir.string() + "' '" + report.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  json r = json::parse(slurp(report));
  EXPECT_TRUE(r["errors"].empty()) << r["errors"].dump(2);

  const json& v = r["viewer"];
  // 40 steps side by side do not fit 1,400 pixels: the graph opens fitted, and zooms.
  EXPECT_LT(v["fitZoom"].get<double>(), 0.6);
  EXPECT_NEAR(v["zoomedIn"].get<double>(), v["fitZoom"].get<double>() * 1.25, 0.002);
  for (const char* entry : {"agent", "llm", "tool", "(no kind)", "error", "slow", "unfinished"})
    EXPECT_NE(std::find(v["legend"].begin(), v["legend"].end(), entry), v["legend"].end()) << entry;
  EXPECT_FALSE(v["clickedTitle"].get<std::string>().empty());
  ASSERT_EQ(v["critical"].size(), 2u);
  EXPECT_EQ(v["critical"][0].get<std::string>().rfind("agent ", 0), 0u);
  EXPECT_EQ(v["critical"][1].get<std::string>().rfind("final_answer ", 0), 0u);
  // 2 calls x (100 x $0.15 + 20 x $0.60) per million = $0.000054.
  ASSERT_EQ(v["models"].size(), 2u);
  EXPECT_EQ(v["models"][1], json::parse(R"(["gpt-4o-mini", "2", "200", "40", "$0.000054"])"));
  EXPECT_NE(v["repeated"].get<std::string>().find("call_llm2"), std::string::npos) << v["repeated"];
  EXPECT_NE(v["errorsPanel"].get<std::string>().find("flight API timed out for Paris"), std::string::npos);
  EXPECT_EQ(v["searchMatches"], "1 of 1 matches");  // in an error text
  EXPECT_EQ(v["searchSelected"], "tool.flights");
  EXPECT_EQ(v["searchRows"], 1);
  EXPECT_EQ(v["metaSearch"], "1 of 2 matches");  // in metadata
  ASSERT_GE(v["ticks"].size(), 3u);
  EXPECT_EQ(v["ticks"][0], "0.00 ms");
  EXPECT_EQ(v["allRows"], "46 of 46 spans");
  EXPECT_EQ(v["errorRows"], "1 of 46 spans");
  EXPECT_EQ(v["llmRows"], "2 of 46 spans");
  EXPECT_EQ(v["threadRows"], "1 of 46 spans");  // the worker's thread
  json copied = json::parse(v["clipboard"].get<std::string>());
  EXPECT_EQ(copied["name"], "agent");
  EXPECT_EQ(copied["id"], agent.nodes[0].id);
  EXPECT_EQ(copied["inputs"]["goal"], "weekend in Paris");
  EXPECT_EQ(copied["children"].size(), 45u);

  EXPECT_EQ(r["picker"]["value"], "29507");
  EXPECT_NE(r["picker"]["text"].get<std::string>().find("of 30000"), std::string::npos) << r["picker"];
  EXPECT_EQ(r["picker"]["next"], "29508");

  EXPECT_EQ(r["diff"]["shown"], 1);       // the one changed span; the same ones hidden
  EXPECT_EQ(r["diff"]["withSame"], 46);

  EXPECT_EQ(r["stepper"]["title"], "backward_step_0 (1/7) \u2014 stepper");
  EXPECT_EQ(r["stepper"]["titleAfterNext"], "backward_step_1 (2/7) \u2014 stepper");
}

}  // namespace
