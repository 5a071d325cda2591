// `nndna design` end to end against the fake model on loopback: what the user reads, the files it
// writes, the exit status, and the API key in none of them.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "fake_model.hpp"

namespace nndna::designer {
namespace {

using namespace testing;
namespace fs = std::filesystem;

struct CommandRun {
  int exitCode = -1;
  std::string output;  // stdout and stderr, interleaved as written
};

// Runs the `nndna` program with exactly `env` as its environment (PATH and HOME kept).
CommandRun runNndna(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
  int pipeFds[2];
  if (pipe(pipeFds) != 0) return {};
  std::vector<std::string> envText;
  for (const char* keep : {"PATH", "HOME", "TMPDIR"}) {
    if (const char* v = std::getenv(keep)) envText.push_back(std::string(keep) + "=" + v);
  }
  for (const auto& [name, value] : env) envText.push_back(name + "=" + value);
  std::vector<std::string> argvText{NNDNA_CLI};
  argvText.insert(argvText.end(), args.begin(), args.end());
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipeFds[1], STDOUT_FILENO);
    dup2(pipeFds[1], STDERR_FILENO);
    close(pipeFds[0]);
    close(pipeFds[1]);
    std::vector<char*> argv, envp;
    for (std::string& a : argvText) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (std::string& e : envText) envp.push_back(e.data());
    envp.push_back(nullptr);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(pipeFds[1]);
  CommandRun run;
  char buffer[4096];
  for (ssize_t n; (n = read(pipeFds[0], buffer, sizeof buffer)) != 0;) {
    if (n > 0) run.output.append(buffer, static_cast<std::size_t>(n));
    else if (errno != EINTR) break;
  }
  close(pipeFds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool hasLine(const std::string& output, const std::string& line) {
  std::istringstream in(output);
  for (std::string l; std::getline(in, l);) {
    if (l == line) return true;
  }
  return false;
}

class DesignCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::path(NNDNA_TEST_CACHE_DIR).parent_path() / "design-cli" /
          ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  // The environment of a user who configured the fake model.
  std::map<std::string, std::string> env(ApiStyle style) const {
    return {{"NNDNA_LLM_BASE_URL", server.baseUrl()},
            {"NNDNA_LLM_MODEL", style == ApiStyle::openai ? kOpenAiModel : kAnthropicModel},
            {"NNDNA_LLM_API_KEY", kTestKey}};
  }
  std::vector<std::string> args(std::vector<std::string> extra) const {
    extra.push_back("--cache-dir");
    extra.push_back(NNDNA_TEST_CACHE_DIR);
    return extra;
  }
  // No output and no written file holds the key.
  void expectNoKey(const CommandRun& run) const {
    EXPECT_EQ(run.output.find(kTestKey), std::string::npos) << "the key is in the output";
    for (const auto& entry : fs::directory_iterator(dir)) {
      EXPECT_EQ(readFile(entry.path()).find(kTestKey), std::string::npos) << "the key is in " << entry.path();
    }
  }

  FakeModel server;
  fs::path dir;
};

TEST_F(DesignCommand, AGoodAnswerOpenAiStyle) {
  server.script({answer(ApiStyle::openai, sourceJson(kGoodSpec))});
  const CommandRun run = runNndna(args({"design", "a tiny regression MLP", "-o", (dir / "mlp.html").string(), "--save",
                                 (dir / "mlp.cpp").string(), "--trace", (dir / "trace.html").string()}),
                           env(ApiStyle::openai));
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_TRUE(hasLine(run.output, "asking gpt-4o-mini at " + server.baseUrl() + "/chat/completions (openai API)"))
      << run.output;
  EXPECT_TRUE(hasLine(run.output, "attempt 1: asking for a spec")) << run.output;
  EXPECT_NE(run.output.find("attempt 1: gpt-4o-mini answered in "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(": 1,000 tokens in, 200 out, $0.0003\n"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("attempt 1: compiled and traced in "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("model: Tiny regression MLP — 97 parameters · "), std::string::npos) << run.output;
  EXPECT_TRUE(hasLine(run.output, "designed in 1 attempt")) << run.output;
  EXPECT_TRUE(hasLine(run.output, "wrote " + (dir / "mlp.cpp").string() + " (the spec)")) << run.output;
  EXPECT_NE(run.output.find("wrote " + (dir / "mlp.html").string() + " ("), std::string::npos) << run.output;
  // Each side's figures after the diagram, as `nndna diagram` prints them.
  EXPECT_NE(run.output.find("\ntraining: 97 parameters · "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("\ninference: 97 parameters · "), std::string::npos) << run.output;
  EXPECT_EQ(readFile(dir / "mlp.cpp"), kGoodSpec);
  EXPECT_NE(readFile(dir / "mlp.html").find("<svg"), std::string::npos);
  const std::string trace = readFile(dir / "trace.html");
  EXPECT_NE(trace.find("llm_call"), std::string::npos);
  EXPECT_NE(trace.find("compile_and_trace"), std::string::npos);
  expectNoKey(run);
}

TEST_F(DesignCommand, AGoodAnswerAnthropicStyleWithItsOwnKey) {
  server.script({answer(ApiStyle::anthropic, sourceJson(kGoodSpec))});
  std::map<std::string, std::string> e = env(ApiStyle::anthropic);
  e.erase("NNDNA_LLM_API_KEY");
  e["ANTHROPIC_API_KEY"] = kTestKey;  // the style's own variable
  const CommandRun run = runNndna(args({"design", "a tiny regression MLP", "--api-style", "anthropic", "-o",
                                 (dir / "mlp.json").string(), "--trace", (dir / "trace.json").string()}),
                           e);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_TRUE(hasLine(run.output, std::string("asking ") + kAnthropicModel + " at " + server.baseUrl() +
                                      "/messages (anthropic API)"))
      << run.output;
  EXPECT_NE(run.output.find(": 1,000 tokens in, 200 out, $0.0016\n"), std::string::npos) << run.output;
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].apiKey, kTestKey);
  EXPECT_NE(readFile(dir / "trace.json").find("\"llm_call\""), std::string::npos);
  expectNoKey(run);
}

TEST_F(DesignCommand, BrokenThenFixedShowsEachAttempt) {
  server.script({answer(ApiStyle::openai, sourceJson(brokenSpec())), answer(ApiStyle::openai, sourceJson(kGoodSpec))});
  const CommandRun run = runNndna(args({"design", "a tiny regression MLP", "--save", (dir / "net.cpp").string()}),
                           env(ApiStyle::openai));
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_TRUE(hasLine(run.output, "attempt 1: compile_error at line 8:")) << run.output;
  EXPECT_NE(run.output.find("net.cpp:8:"), std::string::npos) << run.output;  // named as the user saves it
  EXPECT_TRUE(hasLine(run.output, "attempt 2: asking for a fix of the compile_error at line 8")) << run.output;
  EXPECT_TRUE(hasLine(run.output, "designed in 2 attempts")) << run.output;
  EXPECT_EQ(readFile(dir / "net.cpp"), kGoodSpec);
  expectNoKey(run);
}

TEST_F(DesignCommand, RepairsRunOutTheLastSpecIsSaved) {
  server.script({answer(ApiStyle::openai, sourceJson(brokenSpec()))});
  const CommandRun run = runNndna(
      args({"design", "a tiny regression MLP", "--max-repairs", "1", "--save", (dir / "net.cpp").string()}),
      env(ApiStyle::openai));
  EXPECT_EQ(run.exitCode, 2) << run.output;  // a compile error, as `nndna ir` reports one
  EXPECT_TRUE(hasLine(run.output, "no working spec after 2 attempts; the last error is shown above (line 8)"))
      << run.output;
  EXPECT_TRUE(hasLine(run.output, "saved the last spec to " + (dir / "net.cpp").string() + " (the error is on line 8)"))
      << run.output;
  EXPECT_EQ(readFile(dir / "net.cpp"), brokenSpec());
  expectNoKey(run);
}

TEST_F(DesignCommand, UnauthorizedFallsBackOfflineAndSaysWhy) {
  server.script({apiError(401, std::string("Incorrect API key provided: ") + kTestKey)});
  const CommandRun run = runNndna(args({"design", "a tiny GPT", "-o", (dir / "gpt.svg").string()}), env(ApiStyle::openai));
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("the model endpoint failed: " + server.baseUrl() +
                            "/chat/completions refused the API key (HTTP 401): check NNDNA_LLM_API_KEY"),
            std::string::npos)
      << run.output;
  EXPECT_TRUE(hasLine(run.output, "falling back to the offline designer")) << run.output;
  EXPECT_NE(run.output.find("offline designer: decoder_lm"), std::string::npos) << run.output;
  EXPECT_TRUE(hasLine(run.output, "designed in 1 attempt by the offline designer")) << run.output;
  EXPECT_NE(readFile(dir / "gpt.svg").find("<svg"), std::string::npos);
  expectNoKey(run);
}

TEST_F(DesignCommand, NoEndpointMeansOffline) {
  const CommandRun run = runNndna(args({"design", "a tiny GPT", "-o", (dir / "gpt.dot").string()}), {});
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("designing offline: no model endpoint is configured"), std::string::npos) << run.output;
  EXPECT_TRUE(server.requests().empty());
  EXPECT_TRUE(readFile(dir / "gpt.dot").starts_with("digraph"));
}

TEST_F(DesignCommand, TheOutputFormatIsChecked) {
  const CommandRun run = runNndna(args({"design", "a tiny GPT", "-o", (dir / "gpt.png").string()}), {});
  EXPECT_NE(run.exitCode, 0);
  EXPECT_NE(run.output.find("the output must end in .html, .svg, .dot or .json"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace nndna::designer
