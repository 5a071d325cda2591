// Writes the seed corpus of the diagram_bands fuzz target: the DOT of every example's diagram,
// each after a budget byte (diagram_bands_fuzz.cpp reads 1 + byte % 64 boxes per band).
// Usage: make_band_seeds DIR
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "nndna/diagram.hpp"
#include "nndna/trace.hpp"

namespace {
constexpr std::size_t kMaxSeedBytes = 256 * 1024;  // run_fuzz_target.sh's -max_len
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_band_seeds DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  int written = 0;
  for (const nndna::RegisteredSpec& spec : nndna::registeredSpecs()) {
    const nndna::diagram::Diagram diagram = nndna::diagram::buildDiagram(nndna::traceModel(nndna::loadSpec(spec)));
    if (diagram.dot.size() + 1 > kMaxSeedBytes) continue;
    const char budget = static_cast<char>(written % 64);  // bands of 1 to 64 boxes across the seeds
    std::ofstream(dir / (spec.name + ".dot"), std::ios::binary) << budget << diagram.dot;
    ++written;
  }
  std::printf("make_band_seeds: %d seeds in %s\n", written, dir.c_str());
  return written > 0 ? 0 : 1;
}
