// A BERT-style post-LayerNorm encoder whose dropout is a training-only helper called from
// several lines (the embeddings, the attention probabilities, both sublayers' outputs).
#include <nndna/nndna.hpp>

#include <cmath>

namespace {

using namespace nndna;

constexpr int B = 16;      // sequences per batch
constexpr int T = 128;     // tokens per sequence
constexpr int V = 30522;   // WordPiece vocabulary
constexpr int D = 256;     // model width
constexpr int H = 4;       // heads
constexpr int DH = D / H;  // head width
constexpr int F = 4 * D;   // intermediate width
constexpr int N_LAYERS = 4;
constexpr double P = 0.1;  // dropout

struct Layer : Module {
  Linear q{"q", D, D};
  Linear k{"k", D, D};
  Linear v{"v", D, D};
  Linear attnOut{"attn_out", D, D};
  LayerNorm ln1{"ln1", D};
  Linear inter{"inter", D, F};
  Linear out{"out", F, D};
  LayerNorm ln2{"ln2", D};
};

struct Encoder : Module {
  Embedding tokEmb{"tok_emb", V, D};
  Embedding posEmb{"pos_emb", T, D};
  LayerNorm embLn{"emb_ln", D};
  std::vector<Layer> layers = list<Layer>("layers", N_LAYERS);
  Linear mlmHead{"mlm_head", D, V};
};

Tensor trainingDropout(Tensor x, bool train) { return train ? dropout(x, P) : x; }

Tensor selfAttention(const Layer& l, Tensor x, bool train) {
  Tensor q = splitHeads(l.q(x), H);
  Tensor k = splitHeads(l.k(x), H);
  Tensor v = splitHeads(l.v(x), H);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));
  Tensor probs = trainingDropout(softmax(scores), train);
  return l.attnOut(mergeHeads(matmul(probs, v)));
}

Tensor encoderLayer(const Layer& l, Tensor x, bool train) {
  x = l.ln1(add(x, trainingDropout(selfAttention(l, x, train), train)));
  return l.ln2(add(x, trainingDropout(l.out(gelu(l.inter(x))), train)));
}

Tensor encode(const Encoder& m, Tensor tokens, bool train) {
  Tensor h = m.embLn(add(m.tokEmb(tokens), m.posEmb(arange(T))));
  h = trainingDropout(h, train);
  for (const Layer& layer : m.layers) h = encoderLayer(layer, h, train);
  return m.mlmHead(h);
}

Tensor lossFn(Encoder& m, const Inputs& in) {
  Tensor logits = encode(m, in["tokens"], true);
  return crossEntropy(reshape(logits, {-1, V}), reshape(in["targets"], {-1}));
}

Tensor predictFn(Encoder& m, const Inputs& in) { return encode(m, in["tokens"], false); }

}  // namespace

NNDNA_SPEC(Encoder) {
  return {
      .label = "Post-LN encoder with a dropout helper",
      .description = "A 4-layer BERT-style encoder; dropout is a helper that acts in training only.",
      .loss = lossFn,
      .inputs = {{"tokens", {B, T}, i32}, {"targets", {B, T}, i32}},
      .optimizer = AdamW{},
      .predict = predictFn,
      .predictInputs = {{"tokens", {B, T}, i32}},
      .dims = {{B, "B", "batch"},
               {T, "T", "tokens"},
               {D, "D", "model width"},
               {H, "H", "heads"},
               {DH, "Dh", "head width"},
               {F, "F", "intermediate"},
               {V, "V", "vocabulary"}},
  };
}
