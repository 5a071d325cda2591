// Issue 9.6: a spec that includes a host file; the compiler used to echo its lines as errors.
#include <nndna/nndna.hpp>
#include "/etc/passwd"

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) { return mean(m.l(in["x"])); }

NNDNA_SPEC(Net) { return {.label = "include", .loss = lossFn, .inputs = {{"x", {8, 4}}}}; }
