// A mixture-of-experts transformer language model: each block's MLP is a set of expert MLPs and
// a router that sends every token to its top-2 experts, whose outputs it mixes by the router's
// renormalised probabilities. (Every expert runs on every token here and the routing zeroes the
// unchosen ones, so the FLOPs count all experts.)
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

namespace {

constexpr int B = 16;           // sequences per batch
constexpr int T = 64;           // context length
constexpr int V = 512;          // vocabulary size
constexpr int D = 128;          // model width
constexpr int H = 4;            // attention heads
constexpr int DH = D / H;       // head width
constexpr int F = 2 * D;        // hidden width of each expert
constexpr int EXPERTS = 8;      // experts per block
constexpr int N_LAYERS = 2;     // transformer blocks

struct Attention : Module {
  Linear q{"q", D, D};
  Linear k{"k", D, D};
  Linear v{"v", D, D};
  Linear proj{"proj", D, D};
};

struct Expert : Module {
  Linear up{"up", D, F};
  Linear down{"down", F, D};
};

struct MoeBlock : Module {
  LayerNorm norm1{"norm1", D};
  Attention attn = child<Attention>("attn");
  LayerNorm norm2{"norm2", D};
  Linear router{"router", D, EXPERTS, {.bias = false}};
  std::vector<Expert> experts = list<Expert>("experts", EXPERTS);
};

struct MoeLanguageModel : Module {
  Tensor tokEmb = param("tok_emb", {V, D}, {.init = init::normal(0.02)});
  Embedding posEmb{"pos_emb", T, D};
  std::vector<MoeBlock> layers = list<MoeBlock>("layers", N_LAYERS);
  LayerNorm normF{"norm_f", D};
};

Tensor attention(const Attention& a, Tensor x) {
  Tensor q = splitHeads(a.q(x), H);  // [B, H, T, DH]
  Tensor k = splitHeads(a.k(x), H);
  Tensor v = splitHeads(a.v(x), H);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));  // [B, H, T, T]
  return a.proj(mergeHeads(matmul(softmaxCausal(scores), v)));               // [B, T, D]
}

// Router weights [B, T, EXPERTS] (Mixtral's router): the top-2 experts' probabilities,
// renormalised over the chosen; zero elsewhere.
Tensor routing(const MoeBlock& b, Tensor x) {
  auto [probs, chosen] = topk(softmax(b.router(x)), 2);  // [B, T, 2] each  //[!top1]
  //[top1] auto [probs, chosen] = topk(softmax(b.router(x)), 1);  // [B, T, 1] each
  Tensor weights = div(probs, sum(probs, -1, {.keepDims = true}));
  return sum(mul(oneHot(chosen, EXPERTS), reshape(weights, {B, T, -1, 1})), -2);
}

Tensor mixture(const MoeBlock& b, Tensor x) {
  Tensor weights = routing(b, x);
  Tensor out = zeros({B, T, D});
  for (std::size_t e = 0; e < b.experts.size(); ++e) {
    Tensor y = b.experts[e].down(gelu(b.experts[e].up(x)));  // [B, T, D]
    out = add(out, mul(narrow(weights, -1, static_cast<std::int64_t>(e), 1), y));
  }
  return out;
}

Tensor block(const MoeBlock& b, Tensor x) {
  x = add(x, attention(b.attn, b.norm1(x)));
  return add(x, mixture(b, b.norm2(x)));
}

Tensor logitsOf(const MoeLanguageModel& m, Tensor tokens) {
  Tensor h = add(embedding(m.tokEmb, tokens), m.posEmb(arange(T)));  // [B, T, D]
  for (const MoeBlock& layer : m.layers) h = block(layer, h);
  return matmul(m.normF(h), swapAxes(m.tokEmb, -1, -2));  // [B, T, V]
}

Tensor lossFn(MoeLanguageModel& m, const Inputs& in) {
  Tensor logits = logitsOf(m, in["tokens"]);
  return crossEntropy(reshape(logits, {-1, V}), reshape(in["targets"], {-1}));
}

Tensor predictFn(MoeLanguageModel& m, const Inputs& in) { return logitsOf(m, in["tokens"]); }

}  // namespace

NNDNA_SPEC(MoeLanguageModel) {
  return {
      .label = "Mixture-of-experts transformer",
      .description =
          "A decoder-only transformer of 2 blocks whose MLP is a mixture of 8 GELU experts (256 "
          "wide) with a top-2 router; width 128, 4 heads, causal attention, learned positions, a "
          "512-token vocabulary tied to the output. Next-token cross-entropy on batches of 16 × "
          "64 tokens, AdamW.",
      .loss = lossFn,
      .inputs = {{"tokens", {B, T}, i32}, {"targets", {B, T}, i32}},
      .optimizer = AdamW{.lr = 3e-4, .weightDecay = 0.1},
      .predict = predictFn,
      .predictInputs = {{"tokens", {B, T}, i32}},
      .dims = {{B, "B", "batch"},
               {T, "T", "context"},
               {D, "D", "model width"},
               {H, "H", "heads"},
               {DH, "Dh", "head width"},
               {F, "F", "expert hidden"},
               {EXPERTS, "E", "experts"},
               {V, "V", "vocabulary"}},
  };
}
