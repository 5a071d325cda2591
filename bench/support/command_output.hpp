// Running a helper program from a benchmark (and reading the one-line JSON it prints).
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace nndna::bench {

// The standard output of a shell command (empty when it fails).
inline std::string commandOutput(const std::string& command) {
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    if (::pclose(pipe) != 0) out.clear();
  }
  return out;
}

// Runs a program (argv[0] a path; no shell) with its standard output on /dev/null and waits for
// it; true when it exits with 0. posix_spawn starts it without copying this process's page
// tables: a benchmark that has built large graphs pays tens of milliseconds to fork(), which
// std::system would have added to the command it times.
inline bool runQuietly(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int failed = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  return failed == 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A number field of a flat one-line JSON object ({"ready_ms":1234,...}); -1 when missing.
inline double jsonField(const std::string& line, const std::string& key) {
  auto at = line.find("\"" + key + "\":");
  return at == std::string::npos ? -1 : std::atof(line.c_str() + at + key.size() + 3);
}

}  // namespace nndna::bench
