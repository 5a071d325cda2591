// An encoder–decoder transformer (sequence to sequence, as in translation): the encoder reads the
// source with bidirectional self-attention; the decoder writes the target with causal
// self-attention and cross-attention to the encoder's output; one embedding table is shared by
// both sides and the output.
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

namespace {

constexpr int B = 16;            // sentence pairs per batch
constexpr int S = 48;            // source tokens
constexpr int T = 40;            // target tokens
constexpr int V = 8000;          // shared vocabulary
constexpr int D = 256;           // model width
constexpr int H = 8;             // attention heads
constexpr int DH = D / H;        // head width
constexpr int F = 4 * D;         // MLP hidden width
constexpr int N_ENCODER = 3;     // encoder blocks
constexpr int N_DECODER = 3;     // decoder blocks

struct Attention : Module {
  Linear q{"q", D, D};
  Linear k{"k", D, D};
  Linear v{"v", D, D};
  Linear proj{"proj", D, D};
};

struct Mlp : Module {
  Linear up{"up", D, F};
  Linear down{"down", F, D};
};

struct EncoderBlock : Module {
  LayerNorm norm1{"norm1", D};
  Attention self = child<Attention>("self_attn");
  LayerNorm norm2{"norm2", D};
  Mlp mlp = child<Mlp>("mlp");
};

struct DecoderBlock : Module {
  LayerNorm norm1{"norm1", D};
  Attention self = child<Attention>("self_attn");
  LayerNorm norm2{"norm2", D};
  Attention cross = child<Attention>("cross_attn");
  LayerNorm norm3{"norm3", D};
  Mlp mlp = child<Mlp>("mlp");
};

struct Seq2Seq : Module {
  Tensor tokEmb = param("tok_emb", {V, D}, {.init = init::normal(0.02)});
  Embedding srcPos{"src_pos", S, D};
  Embedding tgtPos{"tgt_pos", T, D};
  std::vector<EncoderBlock> encoder = list<EncoderBlock>("encoder", N_ENCODER);
  LayerNorm encNorm{"enc_norm", D};
  std::vector<DecoderBlock> decoder = list<DecoderBlock>("decoder", N_DECODER);
  LayerNorm decNorm{"dec_norm", D};
};

// Queries from x, keys and values from `memory` (x itself for self-attention).
Tensor attention(const Attention& a, Tensor x, Tensor memory, bool causal) {
  Tensor q = splitHeads(a.q(x), H);       // [B, H, Tq, DH]
  Tensor k = splitHeads(a.k(memory), H);  // [B, H, Tk, DH]
  Tensor v = splitHeads(a.v(memory), H);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));  // [B, H, Tq, Tk]
  Tensor weights = causal ? softmaxCausal(scores) : softmax(scores);
  return a.proj(mergeHeads(matmul(weights, v)));  // [B, Tq, D]
}

Tensor mlp(const Mlp& m, Tensor x) { return m.down(gelu(m.up(x))); }

Tensor encoderBlock(const EncoderBlock& b, Tensor x) {
  Tensor n = b.norm1(x);
  x = add(x, attention(b.self, n, n, false));
  return add(x, mlp(b.mlp, b.norm2(x)));
}

Tensor decoderBlock(const DecoderBlock& b, Tensor y, Tensor memory) {
  Tensor n = b.norm1(y);
  y = add(y, attention(b.self, n, n, true));
  y = add(y, attention(b.cross, b.norm2(y), memory, false));
  return add(y, mlp(b.mlp, b.norm3(y)));
}

// source [B, S], target so far [B, T] -> next-token logits [B, T, V].
Tensor translate(const Seq2Seq& m, Tensor source, Tensor target) {
  Tensor x = add(embedding(m.tokEmb, source), m.srcPos(arange(S)));  // [B, S, D]
  for (const EncoderBlock& layer : m.encoder) x = encoderBlock(layer, x);
  Tensor memory = m.encNorm(x);
  Tensor y = add(embedding(m.tokEmb, target), m.tgtPos(arange(T)));  // [B, T, D]
  for (const DecoderBlock& layer : m.decoder) y = decoderBlock(layer, y, memory);
  return matmul(m.decNorm(y), swapAxes(m.tokEmb, -1, -2));  // [B, T, V]
}

Tensor lossFn(Seq2Seq& m, const Inputs& in) {
  Tensor logits = translate(m, in["source"], in["target"]);
  return crossEntropy(reshape(logits, {-1, V}), reshape(in["next"], {-1}));
}

Tensor predictFn(Seq2Seq& m, const Inputs& in) { return translate(m, in["source"], in["target"]); }

}  // namespace

NNDNA_SPEC(Seq2Seq) {
  return {
      .label = "Encoder–decoder transformer",
      .description =
          "A sequence-to-sequence transformer: 3 encoder blocks read 48 source tokens, 3 decoder "
          "blocks write 40 target tokens with causal self-attention and cross-attention to the "
          "encoder (width 256, 8 heads, GELU MLP of 1024, pre-norm). One 8,000-token embedding "
          "is shared by source, target and output. Cross-entropy with teacher forcing, batches "
          "of 16, AdamW.",
      .loss = lossFn,
      .inputs = {{"source", {B, S}, i32}, {"target", {B, T}, i32}, {"next", {B, T}, i32}},
      .optimizer = AdamW{.lr = 3e-4, .weightDecay = 0.01},
      .predict = predictFn,
      .predictInputs = {{"source", {B, S}, i32}, {"target", {B, T}, i32}},
      .dims = {{B, "B", "batch"},
               {S, "S", "source length"},
               {T, "T", "target length"},
               {D, "D", "model width"},
               {H, "H", "heads"},
               {DH, "Dh", "head width"},
               {F, "F", "MLP hidden"},
               {V, "V", "vocabulary"}},
  };
}
