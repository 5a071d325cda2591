// A spec whose source lines, label and description carry markup: the diagram must show it as
// text in every output (DOT, SVG, HTML, JSON) and run none of it.
#include <nndna/nndna.hpp>

using namespace nndna;

namespace {

struct Net : Module {
  Linear l1{"l1", 4, 4};
};

Tensor forward(Net& m, Tensor x) {
  Tensor h = relu(m.l1(x));  /* </script><script>alert(1)</script> "><img src=x onerror=alert(1)> */
  return h;  // ]]> <!-- \n \l & [B] "quoted" 'single'
}

Tensor lossFn(Net& m, const Inputs& in) {
  return mean(forward(m, in["x\"><img src=x onerror=alert(4)>"]));
}

}  // namespace

NNDNA_SPEC(Net) {
  return {
      .label = "</script><script>alert(2)</script>",
      .description = "\"><img src=x onerror=alert(3)> & <b>bold</b>",
      .loss = lossFn,
      .inputs = {{"x\"><img src=x onerror=alert(4)>", {2, 4}}},
      .optimizer = Adam{},
      .dims = {{2, "<i>B</i>", "batch </script>", "#ff0000\"><script>alert(5)</script>"}},
  };
}
