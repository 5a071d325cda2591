// The `nndna` command running spec files, end to end: what survives when nndna is killed during a
// run (issue 9.9), what -v says after a compile error (9.10), and what reaches the terminal and
// the written files from a hostile spec (the small things of issue 9).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cgroups_of.hpp"
#include "specrun/sandbox.hpp"
#include "specrun/temp_dir.hpp"
#include "test_cache.hpp"

extern char** environ;

namespace nndna::specrun {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const fs::path kSpecs = fs::path(NNDNA_SOURCE_DIR) / "tests" / "specrun" / "specs";

std::string readFile(const fs::path& file) {
  std::ostringstream text;
  text << std::ifstream(file, std::ios::binary).rdbuf();
  return text.str();
}

// `nndna ARGS...` with TMPDIR set to `tmp`, its stdout+stderr going to `log`.
pid_t startNndna(const std::vector<std::string>& args, const fs::path& tmp, const fs::path& log) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!std::string_view(*e).starts_with("TMPDIR=")) env.emplace_back(*e);
  }
  env.push_back("TMPDIR=" + tmp.string());
  std::vector<std::string> argv{NNDNA_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> argvPtrs, envPtrs;
  for (std::string& a : argv) argvPtrs.push_back(a.data());
  argvPtrs.push_back(nullptr);
  for (std::string& e : env) envPtrs.push_back(e.data());
  envPtrs.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argvPtrs[0], &actions, nullptr, argvPtrs.data(), envPtrs.data());
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0);
  return pid;
}

// Runs nndna to the end: its exit status and output.
std::pair<int, std::string> runNndna(const std::vector<std::string>& args, const fs::path& dir) {
  const fs::path log = dir / "nndna.log";
  const pid_t pid = startNndna(args, fs::temp_directory_path(), log);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), readFile(log)};
}

// Processes (other than this one) whose environment has a TMPDIR starting with `tmp`: nndna
// started with it, and the spec program and its children (whose TMPDIR is their run directory,
// inside `tmp`). The sandbox's init has the program's environment too, which only root may read
// (init is not dumpable); `withInit` false leaves it out.
std::vector<pid_t> processesUnder(const fs::path& tmp, bool withInit = true) {
  std::vector<pid_t> found;
  const std::string wanted = "TMPDIR=" + tmp.string();
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    if (pid == ::getpid()) continue;
    if (!withInit && readFile(entry.path() / "comm") == "nndna-sandbox-i\n") continue;
    const std::string environment = readFile(entry.path() / "environ");
    for (std::size_t at = 0; at < environment.size();) {
      const std::size_t end = environment.find('\0', at);
      const std::string_view var = std::string_view(environment).substr(at, end - at);
      if (var.starts_with(wanted)) found.push_back(pid);
      if (end == std::string::npos) break;
      at = end + 1;
    }
  }
  return found;
}

// The threads of `pid` (their names) that do not block SIGTERM, SIGINT and SIGHUP: while a spec
// runs, any such thread could take a termination signal and end nndna before the run is stopped
// and cleaned up (the run reads them from a signalfd).
std::vector<std::string> threadsLettingTerminationThrough(pid_t pid) {
  constexpr unsigned long long kTermination = (1ull << (SIGTERM - 1)) | (1ull << (SIGINT - 1)) | (1ull << (SIGHUP - 1));
  std::vector<std::string> found;
  for (const fs::directory_entry& task : fs::directory_iterator(fs::path("/proc") / std::to_string(pid) / "task")) {
    std::istringstream status(readFile(task.path() / "status"));
    std::string line, name;
    unsigned long long blocked = 0;
    while (std::getline(status, line)) {
      if (line.starts_with("Name:")) name = line.substr(line.find_first_not_of(" \t", 5));
      if (line.starts_with("SigBlk:")) blocked = std::stoull(line.substr(7), nullptr, 16);
    }
    if ((blocked & kTermination) != kTermination) found.push_back(name + " (" + task.path().filename().string() + ")");
  }
  return found;
}

std::vector<fs::path> runDirectoriesIn(const fs::path& tmp) {
  std::vector<fs::path> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(tmp)) {
    if (entry.path().filename().string().starts_with("nndna-run-")) found.push_back(entry.path());
  }
  return found;
}

class CliRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.emplace(fs::temp_directory_path(), "nndna-test-cli-");
    tmp_ = dir_->path() / "tmp";
    fs::create_directory(tmp_);
  }

  // A spec that starts three children and then waits forever, like them.
  fs::path writeEndlessSpec() const {
    const fs::path spec = dir_->path() / "endless.cpp";
    std::ofstream(spec) << "#include <nndna/nndna.hpp>\n#include <unistd.h>\nusing namespace nndna;\n"
                           "struct Net : Module { Linear l{\"l\", 4, 2}; };\n"
                           "Tensor lossFn(Net& m, const Inputs& in) {\n"
                           "  for (int i = 0; i < 3; ++i) if (::fork() == 0) for (;;) ::pause();\n"
                           "  for (;;) ::pause();\n"
                           "  return mean(m.l(in[\"x\"]));\n}\n"
                           "NNDNA_SPEC(Net) { return {.label = \"t\", .loss = lossFn, .inputs = {{\"x\", {8, 4}}}}; }\n";
    return spec;
  }

  // Starts `nndna ir` (or `command`) on the endless spec, waits until the spec program and its
  // three children run, kills nndna with `signal`, and checks that nothing it started survives.
  // Returns nndna's pid and exit status.
  std::pair<pid_t, int> killDuringARun(int signal, const std::string& command = "ir",
                                       const std::string& output = "out.json") {
    const pid_t nndna = startNndna({command, writeEndlessSpec().string(), "--cache-dir", testCacheDir(), "-o",
                                    (dir_->path() / output).string()},
                                   tmp_, dir_->path() / "nndna.log");
    // The spec program and its three children, whose TMPDIR is their run directory.
    const fs::path runDirs = tmp_ / "nndna-run-";
    const auto deadline = std::chrono::steady_clock::now() + 300s;
    while (processesUnder(runDirs, false).size() < 4 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(50ms);
    }
    EXPECT_EQ(processesUnder(runDirs, false).size(), 4u) << readFile(dir_->path() / "nndna.log");
    EXPECT_EQ(runDirectoriesIn(tmp_).size(), runDirectoriesOnTheHost());
    EXPECT_EQ(threadsLettingTerminationThrough(nndna), std::vector<std::string>{});
    ::kill(nndna, signal);
    int status = 0;
    ::waitpid(nndna, &status, 0);
    const auto gone = std::chrono::steady_clock::now() + 10s;
    while (!processesUnder(tmp_).empty() && std::chrono::steady_clock::now() < gone) {
      std::this_thread::sleep_for(20ms);
    }
    EXPECT_EQ(processesUnder(tmp_).size(), 0u) << "processes outlived nndna";
    return {nndna, status};
  }

  // SIGTERM during `command`'s run: nndna stops the run, says so, exits with 128 + SIGTERM and
  // leaves no output, run directory or cgroup behind.
  void expectSigtermStopsTheRunCleanly(const std::string& command, const std::string& output) {
    const auto [nndna, status] = killDuringARun(SIGTERM, command, output);
    ASSERT_TRUE(WIFEXITED(status)) << "nndna handles SIGTERM: it stops the run and cleans up";
    EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
    const std::string log = readFile(dir_->path() / "nndna.log");
    EXPECT_NE(log.find("nndna: stopped by SIGTERM (Terminated); the spec and everything it started were killed"),
              std::string::npos)
        << log;
    EXPECT_FALSE(fs::exists(dir_->path() / output));
    EXPECT_TRUE(runDirectoriesIn(tmp_).empty());
    EXPECT_TRUE(cgroupsOf(nndna).empty());
  }

  // How many run directories a spec run has on the host while it runs: none with namespaces (the
  // program's working directory is a tmpfs in its own root), one without.
  static std::size_t runDirectoriesOnTheHost() { return isolationStatus().inForce.namespaces ? 0 : 1; }

  std::optional<TempDir> dir_;
  fs::path tmp_;
};

TEST_F(CliRun, SigtermDuringARunLeavesNothingBehind) { expectSigtermStopsTheRunCleanly("ir", "out.json"); }

// `diagram -o x.html` lays out a small drawing on a thread of its own while the spec runs (the
// renderer's warm-up); the termination signals stay with the run (every thread blocks them:
// checked before the signal is sent, here and in killDuringARun's other runs), which stops as
// `nndna ir` does. The warm-up thread's own mask: RendererWarmUp in tests/cli/cli_unit_test.cpp.
TEST_F(CliRun, SigtermDuringADrawingRunLeavesNothingBehind) {
  expectSigtermStopsTheRunCleanly("diagram", "out.html");
}

TEST_F(CliRun, SigkillDuringARunLeavesNothingRunningAndTheNextRunSweeps) {
  const auto [nndna, status] = killDuringARun(SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(status));
  // Nothing could clean up after SIGKILL; the next nndna sweeps what the dead one left. With
  // namespaces that is nothing on the host (the run's tmpfs died with it), so the test leaves a
  // run directory named as a run without them would have left it.
  EXPECT_EQ(runDirectoriesIn(tmp_).size(), runDirectoriesOnTheHost());
  if (runDirectoriesOnTheHost() == 0) {
    fs::create_directory(tmp_ / ("nndna-run-" + std::to_string(nndna) + "-left00"));
    std::ofstream(tmp_ / ("nndna-run-" + std::to_string(nndna) + "-left00") / "ir.cbor") << "x";
  }
  const pid_t next = startNndna({"ir", (fs::path(NNDNA_SOURCE_DIR) / "examples" / "mlp_sin.cpp").string(),
                                 "--cache-dir", testCacheDir(), "-o", (dir_->path() / "next.json").string()},
                                tmp_, dir_->path() / "next.log");
  int nextStatus = 0;
  ::waitpid(next, &nextStatus, 0);
  EXPECT_EQ(nextStatus, 0) << readFile(dir_->path() / "next.log");
  EXPECT_TRUE(runDirectoriesIn(tmp_).empty());
  EXPECT_TRUE(cgroupsOf(nndna).empty());
}

// --keep-temp's directory holds what the spec left and outlives the next nndna, whose sweep of
// dead processes' run directories once removed it.
TEST_F(CliRun, AKeptRunDirectoryOutlivesTheNextRun) {
  const std::string spec = (fs::path(NNDNA_SOURCE_DIR) / "examples" / "mlp_sin.cpp").string();
  const pid_t kept = startNndna({"ir", spec, "--cache-dir", testCacheDir(), "-o", (dir_->path() / "a.json").string(),
                                 "--keep-temp"},
                                tmp_, dir_->path() / "kept.log");
  int status = 0;
  ::waitpid(kept, &status, 0);
  const std::string log = readFile(dir_->path() / "kept.log");
  ASSERT_EQ(status, 0) << log;
  const std::string said = "run directory kept: ";
  const std::size_t at = log.find(said);
  ASSERT_NE(at, std::string::npos) << log;
  const fs::path keptDir = log.substr(at + said.size(), log.find('\n', at) - at - said.size());
  EXPECT_EQ(keptDir.parent_path(), tmp_);
  EXPECT_TRUE(fs::exists(keptDir / "ir.cbor")) << keptDir;
  const pid_t next = startNndna({"ir", spec, "--cache-dir", testCacheDir(), "-o", (dir_->path() / "b.json").string()},
                                tmp_, dir_->path() / "next.log");
  ::waitpid(next, &status, 0);
  EXPECT_EQ(status, 0) << readFile(dir_->path() / "next.log");
  EXPECT_TRUE(fs::exists(keptDir / "ir.cbor")) << keptDir;
  fs::remove_all(keptDir);
}

// -v names the isolation the compiler had, even when the compile failed (it used to claim "no
// namespaces on this machine").
TEST_F(CliRun, VerboseNamesTheSandboxAfterACompileError) {
  const auto [status, output] = runNndna({"ir", (fs::path(NNDNA_SOURCE_DIR) / "tests" / "cli" / "specs" /
                                                 "compile_error.cpp").string(),
                                          "-v", "--cache-dir", testCacheDir()},
                                         dir_->path());
  EXPECT_EQ(status, 2) << output;
  const IsolationStatus& isolation = isolationStatus();
  if (isolation.full) {
    EXPECT_NE(output.find("\nsandbox: " + isolation.describe() + "\n"), std::string::npos) << output;
  } else {
    EXPECT_NE(output.find("\nsandbox: partial isolation: missing "), std::string::npos) << output;
    EXPECT_NE(output.find("nndna: warning: the spec ran without full isolation: missing "), std::string::npos)
        << output;
  }
}

// What a spec prints is shown without -v: after a run that worked, and after an error of the
// spec's run that did not quote it already (a shape error here), but once only.
TEST_F(CliRun, WhatASpecPrintsIsShown) {
  const fs::path out = dir_->path() / "ir.json";
  auto [status, output] = runNndna(
      {"ir", (kSpecs / "prints_then_traces.cpp").string(), "-o", out.string(), "--cache-dir", testCacheDir()},
      dir_->path());
  EXPECT_EQ(status, 0) << output;
  // (A machine without namespaces adds a warning line: the output is searched, not compared.)
  const auto once = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos && text.find(part) == text.rfind(part);
  };
  EXPECT_TRUE(once(output,
                   "the spec printed:\n"
                   "debug: the input is traced\n"
                   "debug: the layer is traced, no newline at the end\n"))
      << output;
  EXPECT_TRUE(once(output, "the spec printed:")) << output;
  std::tie(status, output) = runNndna(
      {"ir", (kSpecs / "prints_then_mismatches.cpp").string(), "--cache-dir", testCacheDir()}, dir_->path());
  EXPECT_EQ(status, 3) << output;
  const std::string spec = (kSpecs / "prints_then_mismatches.cpp").string();
  EXPECT_TRUE(once(output,
                   spec + ":15: matmul: inner dimensions differ: [2, 4] · [2, 4]\n"
                   "the spec printed:\n"
                   "debug: about to multiply [2, 4] by itself\n"))
      << output;
  EXPECT_TRUE(once(output, "the spec printed:")) << output;
  // With -v the report shows it, and nothing after the error repeats it.
  std::tie(status, output) = runNndna(
      {"ir", spec, "-v", "--cache-dir", testCacheDir()}, dir_->path());
  EXPECT_EQ(status, 3) << output;
  EXPECT_TRUE(once(output, "the spec printed:")) << output;
  EXPECT_LT(output.find("the spec printed:"), output.find(": matmul: inner dimensions differ")) << output;
}

TEST_F(CliRun, EscapeSequencesReachTheTerminalAsText) {
  const auto [status, output] =
      runNndna({"ir", (kSpecs / "escape_sequences.cpp").string(), "--cache-dir", testCacheDir()}, dir_->path());
  EXPECT_EQ(status, 3) << output;
  EXPECT_EQ(output.find('\x1b'), std::string::npos) << output;
  EXPECT_EQ(output.find('\x07'), std::string::npos) << output;
  EXPECT_EQ(output.find("\xc2\x9b"), std::string::npos) << output;
  EXPECT_NE(output.find("escape_sequences.cpp: thrown \\x1b[2J\\x1b[Hcleared \\xc2\\x9b31m\n"), std::string::npos)
      << output;
  EXPECT_NE(output.find("\\x1b]0;pwned title\\x07printed \\x1b[31mred\\x1b[0m"), std::string::npos) << output;
  // Quoted by the exception's message, and not again after it.
  EXPECT_EQ(output.find("the spec printed:"), output.rfind("the spec printed:")) << output;
}

// No C0 control character but tab, newline and carriage return, and nothing that is not UTF-8
// (checked here byte by byte, independently of the code under test).
void expectCleanText(const std::string& text, const std::string& what) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20) {
      ASSERT_TRUE(c == '\t' || c == '\n' || c == '\r') << what << ": control character " << int(c) << " at " << i;
      continue;
    }
    if (c < 0x80) continue;
    const int extra = c >= 0xF0 && c <= 0xF4 ? 3 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xC2 && c <= 0xDF ? 1 : -1;
    ASSERT_GE(extra, 0) << what << ": byte " << int(c) << " at " << i << " starts no UTF-8 sequence";
    for (int k = 1; k <= extra; ++k) {
      ASSERT_LT(i + k, text.size()) << what;
      const auto next = static_cast<unsigned char>(text[i + k]);
      ASSERT_TRUE(next >= 0x80 && next <= 0xBF) << what << ": bad continuation at " << i + k;
    }
    i += extra;
  }
}

TEST_F(CliRun, HostileTextKeepsEveryOutputWellFormed) {
  for (const char* extension : {"svg", "html", "json"}) {
    const fs::path out = dir_->path() / (std::string("hostile.") + extension);
    const auto [status, output] = runNndna(
        {"diagram", (kSpecs / "hostile_text.cpp").string(), "--cache-dir", testCacheDir(), "-o", out.string()},
        dir_->path());
    ASSERT_EQ(status, 0) << output;
    const std::string text = readFile(out);
    expectCleanText(text, out.string());
    if (std::string_view(extension) == "json") {
      EXPECT_TRUE(nlohmann::json::accept(text)) << "not valid JSON";
    } else {
      // The input's name and the spec line keep their control character, as its picture (U+2401).
      EXPECT_NE(text.find("input: x\xE2\x90\x81"), std::string::npos) << out;
      EXPECT_NE(text.find("a control character: \xE2\x90\x81"), std::string::npos) << out;
    }
  }
}

}  // namespace
}  // namespace nndna::specrun
