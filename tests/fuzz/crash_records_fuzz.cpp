// Fuzz target: the spec runner's reading of a crashed spec program's crash record
// (src/specrun/crash_location.cpp). The record is a stranger's: the spec program writes it, and
// may write anything. The reader must accept any JSON (ASan and UBSan watch its arithmetic on
// the addresses), look up at most the handler's number of addresses, and name only a line of
// 1 or more in a file the caller accepted. The binary it looks in is this program itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "specrun/crash_location.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json record =
      nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  std::string accepted;
  const auto at = nndna::specrun::locateCrash("/proc/self/exe", record, [&](std::string_view file) {
    accepted = file;
    return true;
  });
  if (at && (at->line < 1 || at->file.empty() || at->file != accepted)) std::abort();
  return 0;
}
