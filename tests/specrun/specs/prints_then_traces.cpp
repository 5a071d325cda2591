// A spec that prints as its author debugs it, then traces: nndna shows what it printed.
#include <nndna/nndna.hpp>

#include <cstdio>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) {
  std::printf("debug: the input is traced\n");
  Tensor y = m.l(in["x"]);
  std::printf("debug: the layer is traced, no newline at the end");
  return mean(y);
}

NNDNA_SPEC(Net) { return {.label = "prints", .loss = lossFn, .inputs = {{"x", {8, 4}}}}; }
