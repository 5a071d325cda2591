// Where libnndna's own code is loaded: a shared library of its own (libnndna.so, as in spec
// programs, the tests and most of nndna's programs) or the program itself (the `nndna` command,
// which links libnndna statically: src/cli/CMakeLists.txt).
#pragma once

#include <cstdint>
#include <filesystem>

#include "nndna/export.hpp"

namespace nndna::tracing {

struct OwnModule {
  std::uintptr_t base = 0;       // its load base (dladdr's dli_fbase)
  std::filesystem::path file;    // the file it was loaded from
  bool isProgram = false;        // libnndna is linked into the running program
};

// Found once (dladdr), then cached. Exported for the spec runner (src/specrun/toolchain.cpp).
NNDNA_API const OwnModule& ownModule();

}  // namespace nndna::tracing
