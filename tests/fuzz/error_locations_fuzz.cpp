// Fuzz target: the server's reading of a spec run's error message for the lines the editor marks
// (src/server/error_locations.cpp). The message is a stranger's: the spec program writes it. The
// reader must accept anything (ASan and UBSan watch its parsing of numbers and positions), and
// every diagnostic it returns must name a line of 1 or more, a column of 0 or more and one of the
// three severities.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "server/error_locations.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view message(reinterpret_cast<const char*>(data), size);
  for (const nndna::server::SourceDiagnostic& d : nndna::server::locateDiagnostics(message, "model.cpp")) {
    if (d.line <= 0 || d.column < 0 ||
        (d.severity != "error" && d.severity != "warning" && d.severity != "info")) {
      std::abort();
    }
  }
  return 0;
}
