// A decoder-only transformer language model (the GPT and LLaMA family): token embeddings, a
// stack of pre-norm blocks of causal self-attention and an MLP, and a next-token head. With fewer
// key/value heads than query heads the attention is grouped-query (LLaMA-2 70B, Mistral).
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

namespace {

constexpr int B = 8;            // sequences per batch
constexpr int T = 64;           // context length (tokens)
constexpr int V = 256;          // vocabulary size
constexpr int D = 128;          // model width
constexpr int H = 4;            // attention heads
constexpr int KV_HEADS = H;     // key/value heads (fewer than H: grouped-query attention)
constexpr int DH = D / H;       // head width
constexpr int F = 4 * D;        // MLP hidden width
constexpr int N_LAYERS = 4;     // transformer blocks

using Norm = LayerNorm;  //[!rmsnorm]
//[rmsnorm] using Norm = RMSNorm;
constexpr LinearOptions PROJ{.bias = true};  //[!nobias]
//[nobias] constexpr LinearOptions PROJ{.bias = false};

struct Attention : Module {
  Linear q{"q", D, D, PROJ};
  Linear k{"k", D, KV_HEADS * DH, PROJ};
  Linear v{"v", D, KV_HEADS * DH, PROJ};
  Linear proj{"proj", D, D, PROJ};
};

struct Mlp : Module {
  //[swiglu] Linear gate{"gate", D, F, PROJ};
  Linear up{"up", D, F, PROJ};
  Linear down{"down", F, D, PROJ};
};

struct Block : Module {
  Norm norm1{"norm1", D};
  Attention attn = child<Attention>("attn");
  Norm norm2{"norm2", D};
  Mlp mlp = child<Mlp>("mlp");
};

struct LanguageModel : Module {
  Tensor tokEmb = param("tok_emb", {V, D}, {.init = init::normal(0.02)});
  Embedding posEmb{"pos_emb", T, D, {.init = init::normal(0.01)}};  //[!rope]
  std::vector<Block> layers = list<Block>("layers", N_LAYERS);
  Norm normF{"norm_f", D};
  //[untied] Linear head{"head", D, V, {.bias = false}};
};

// Causal self-attention; each key/value head serves H / KV_HEADS query heads (repeatKv).
Tensor attention(const Attention& a, Tensor x) {
  Tensor q = splitHeads(a.q(x), H);         // [B, H, T, DH]  //[!rope]
  Tensor k = splitHeads(a.k(x), KV_HEADS);  // [B, KV_HEADS, T, DH]  //[!rope]
  //[rope] auto [q, k] = rope(splitHeads(a.q(x), H), splitHeads(a.k(x), KV_HEADS));
  Tensor v = splitHeads(a.v(x), KV_HEADS);
  k = repeatKv(k, H / KV_HEADS);            // [B, H, T, DH]
  v = repeatKv(v, H / KV_HEADS);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));  // [B, H, T, T]
  return a.proj(mergeHeads(matmul(softmaxCausal(scores), v)));               // [B, T, D]
}

Tensor mlp(const Mlp& m, Tensor x) {
  return m.down(gelu(m.up(x)));  //[!swiglu]
  //[swiglu] return m.down(mul(silu(m.gate(x)), m.up(x)));
}

// Pre-norm residual block.
Tensor block(const Block& b, Tensor x) {
  x = add(x, attention(b.attn, b.norm1(x)));
  return add(x, mlp(b.mlp, b.norm2(x)));
}

// tokens [B, T] -> next-token logits [B, T, V].
Tensor logitsOf(const LanguageModel& m, Tensor tokens) {
  Tensor h = add(embedding(m.tokEmb, tokens), m.posEmb(arange(T)));  // [B, T, D]  //[!rope]
  //[rope] Tensor h = embedding(m.tokEmb, tokens);  // [B, T, D]
  for (const Block& layer : m.layers) h = block(layer, h);
  return matmul(m.normF(h), swapAxes(m.tokEmb, -1, -2));  // tied to the token table  //[!untied]
  //[untied] return m.head(m.normF(h));  // [B, T, V]
}

Tensor lossFn(LanguageModel& m, const Inputs& in) {
  Tensor logits = logitsOf(m, in["tokens"]);
  return crossEntropy(reshape(logits, {-1, V}), reshape(in["targets"], {-1}));
}

Tensor predictFn(LanguageModel& m, const Inputs& in) { return logitsOf(m, in["tokens"]); }

}  // namespace

NNDNA_SPEC(LanguageModel) {
  return {
      .label = "Small decoder-only transformer",
      .description =
          "A decoder-only transformer of 4 pre-norm blocks: width 128, 4 heads of 32, causal "
          "self-attention and a GELU MLP of 512, learned positions over a 64-token context, and "
          "a 256-token vocabulary whose embedding is tied to the output. Next-token "
          "cross-entropy on batches of 8, AdamW.",
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
               {F, "F", "MLP hidden"},
               {V, "V", "vocabulary"}},
  };
}
