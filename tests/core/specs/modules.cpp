// Test spec: nested modules, lists of modules, raw parameters, state, and options.
#include <nndna/nndna.hpp>

using namespace nndna;

constexpr int D = 16;

struct Attention : Module {
  Linear q{"q", D, D};
  Linear k{"k", D, D, {.bias = false}};
};

struct Block : Module {
  Attention attn = child<Attention>("attn");
  LayerNorm ln{"ln", D};
  RMSNorm rms{"rms", D};
};

struct Net : Module {
  Tensor table = param("table", {10, D});
  Tensor gain = param("gain", {D});
  Tensor noDecay = param("no_decay", {D, D}, {.decay = false});
  std::vector<Block> layers = list<Block>("layers", 4);
  Embedding emb{"emb", 10, D};
  Conv2d conv{"conv", 3, 6, {3, 5}, {.groups = 3}};
  BatchNorm2d bn{"bn", 6};
  std::vector<Linear> heads = list<Linear>("heads", 2, D, 4);
  Linear proj = child<Linear>("proj", D, D, LinearOptions{.bias = false});
};

Tensor lossFn(Net& m, const Inputs& in) {
  Tensor h = m.emb(in["tokens"]);
  for (const Block& b : m.layers) h = b.rms(b.ln(b.attn.q(h)));
  Tensor img = m.bn(m.conv(in["image"]));
  return add(mean(h), mean(img));
}

NNDNA_SPEC(Net) {
  return {.label = "modules",
          .loss = lossFn,
          .inputs = {{"tokens", {2, 5}, i32}, {"image", {2, 3, 8, 8}}},
          .predict = lossFn,
          .predictInputs = {{"tokens", {2, 5}, i32}, {"image", {2, 3, 8, 8}}}};
}
