// A spec that prints, then makes a shape error: its output follows the error.
#include <nndna/nndna.hpp>

#include <cstdio>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 4};
};

Tensor lossFn(Net& m, const Inputs& in) {
  Tensor y = m.l(in["x"]);
  std::printf("debug: about to multiply [2, 4] by itself\n");
  return mean(matmul(y, y));
}

NNDNA_SPEC(Net) { return {.label = "prints then mismatches", .loss = lossFn, .inputs = {{"x", {2, 4}}}}; }
