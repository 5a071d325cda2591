// Issue 9, small things: an input of rank 100,000 made a 300 KB error message (here: a matmul whose
// inner dimensions differ, which the shape rule reports quoting both shapes).
#include <nndna/nndna.hpp>

#include <vector>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) {
  return mean(matmul(m.l(in["x"]), in["wide"]));
}

std::vector<std::int64_t> wideShape() { return std::vector<std::int64_t>(100'000, 1); }

NNDNA_SPEC(Net) {
  return {.label = "huge rank", .loss = lossFn, .inputs = {{"x", {8, 4}}, {"wide", wideShape()}}};
}
