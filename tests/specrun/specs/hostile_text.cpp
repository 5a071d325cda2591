// Issue 9, small things: a control character (U+0001) in a spec line and bytes that are not UTF-8
// in a name. The diagram's SVG and page must stay well-formed, its JSON valid.
#include <nndna/nndna.hpp>

using namespace nndna;

struct Net : Module {
  Linear l{"l\xff\xfe", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) {
  return mean(m.l(in["x\x01"]));  // a control character: 
}

NNDNA_SPEC(Net) { return {.label = "text \x01 and \xc3\x28", .loss = lossFn, .inputs = {{"x\x01", {8, 4}}}}; }
