// Running a helper program from a benchmark and reading the one-line JSON it prints.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

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

// A number field of a flat one-line JSON object ({"ready_ms":1234,...}); -1 when missing.
inline double jsonField(const std::string& line, const std::string& key) {
  auto at = line.find("\"" + key + "\":");
  return at == std::string::npos ? -1 : std::atof(line.c_str() + at + key.size() + 3);
}

}  // namespace nndna::bench
