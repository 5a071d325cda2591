// The `nndna xray` and `nndna value` commands end to end, on real programs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_program.hpp"

namespace {

namespace fs = std::filesystem;
using xray_test::runProgram;

struct CliTest : ::testing::Test {
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("nndna_xray_cli_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string path(const char* name) const { return (dir / name).string(); }
  static std::string read(const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

TEST_F(CliTest, RunWritesViewerAndJsonOfTheExampleAgent) {
  auto r = runProgram({NNDNA_CLI, "xray", "run", XRAY_AGENT, "--html", path("a.html"), "--json", path("a.json")}, true);
  EXPECT_EQ(r.exitCode(), 0);
  EXPECT_NE(r.out.find("umbrella"), std::string::npos);  // the program's own stdout passes through
  auto doc = nlohmann::json::parse(read(path("a.json")));
  EXPECT_EQ(doc["format"], "nndna-xray-trace");
  EXPECT_EQ(doc["summary"]["nodes"], 10);
  EXPECT_EQ(doc["summary"]["errors"], 1);
  EXPECT_EQ(doc["summary"]["open"], 0);
  EXPECT_EQ(doc["summary"]["total_tokens"], 545);
  ASSERT_EQ(doc["nodes"].size(), 1u);
  EXPECT_EQ(doc["nodes"][0]["name"], "agent");
  std::string html = read(path("a.html"));
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("tool.flights"), std::string::npos);
  EXPECT_EQ(html.find("sk-example-not-real"), std::string::npos);
}

TEST_F(CliTest, ExitStatusIsPassedOnAndACrashStillYieldsItsPartialTrace) {
  auto exited = runProgram({NNDNA_CLI, "xray", "run", XRAY_CHILD, "exit3", "--json", path("e.json")}, true);
  EXPECT_EQ(exited.exitCode(), 3);
  EXPECT_EQ(nlohmann::json::parse(read(path("e.json")))["summary"]["open"], 2);

  auto aborted = runProgram({NNDNA_CLI, "xray", "run", "--json", path("c.json"), "--html", path("c.html"), XRAY_CHILD, "abort"}, true);
  EXPECT_EQ(aborted.exitCode(), 128 + SIGABRT);
  auto doc = nlohmann::json::parse(read(path("c.json")));
  EXPECT_EQ(doc["summary"]["nodes"], 6);
  EXPECT_EQ(doc["summary"]["open"], 2);
  EXPECT_NE(doc["exit_note"].get<std::string>().find("no exit record"), std::string::npos);
  EXPECT_NE(read(path("c.html")).find("id=\"stat-open\""), std::string::npos);
}

TEST_F(CliTest, ArgumentsAfterDoubleDashGoToTheProgram) {
  auto r = runProgram({NNDNA_CLI, "xray", "run", "--json", path("k.json"), "--", XRAY_CHILD, "ok"}, true);
  EXPECT_EQ(r.exitCode(), 0);
  auto doc = nlohmann::json::parse(read(path("k.json")));
  EXPECT_EQ(doc["nodes"][0]["inputs"]["mode"], "ok");
}

TEST_F(CliTest, ProgramWithoutXrayIsReported) {
  auto r = runProgram({NNDNA_CLI, "xray", "run", "true", "--html", path("t.html")}, true);
  EXPECT_EQ(r.exitCode(), 1);
  EXPECT_FALSE(fs::exists(path("t.html")));
}

TEST_F(CliTest, ViewConvertsTraceJsonAndEventStreams) {
  ASSERT_EQ(runProgram({NNDNA_CLI, "xray", "run", XRAY_AGENT, "--json", path("a.json"), "--events", path("a.jsonl")}, true).exitCode(), 0);
  auto r = runProgram({NNDNA_CLI, "xray", "view", path("a.json"), "-o", path("v.html"), "--chrome", path("v.chrome.json"), "--dot", path("v.dot")}, true);
  EXPECT_EQ(r.exitCode(), 0);
  EXPECT_NE(read(path("v.html")).find("<svg"), std::string::npos);
  auto chrome = nlohmann::json::parse(read(path("v.chrome.json")));
  EXPECT_TRUE(chrome["traceEvents"].is_array());
  EXPECT_NE(read(path("v.dot")).find("call_llm \u00d73"), std::string::npos);
  auto fromEvents = runProgram({NNDNA_CLI, "xray", "view", path("a.jsonl"), "--json", path("b.json")}, true);
  EXPECT_EQ(fromEvents.exitCode(), 0);
  EXPECT_EQ(nlohmann::json::parse(read(path("b.json")))["summary"]["nodes"], 10);
}

TEST_F(CliTest, ViewRejectsMetadataNested100000DeepWithAClearError) {
  std::ofstream(path("deep.json")) << R"({"format": "nndna-xray-trace", "version": 1, "nodes": [{"id": "s1", "name": "a",
      "start_ms": 0, "latency_ms": 1, "meta": {"deep": )" << std::string(100'000, '[') << std::string(100'000, ']') << "}}]}";
  auto r = runProgram({NNDNA_CLI, "xray", "view", path("deep.json"), "-o", path("deep.html")}, false);
  EXPECT_NE(r.exitCode(), 0);
  EXPECT_LT(r.exitCode(), 128) << "killed by a signal";
  EXPECT_FALSE(fs::exists(path("deep.html")));
}

TEST_F(CliTest, DiffAndOtlpOfTwoRuns) {
  ASSERT_EQ(runProgram({NNDNA_CLI, "xray", "run", XRAY_AGENT, "--json", path("a.json"), "--otlp", path("a.otlp.json")}, true).exitCode(), 0);
  ASSERT_EQ(runProgram({NNDNA_CLI, "xray", "run", XRAY_AGENT, "--json", path("b.json")}, true).exitCode(), 0);
  auto otlp = nlohmann::json::parse(read(path("a.otlp.json")));
  EXPECT_EQ(otlp["resourceSpans"][0]["scopeSpans"][0]["spans"].size(), 10u);
  EXPECT_EQ(runProgram({NNDNA_CLI, "xray", "diff", path("a.json"), path("b.json"), "-o", path("d.html")}, true).exitCode(), 0);
  std::string html = read(path("d.html"));
  // The same program twice: every span matches (the outputs are the same; latencies differ).
  EXPECT_NE(html.find("<span id=\"count-same\">10 same</span>"), std::string::npos);
  EXPECT_NE(html.find("<span id=\"count-added\">0 added</span>"), std::string::npos);
}

// "-" is standard output for every file the commands write, as for `nndna diagram -o -`; the
// "Wrote …" lines go to standard error, so standard output holds the one file alone.
TEST_F(CliTest, ADashWritesToStandardOutput) {
  ASSERT_EQ(runProgram({NNDNA_CLI, "xray", "run", XRAY_AGENT, "--json", path("a.json")}, true).exitCode(), 0);
  auto json = runProgram({NNDNA_CLI, "xray", "view", path("a.json"), "--json", "-"}, true);
  EXPECT_EQ(json.exitCode(), 0);
  EXPECT_EQ(nlohmann::json::parse(json.out)["summary"]["nodes"], 10);
  auto page = runProgram({NNDNA_CLI, "xray", "view", path("a.json"), "-o", "-"}, true);
  EXPECT_EQ(page.exitCode(), 0);
  EXPECT_EQ(page.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.out.find("tool.flights"), std::string::npos);
  auto diff = runProgram({NNDNA_CLI, "xray", "diff", path("a.json"), path("a.json"), "-o", "-"}, true);
  EXPECT_EQ(diff.exitCode(), 0);
  EXPECT_NE(diff.out.find("<span id=\"count-same\">10 same</span>"), std::string::npos);
  auto stepper = runProgram({NNDNA_CLI, "value", "demo", "backward", "--html", "-"}, true);
  EXPECT_EQ(stepper.exitCode(), 0);
  EXPECT_EQ(stepper.out.rfind("<!DOCTYPE html>", 0), 0u);
  // Two files cannot both be standard output.
  auto two = runProgram({NNDNA_CLI, "xray", "view", path("a.json"), "--json", "-", "--dot", "-"}, true);
  EXPECT_NE(two.exitCode(), 0);
  EXPECT_EQ(two.out, "");
  EXPECT_FALSE(fs::exists("-"));
  // `xray run`'s program writes to standard output itself: refused before the program runs.
  auto run = runProgram({NNDNA_CLI, "xray", "run", XRAY_AGENT, "--json", "-"}, true);
  EXPECT_NE(run.exitCode(), 0);
  EXPECT_EQ(run.out.find("umbrella"), std::string::npos);
  auto events = runProgram({NNDNA_CLI, "xray", "run", XRAY_AGENT, "--events", "-", "--json", path("e.json")}, true);
  EXPECT_NE(events.exitCode(), 0);
  EXPECT_EQ(events.out.find("umbrella"), std::string::npos);
  EXPECT_FALSE(fs::exists("-"));
}

TEST_F(CliTest, ValueDemoTakesOneOfHtmlAndOutputDir) {
  auto both = runProgram({NNDNA_CLI, "value", "demo", "--html", path("s.html"), "--output-dir", path("out")}, true);
  EXPECT_NE(both.exitCode(), 0);
  EXPECT_FALSE(fs::exists(path("out")));
}

TEST_F(CliTest, ValueDemoWritesDotIrAndStepper) {
  auto forward = runProgram({NNDNA_CLI, "value", "demo"});
  EXPECT_EQ(forward.exitCode(), 0);
  EXPECT_NE(forward.out.find("rankdir=\"BT\""), std::string::npos);
  EXPECT_EQ(forward.out.find("grad:"), std::string::npos);
  auto backward = runProgram({NNDNA_CLI, "value", "demo", "backward"});
  EXPECT_NE(backward.out.find("grad: -0.00402285"), std::string::npos);

  EXPECT_EQ(runProgram({NNDNA_CLI, "value", "demo", "--output-dir", path("out")}, true).exitCode(), 0);
  EXPECT_NE(read(path("out/forward.dot")).find("data: 0.999329"), std::string::npos);
  EXPECT_NE(read(path("out/backward.dot")).find("grad: 1"), std::string::npos);
  auto ir = nlohmann::json::parse(read(path("out/graph.json")));
  EXPECT_EQ(ir["version"], 1);
  EXPECT_EQ(ir["nodes"].size(), 7u);

  EXPECT_EQ(runProgram({NNDNA_CLI, "value", "demo", "backward", "--html", path("s.html")}, true).exitCode(), 0);
  std::string html = read(path("s.html"));
  EXPECT_NE(html.find("id=\"stepper-data\""), std::string::npos);
  EXPECT_NE(html.find("\"start\":7"), std::string::npos);
  EXPECT_NE(runProgram({NNDNA_CLI, "value", "demo", "sideways"}, true).exitCode(), 0);
}

}  // namespace
