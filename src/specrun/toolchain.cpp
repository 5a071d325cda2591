#include "specrun/toolchain.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "trace/own_module.hpp"

namespace nndna::specrun {

namespace fs = std::filesystem;

namespace {

// A file's identity without reading it, from one stat(), which follows links: the device and
// inode of the file the path leads to (a link pointed elsewhere, a file replaced), its size and
// its modification time. One system call where resolving the path first took one per component.
std::string fileStamp(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return file.string() + ":missing";
  return fmt::format("{}:{}:{}:{}:{}.{:09}", file.string(), st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec,
                     st.st_mtim.tv_nsec);
}

fs::path findOnPath(std::string_view name) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!dirs.empty()) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    if (!dir.empty()) {
      const fs::path candidate = fs::path(dir) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return {};
}

// The libnndna.so spec programs link: the one this process loaded, or, in the `nndna` command,
// which has libnndna linked in (src/cli/CMakeLists.txt), the one installed beside it
// (NNDNA_SPECRUN_LIBRARY_FROM_PROGRAM: from the bin directory to the library).
fs::path specLibrary() {
  const tracing::OwnModule& own = tracing::ownModule();
  if (own.file.empty()) throw std::runtime_error("cannot find the loaded libnndna (dladdr failed)");
  if (!own.isProgram) return fs::canonical(own.file);
  const fs::path program = fs::canonical("/proc/self/exe");
  const fs::path beside = program.parent_path() / NNDNA_SPECRUN_LIBRARY_FROM_PROGRAM;
  std::error_code ec;
  fs::path library = fs::canonical(beside, ec);
  if (ec) {
    throw std::runtime_error(fmt::format("libnndna is missing: {} looks for it at {}", program.string(), beside.string()));
  }
  return library;
}

Toolchain locate() {
  Toolchain tc;
  const char* cxx = std::getenv("NNDNA_CXX");
  tc.compiler = cxx != nullptr && *cxx != '\0' ? fs::path(cxx) : findOnPath("g++");
  if (tc.compiler.empty()) {
    throw std::runtime_error("no C++ compiler: install g++ (Debian: apt-get install g++) or set NNDNA_CXX");
  }
  tc.library = specLibrary();
  const fs::path libDir = tc.library.parent_path();
  // Installed: <prefix>/lib/libnndna.so.0, <prefix>/include/nndna/, <prefix>/lib/nndna/.
  const fs::path installedInclude = libDir.parent_path() / "include";
  const fs::path installedMain = libDir / "nndna" / "libnndna_specmain.a";
  if (fs::exists(installedInclude / "nndna" / "nndna.hpp") && fs::exists(installedMain)) {
    tc.includeDir = installedInclude;
    tc.specMain = installedMain;
    tc.installed = true;
  } else {
    tc.includeDir = NNDNA_SPECRUN_BUILD_INCLUDE_DIR;
    tc.specMain = NNDNA_SPECRUN_BUILD_SPECMAIN;
  }
  if (!fs::exists(tc.includeDir / "nndna" / "nndna.hpp")) {
    throw std::runtime_error("nndna's headers are missing (looked in " + installedInclude.string() +
                             " and " + tc.includeDir.string() + ")");
  }
  if (!fs::exists(tc.specMain)) {
    throw std::runtime_error("the spec main library is missing: " + tc.specMain.string() +
                             " (build the nndna_specmain target, or reinstall nndna)");
  }
  tc.mold = !findOnPath("mold").empty();

  std::vector<std::string> headerStamps;
  for (const auto& entry : fs::directory_iterator(tc.includeDir / "nndna")) {
    headerStamps.push_back(fileStamp(entry.path()));
  }
  std::sort(headerStamps.begin(), headerStamps.end());
  std::string headers;
  for (const std::string& stamp : headerStamps) headers += stamp + ";";
  tc.identity = fmt::format("nndna {}|cxx {}|lib {}|main {}|headers {}|mold {}", NNDNA_VERSION,
                            fileStamp(tc.compiler), fileStamp(tc.library), fileStamp(tc.specMain),
                            headers, tc.mold);
  return tc;
}

}  // namespace

// Located afresh on every call (a few stat calls): a long-running process (the server) must see
// a rebuilt libnndna or edited headers, which change the cache keys.
Toolchain toolchain() { return locate(); }

std::vector<std::string> specCompileFlags() {
  // -O0 and frame pointers: call sites resolve to the user's lines by walking frames. -g1 keeps
  // the line table (with columns) that call-site resolution reads and compiles faster than -g.
  // -pipe: the assembler reads the compiler's output as it is written (no temporary .s file).
  return {"-std=c++20", "-O0", "-g1", "-fno-omit-frame-pointer", "-pipe",
          "-fdiagnostics-color=never", "-fmax-errors=20"};
}

}  // namespace nndna::specrun
