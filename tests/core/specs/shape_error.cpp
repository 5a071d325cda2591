// Test spec: a matmul whose inner dimensions differ, on line 12.
#include <nndna/nndna.hpp>

using namespace nndna;

struct Empty : Module {
  Tensor w = param("w", {64, 128});
};

Tensor lossFn(Empty& m, const Inputs& in) {
  Tensor x = in["x"];
  Tensor y = matmul(x, m.w);  // line 12
  return mean(y);
}

NNDNA_SPEC(Empty) { return {.label = "shape error", .loss = lossFn, .inputs = {{"x", {256, 32}}}}; }
