// Real processes: a program streaming its trace (NNDNA_XRAY_OUT) that exits, aborts, terminates
// or is killed mid-run still leaves a readable trace with its finished spans and its open ones.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>
#include <set>
#include <sstream>
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

// The last record of the stream: the exit or terminate line.
nlohmann::json lastEvent(const std::string& raw) {
  std::istringstream lines(raw);
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty()) last = line;
  return nlohmann::json::parse(last);
}

// The ids the exit (or terminate) line lists as still open on any thread.
std::set<std::string> listedOpen(const ChildRun& run, std::string_view ev) {
  nlohmann::json last = lastEvent(run.raw);
  EXPECT_EQ(last.value("ev", ""), ev);
  std::set<std::string> ids;
  if (last.contains("open") && last["open"].is_array())
    for (const auto& id : last["open"]) ids.insert(id.get<std::string>());
  else
    ADD_FAILURE() << "no open list in " << last.dump();
  return ids;
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
    EXPECT_EQ(step.inputs().at(0).second, std::to_string(i));
  }
  EXPECT_EQ(trace.nodes[main.children[3]].name, "worker");
  EXPECT_FALSE(trace.nodes[main.children[3]].open);
  EXPECT_EQ(named(trace, "crash_site").inputs().at(0).second, "[REDACTED]");
}

TEST(Process, NormalExitClosesEverySpan) {
  ChildRun run = runChild("ok");
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 0);
  expectFinishedPart(run.trace);
  EXPECT_EQ(xr::summarize(run.trace).open, 0u);
  EXPECT_EQ(run.trace.exitNote, "");
  EXPECT_EQ(run.raw.find("sk-secret"), std::string::npos);
  EXPECT_EQ(listedOpen(run, "exit"), std::set<std::string>{});
}

TEST(Process, ExitInsideSpansLeavesThemOpen) {
  ChildRun run = runChild("exit3");
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 3);
  expectFinishedPart(run.trace);
  EXPECT_TRUE(named(run.trace, "main").open);
  EXPECT_TRUE(named(run.trace, "crash_site").open);
  EXPECT_EQ(run.trace.exitNote, "");  // it did exit normally
  EXPECT_EQ(listedOpen(run, "exit"), (std::set<std::string>{named(run.trace, "main").id, named(run.trace, "crash_site").id}));
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

// A second thread is blocked inside two spans (nested under crash_site through bindContext)
// when the main thread ends: every thread's open spans are marked open, in the trace and in the
// exit or terminate line.
void expectEveryThreadsSpansOpen(const ChildRun& run, std::string_view ev) {
  expectFinishedPart(run.trace);
  const auto& main = named(run.trace, "main");
  const auto& crashSite = named(run.trace, "crash_site");
  const auto& blocked = named(run.trace, "blocked_worker");
  const auto& wait = named(run.trace, "blocked_wait");
  for (const auto* n : {&main, &crashSite, &blocked, &wait}) EXPECT_TRUE(n->open) << n->name;
  EXPECT_EQ(xr::summarize(run.trace).open, 4u);
  EXPECT_NE(blocked.thread, main.thread);
  EXPECT_EQ(wait.thread, blocked.thread);
  ASSERT_TRUE(blocked.parent && wait.parent);
  EXPECT_EQ(run.trace.nodes[*blocked.parent].id, crashSite.id);
  EXPECT_EQ(run.trace.nodes[*wait.parent].id, blocked.id);
  EXPECT_EQ(listedOpen(run, ev), (std::set<std::string>{main.id, crashSite.id, blocked.id, wait.id}));
}

TEST(Process, ExitWhileAnotherThreadIsInsideSpansMarksEveryThreadsSpansOpen) {
  ChildRun run = runChild("exit_with_thread");
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 4);
  EXPECT_EQ(run.trace.exitNote, "");
  expectEveryThreadsSpansOpen(run, "exit");
}

TEST(Process, TerminateWhileAnotherThreadIsInsideSpansMarksEveryThreadsSpansOpen) {
  ChildRun run = runChild("terminate_with_thread");
  ASSERT_TRUE(WIFSIGNALED(run.status));
  EXPECT_EQ(WTERMSIG(run.status), SIGABRT);
  EXPECT_EQ(run.trace.exitNote, "terminated: std::runtime_error: unhandled while another thread waits");
  expectEveryThreadsSpansOpen(run, "terminate");
}

}  // namespace
