// Issue 9.5: the spec leaves its IR file (ir.cbor) as a link to the parent's environment and
// exits "successfully".
#include <nndna/nndna.hpp>

#include <unistd.h>

#include <cstdlib>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) {
  ::symlink("/proc/self/environ", "ir.cbor");
  std::_Exit(0);
  return mean(m.l(in["x"]));
}

NNDNA_SPEC(Net) { return {.label = "link", .loss = lossFn, .inputs = {{"x", {8, 4}}}}; }
