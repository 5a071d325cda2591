// A tensor read by many boxes far below it: an input added after each of 40 activations, each
// line its own box. Graphviz gives every edge from `bias` one virtual node per rank it crosses
// (40 edges over up to 80 ranks), which made a layout of 150 boxes take seconds.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 4;
constexpr int D = 8;

struct Net : Module {
  Linear proj{"proj", D, D};
};

Tensor forward(const Net& m, const Inputs& in) {
  Tensor x = m.proj(in["x"]);
  Tensor bias = in["bias"];
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  x = gelu(x);
  x = add(x, bias);
  return x;
}

Tensor lossFn(Net& m, const Inputs& in) { return mean(forward(m, in)); }

}  // namespace

NNDNA_SPEC(Net) {
  return {
      .label = "Fan-out reads",
      .loss = lossFn,
      .inputs = {{"x", {B, D}}, {"bias", {B, D}}},
      .optimizer = Adam{},
      .dims = {{B, "B", "batch"}, {D, "D", "width"}},
  };
}
