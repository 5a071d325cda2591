// Real processes: a program streaming its trace (NNDNA_XRAY_OUT) that exits, aborts, terminates
// or is killed mid-run still leaves a readable trace with its finished spans and its open ones.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nndna/xray.hpp>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace xr = nndna::xray;
namespace fs = std::filesystem;

struct ChildRun {
  int status = 0;
  xr::Trace trace;
  std::string raw;
};

ChildRun runChild(const std::string& mode) {
  fs::path out = fs::temp_directory_path() / ("xray_child_" + mode + "_" + std::to_string(::getpid()) + ".jsonl");
  fs::remove(out);
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  env.push_back(std::string(xr::kStreamEnvVar) + "=" + out.string());
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string program = XRAY_CHILD_PROGRAM;
  std::vector<char*> argv{program.data(), const_cast<char*>(mode.c_str()), nullptr};
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(), envp.data()), 0);
  ChildRun run;
  EXPECT_EQ(waitpid(pid, &run.status, 0), pid);
  std::ifstream in(out);
  run.raw.assign(std::istreambuf_iterator<char>(in), {});
  run.trace = xr::readTraceFile(out.string());
  fs::remove(out);
  return run;
}

const xr::TraceNode& named(const xr::Trace& t, std::string_view name) {
  for (const auto& n : t.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no span " + std::string(name));
}

void expectFinishedPart(const xr::Trace& trace) {
  ASSERT_EQ(trace.roots.size(), 1u);
  const auto& main = trace.nodes[trace.roots[0]];
  EXPECT_EQ(main.name, "main");
  ASSERT_EQ(main.children.size(), 5u);  // step x3, worker, crash_site
  for (int i = 0; i < 3; ++i) {
    const auto& step = trace.nodes[main.children[i]];
    EXPECT_EQ(step.name, "step");
    EXPECT_FALSE(step.open);
    EXPECT_EQ(step.inputs.at(0).second, std::to_string(i));
  }
  EXPECT_EQ(trace.nodes[main.children[3]].name, "worker");
  EXPECT_FALSE(trace.nodes[main.children[3]].open);
  EXPECT_EQ(named(trace, "crash_site").inputs.at(0).second, "[REDACTED]");
}

TEST(Process, NormalExitClosesEverySpan) {
  ChildRun run = runChild("ok");
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 0);
  expectFinishedPart(run.trace);
  EXPECT_EQ(xr::summarize(run.trace).open, 0u);
  EXPECT_EQ(run.trace.exitNote, "");
  EXPECT_EQ(run.raw.find("sk-secret"), std::string::npos);
}

TEST(Process, ExitInsideSpansLeavesThemOpen) {
  ChildRun run = runChild("exit3");
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 3);
  expectFinishedPart(run.trace);
  EXPECT_TRUE(named(run.trace, "main").open);
  EXPECT_TRUE(named(run.trace, "crash_site").open);
  EXPECT_EQ(run.trace.exitNote, "");  // it did exit normally
}

TEST(Process, AbortMidRunLeavesAValidPartialTrace) {
  ChildRun run = runChild("abort");
  ASSERT_TRUE(WIFSIGNALED(run.status));
  EXPECT_EQ(WTERMSIG(run.status), SIGABRT);
  expectFinishedPart(run.trace);
  EXPECT_TRUE(named(run.trace, "crash_site").open);
  EXPECT_EQ(xr::summarize(run.trace).open, 2u);
  EXPECT_NE(run.trace.exitNote.find("no exit record"), std::string::npos);
}

TEST(Process, SigkillLosesNothingThatWasWritten) {
  ChildRun run = runChild("kill");
  ASSERT_TRUE(WIFSIGNALED(run.status));
  EXPECT_EQ(WTERMSIG(run.status), SIGKILL);
  expectFinishedPart(run.trace);
  EXPECT_EQ(xr::summarize(run.trace).open, 2u);
}

TEST(Process, UncaughtExceptionRecordsTheTerminateReason) {
  ChildRun run = runChild("terminate");
  ASSERT_TRUE(WIFSIGNALED(run.status));
  expectFinishedPart(run.trace);
  EXPECT_EQ(run.trace.exitNote, "terminated: std::runtime_error: unhandled in crash_site");
  // The HTML is made afterwards from the file.
  std::string html = xr::toHtml(run.trace);
  EXPECT_NE(html.find("id=\"stat-open\""), std::string::npos);
}

}  // namespace
