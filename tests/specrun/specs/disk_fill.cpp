// Issue 9.8: a spec fills its run directory (1.8 GB in 2.3 s before). It writes 8 MiB files up to
// 256 MiB in all and throws how many bytes it could write.
#include <nndna/nndna.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) {
  const std::vector<char> chunk(std::size_t{8} << 20, 'x');
  std::size_t written = 0;
  for (int i = 0; i < 32; ++i) {
    std::FILE* file = std::fopen(("fill-" + std::to_string(i)).c_str(), "wb");
    if (file == nullptr) break;
    const std::size_t n = std::fwrite(chunk.data(), 1, chunk.size(), file);
    const bool closed = std::fclose(file) == 0;
    written += n;
    if (n != chunk.size() || !closed) break;
  }
  throw std::runtime_error("wrote " + std::to_string(written) + " bytes");
  return mean(m.l(in["x"]));
}

NNDNA_SPEC(Net) { return {.label = "disk", .loss = lossFn, .inputs = {{"x", {8, 4}}}}; }
