// Where libnndna's own code is loaded: a shared library of its own (libnndna.so, as in spec
// programs, the tests and most of nndna's programs) or the program itself (the `nndna` command,
// which links libnndna statically: src/cli/CMakeLists.txt).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "nndna/export.hpp"

namespace nndna::tracing {

struct OwnModule {
  std::uintptr_t base = 0;         // its load base (dladdr's dli_fbase)
  std::filesystem::path file;      // the file it was loaded from
  bool isProgram = false;          // libnndna is linked into the running program
  std::uintptr_t programBase = 0;  // the running program's load base (dli_fbase)
  // The running program's GNU build ID in hex (the linker's hash of its contents): empty when it
  // has none.
  std::string programBuildId;
};

// Found once (dladdr), then cached. Exported for the spec runner (src/specrun/toolchain.cpp).
NNDNA_API const OwnModule& ownModule();

}  // namespace nndna::tracing
