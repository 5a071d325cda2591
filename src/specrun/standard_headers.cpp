// A spec that includes <cmath> paid for parsing it on every compile (about a fifth of the
// transformer example's compile), after a precompiled header that could have held it. The
// header is not put into every spec's PCH: each header there costs every compile at the end of
// the file (<cmath>: about 30 ms), whether the spec includes it or not.
#include "specrun/standard_headers.hpp"

#include <algorithm>
#include <array>

namespace nndna::specrun {

namespace {

// The C++20 library headers (g++ 12's libstdc++; <format> arrived in 13), without those
// nndna.hpp includes (cstddef cstdint initializer_list iosfwd limits optional string_view
// type_traits utility variant vector), <cassert>, and the deprecated or removed <ccomplex>
// <ciso646> <cstdalign> <cstdbool> <ctgmath> <codecvt>. Sorted, for binary search.
constexpr auto kPrecompilable = std::to_array<std::string_view>({
    "algorithm", "any",        "array",          "atomic",       "barrier",    "bit",        "bitset",
    "cctype",    "cerrno",     "cfenv",          "cfloat",       "charconv",   "chrono",
    "cinttypes", "climits",    "clocale",        "cmath",        "compare",    "complex",
    "concepts",  "condition_variable",           "coroutine",    "csetjmp",    "csignal",
    "cstdarg",   "cstdio",     "cstdlib",        "cstring",      "ctime",      "cuchar",
    "cwchar",    "cwctype",    "deque",          "exception",    "execution",  "filesystem",
    "forward_list",            "fstream",        "functional",   "future",     "iomanip",
    "ios",       "iostream",   "istream",        "iterator",     "latch",      "list",
    "locale",    "map",        "memory",         "memory_resource",            "mutex",
    "new",       "numbers",    "numeric",        "ostream",      "queue",      "random",
    "ranges",    "ratio",      "regex",          "scoped_allocator",           "semaphore",
    "set",       "shared_mutex",                 "source_location",            "span",
    "sstream",   "stack",      "stdexcept",      "stop_token",   "streambuf",  "string",
    "syncstream", "system_error",                "thread",       "tuple",      "typeindex",
    "typeinfo",  "unordered_map",                "unordered_set",              "valarray",
    "version"});

bool isSpace(char c) { return c == ' ' || c == '\t'; }

// The name in `#include <name>` if `line` is one (spaces allowed around `#` and before `<`).
std::string_view includedName(std::string_view line) {
  std::size_t i = 0;
  auto skipSpaces = [&] {
    while (i < line.size() && isSpace(line[i])) ++i;
  };
  skipSpaces();
  if (i == line.size() || line[i] != '#') return {};
  ++i;
  skipSpaces();
  constexpr std::string_view kInclude = "include";
  if (line.substr(i, kInclude.size()) != kInclude) return {};
  i += kInclude.size();
  skipSpaces();
  if (i == line.size() || line[i] != '<') return {};
  const std::size_t close = line.find('>', i + 1);
  if (close == std::string_view::npos) return {};
  return line.substr(i + 1, close - i - 1);
}

}  // namespace

std::vector<std::string_view> precompilableHeaders(std::string_view specText) {
  static_assert(std::is_sorted(kPrecompilable.begin(), kPrecompilable.end()));
  std::vector<std::string_view> found;
  std::size_t start = 0;
  while (start < specText.size()) {
    std::size_t end = specText.find('\n', start);
    if (end == std::string_view::npos) end = specText.size();
    const std::string_view name = includedName(specText.substr(start, end - start));
    // The table's own string: the result does not point into the spec's text.
    const auto known = std::lower_bound(kPrecompilable.begin(), kPrecompilable.end(), name);
    if (!name.empty() && known != kPrecompilable.end() && *known == name) found.push_back(*known);
    start = end + 1;
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

}  // namespace nndna::specrun
