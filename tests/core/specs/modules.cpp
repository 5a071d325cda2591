// Test spec: nested modules, lists of modules, raw parameters, state, and options.
#include <nndna/nndna.hpp>

#include <optional>

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

// Blocks of different widths from one factory; the first holds an optional projection.
struct Widening : Module {
  Widening(std::int64_t in, std::int64_t out) : fc{"fc", in, out} {
    if (in != out) proj.emplace(child<Linear>("proj", in, out, LinearOptions{.bias = false}));
  }
  Linear fc;
  std::optional<Linear> proj;
};

struct Net : Module {
  Tensor table = param("table", {10, D});
  Tensor gain = param("gain", {D});
  Tensor noDecay = param("no_decay", {D, D}, {.decay = false});
  std::vector<Block> layers = list<Block>("layers", 4);
  Embedding emb{"emb", 10, D, {.paddingIdx = -1}};  // the last token pads
  Conv2d conv{"conv", 3, 6, {3, 5}, {.groups = 3}};
  BatchNorm2d bn{"bn", 6};
  std::vector<Linear> heads = list<Linear>("heads", 2, D, 4);
  Linear proj = child<Linear>("proj", D, D, LinearOptions{.bias = false});
  // An MLP of widths [D, 8, 4, 2]: built-in layers made by a factory take the empty name.
  std::vector<Linear> mlp = list<Linear>("mlp", 3, [](std::int64_t i) {
    constexpr std::int64_t widths[] = {D, 8, 4, 2};
    return Linear("", widths[i], widths[i + 1]);
  });
  std::vector<Widening> widen = list<Widening>("widen", 2, [](std::int64_t i) {
    return Widening(i == 0 ? D : 2 * D, 2 * D);
  });
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
