// Fuzz target: the scan of a spec's text for the standard headers its precompiled header should
// hold (src/specrun/standard_headers.cpp). The text is a stranger's; the scan must accept
// anything, and what it returns must be sorted names, each once, each from the library's own
// table (never a view into the text) and each written in the text as `<name>`.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>

#include "specrun/standard_headers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto names = nndna::specrun::precompilableHeaders(text);
  if (!std::is_sorted(names.begin(), names.end()) ||
      std::adjacent_find(names.begin(), names.end()) != names.end()) {
    std::abort();
  }
  const std::less<const char*> before;
  for (const std::string_view name : names) {
    const bool insideText = !before(name.data(), text.data()) && before(name.data(), text.data() + size);
    if (name.empty() || insideText || text.find("<" + std::string(name) + ">") == std::string_view::npos) {
      std::abort();
    }
  }
  return 0;
}
