// A loop over blocks whose first block runs only the block function's first line (no residual:
// its widths differ), the rest both lines. Nothing marks the second block's start, as the first
// block never left the first line; every later block's call does.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 2;
constexpr int C = 8;
constexpr int W = 16;
constexpr int S = 12;

struct Block : Module {
  Block(std::int64_t in, std::int64_t out) : conv("conv", in, out, 3, {.padding = 1}), residual(in == out) {}
  Conv2d conv;
  bool residual;
};

struct Net : Module {
  std::vector<Block> blocks = list<Block>("blocks", 4, [](std::int64_t i) { return Block(i == 0 ? C : W, W); });
};

Tensor block(const Block& b, Tensor x) {
  Tensor h = relu(b.conv(x));
  if (b.residual) h = add(x, h);
  return h;
}

Tensor forward(const Net& m, Tensor x) {
  for (const Block& b : m.blocks) x = block(b, x);
  return x;
}

Tensor lossFn(Net& m, const Inputs& in) { return mean(forward(m, in["x"])); }

}  // namespace

NNDNA_SPEC(Net) {
  return {
      .label = "First call shorter",
      .loss = lossFn,
      .inputs = {{"x", {B, C, S, S}}},
      .optimizer = Adam{},
      .dims = {{B, "B", "batch"}, {C, "C", "channels in"}, {W, "W", "width"}, {S, "S", "size"}},
  };
}
