// An encoder whose function begins inside its loop, as a U-Net's does: each level is a call and a
// line of the encoder's own, and after the loop the same call goes on (the head). The diagram
// marks each return to the function's first line as where a new call might begin; the code runs
// one call, and all four levels are one loop.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 16;
constexpr int W = 48;
constexpr int LEVELS = 4;
constexpr int K = 10;

struct Level : Module {
  Linear fc{"fc", W, W};
};

struct Encoder : Module {
  std::vector<Level> levels = list<Level>("levels", LEVELS);
  Linear head{"head", W, K};
};

Tensor level(const Level& l, Tensor x) { return relu(l.fc(x)); }

Tensor encode(const Encoder& m, Tensor x) {
  for (const Level& l : m.levels) {
    x = level(l, x);
    x = mul(x, 0.5);
  }
  return m.head(x);
}

Tensor lossFn(Encoder& m, const Inputs& in) { return crossEntropy(encode(m, in["x"]), in["labels"]); }

Tensor predictFn(Encoder& m, const Inputs& in) { return argmax(encode(m, in["x"]), 1); }

}  // namespace

NNDNA_SPEC(Encoder) {
  return {
      .label = "Encoder starting in its loop",
      .description = "Four levels, each a call and a scaling line, then a head.",
      .loss = lossFn,
      .inputs = {{"x", {B, W}}, {"labels", {B}, i32}},
      .optimizer = Adam{},
      .predict = predictFn,
      .predictInputs = {{"x", {B, W}}},
      .dims = {{B, "B", "batch"}, {W, "W", "width"}, {K, "K", "classes"}},
  };
}
