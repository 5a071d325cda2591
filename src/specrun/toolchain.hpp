// Where the pieces a spec is compiled against live: the compiler, nndna's headers, libnndna and
// the spec programs' main (libnndna_specmain.a), in the build tree or in an installed prefix.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace nndna::specrun {

struct Toolchain {
  std::filesystem::path compiler;    // g++ (or $NNDNA_CXX)
  std::filesystem::path includeDir;  // holds nndna/nndna.hpp
  std::filesystem::path library;     // the libnndna.so this process runs with
  std::filesystem::path specMain;    // libnndna_specmain.a
  bool mold = false;                 // link with -fuse-ld=mold
  bool installed = false;            // found next to an installed libnndna, not the build tree
  // Changes whenever the compiler, libnndna, the spec main or nndna's headers change: part of
  // every cache key.
  std::string identity;
};

// Locates everything; throws std::runtime_error naming what is missing.
Toolchain toolchain();

// The flags every spec (and the precompiled header) is compiled with.
std::vector<std::string> specCompileFlags();

}  // namespace nndna::specrun
