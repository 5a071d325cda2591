// Issue 9, small things: `throw 42` was reported as SIGABRT.
#include <nndna/nndna.hpp>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) {
  throw 42;
  return mean(m.l(in["x"]));
}

NNDNA_SPEC(Net) { return {.label = "throws an int", .loss = lossFn, .inputs = {{"x", {8, 4}}}}; }
