// Reading docs/design_prompt.md and include/nndna/nndna.hpp for the prompt tests.
#pragma once

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace nndna::designer::testprompt {

inline std::string readSourceFile(const std::string& relative) {
  std::ifstream in(std::string(NNDNA_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A ```cpp fenced block of the prompt and the document line its code starts on.
struct Fragment {
  int firstLine = 0;  // 1-based line of the first code line
  std::string code;
};

inline std::vector<Fragment> cppFragments(const std::string& markdown) {
  std::vector<Fragment> out;
  const std::vector<std::string> lines = linesOf(markdown);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] != "```cpp") continue;
    Fragment f;
    f.firstLine = static_cast<int>(i) + 2;
    for (++i; i < lines.size() && lines[i] != "```"; ++i) f.code += lines[i] + "\n";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace nndna::designer::testprompt
