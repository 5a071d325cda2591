// Issue 9, small things: a [2^32, 2^32] parameter (2^64 elements) passed the tracer and was caught
// only by the parent's IR validator, without the spec's line.
#include <nndna/nndna.hpp>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
  Tensor huge = param("huge", {std::int64_t{1} << 32, std::int64_t{1} << 32});
};

Tensor lossFn(Net& m, const Inputs& in) { return mean(m.l(in["x"])); }

NNDNA_SPEC(Net) { return {.label = "huge parameter", .loss = lossFn, .inputs = {{"x", {8, 4}}}}; }
