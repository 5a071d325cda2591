// MobileNetV2's loop of inverted residual blocks, small: a block's first line (the expansion conv)
// runs only when its expansion factor is not 1, which is false for the first block alone, and its
// last line (the residual add) only when its stride is 1 and its widths agree. The first call
// starts at the block's second line, so the function's first line is only known from where the
// later calls come back to.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 2;
constexpr int C = 8;
constexpr int S = 16;

struct Block : Module {
  Block(std::int64_t in, std::int64_t out, std::int64_t stride, std::int64_t expansion)
      : hasExpand(expansion != 1), useRes(stride == 1 && in == out) {
    const std::int64_t hidden = in * expansion;
    if (hasExpand) expand = Conv2d("expand", in, hidden, 1);
    dw = Conv2d("dw", hidden, hidden, 3, {.stride = stride, .padding = 1, .groups = hidden});
    project = Conv2d("project", hidden, out, 1);
  }
  bool hasExpand, useRes;
  Conv2d expand, dw, project;
};

// (in, out, stride, expansion) per block: b0 no expansion and no residual, b1 a stride, b2 and
// b3 residual, b4 a stride, b5 residual.
struct Net : Module {
  std::vector<Block> blocks = list<Block>("blocks", 6, [](std::int64_t i) {
    constexpr std::int64_t settings[6][4] = {{C, 4, 1, 1}, {4, 6, 2, 2}, {6, 6, 1, 2},
                                             {6, 6, 1, 2}, {6, 10, 2, 2}, {10, 10, 1, 2}};
    const auto& s = settings[i];
    return Block(s[0], s[1], s[2], s[3]);
  });
};

Tensor block(const Block& b, Tensor x) {
  Tensor h = x;
  if (b.hasExpand) h = relu(b.expand(h));
  h = relu(b.dw(h));
  h = b.project(h);
  if (b.useRes) h = add(x, h);
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
      .label = "Skipped first line",
      .loss = lossFn,
      .inputs = {{"x", {B, C, S, S}}},
      .optimizer = Adam{},
      .dims = {{B, "B", "batch"}, {C, "C", "channels in"}, {S, "S", "size"}},
  };
}
