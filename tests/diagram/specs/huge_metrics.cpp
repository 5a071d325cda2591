// A legal model too large to count: a width of 10^8 makes each matmul 2·256·10^8·10^8 FLOPs, and
// their sum passes 2^63. Tracing needs no memory for it; the diagram's metrics overflow.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 256;
constexpr int HIDDEN = 100000000;

struct Wide : Module {
  Linear l1{"l1", HIDDEN, HIDDEN};
  Linear l2{"l2", HIDDEN, HIDDEN};
};

Tensor lossFn(Wide& m, const Inputs& in) { return mean(m.l2(m.l1(in["x"]))); }

}  // namespace

NNDNA_SPEC(Wide) {
  return {
      .label = "Too large to count",
      .loss = lossFn,
      .inputs = {{"x", {B, HIDDEN}}},
      .optimizer = Adam{},
  };
}
