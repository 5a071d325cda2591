// A vision transformer (ViT): the image cut into patches by a strided convolution, a learned
// [CLS] token and positions, a stack of pre-norm transformer blocks, and a linear head on the
// final [CLS] state.
#include <nndna/nndna.hpp>

#include <cmath>

using namespace nndna;

namespace {

constexpr int B = 128;                      // images per batch
constexpr int CHANNELS = 3;                 // image channels
constexpr int SIDE = 32;                    // image height and width
constexpr int PATCH = 4;                    // patch side (divides SIDE)
constexpr int N = (SIDE / PATCH) * (SIDE / PATCH);  // patches per image
constexpr int D = 192;                      // model width
constexpr int H = 4;                        // attention heads
constexpr int DH = D / H;                   // head width
constexpr int F = 4 * D;                    // MLP hidden width
constexpr int N_LAYERS = 6;                 // transformer blocks
constexpr int CLASSES = 10;

struct Block : Module {
  LayerNorm norm1{"norm1", D};
  Linear qkv{"qkv", D, 3 * D};  // queries, keys and values in one projection
  Linear proj{"proj", D, D};
  LayerNorm norm2{"norm2", D};
  Linear up{"up", D, F};
  Linear down{"down", F, D};
};

struct VisionTransformer : Module {
  Conv2d patchify{"patchify", CHANNELS, D, PATCH, {.stride = PATCH}};
  Tensor cls = param("cls", {1, 1, D}, {.init = init::zeros()});
  Tensor pos = param("pos", {1, N + 1, D}, {.init = init::normal(0.02)});
  std::vector<Block> layers = list<Block>("layers", N_LAYERS);
  LayerNorm normF{"norm_f", D};
  Linear head{"head", D, CLASSES};
};

Tensor attention(const Block& b, Tensor x) {
  std::vector<Tensor> qkv = split(b.qkv(x), {D, D, D}, -1);
  Tensor q = splitHeads(qkv[0], H);  // [B, H, N+1, DH]
  Tensor k = splitHeads(qkv[1], H);
  Tensor v = splitHeads(qkv[2], H);
  Tensor scores = mul(matmul(q, swapAxes(k, -1, -2)), 1.0 / std::sqrt(DH));  // [B, H, N+1, N+1]
  return b.proj(mergeHeads(matmul(softmax(scores), v)));                     // [B, N+1, D]
}

Tensor block(const Block& b, Tensor x) {
  x = add(x, attention(b, b.norm1(x)));
  return add(x, b.down(gelu(b.up(b.norm2(x)))));
}

Tensor classify(const VisionTransformer& m, Tensor images) {
  Tensor patches = reshape(m.patchify(images), {B, D, N});     // [B, D, N]
  Tensor tokens = swapAxes(patches, 1, 2);                     // [B, N, D]
  Tensor cls = expand(m.cls, {B, -1, -1});                     // [B, 1, D], a view
  Tensor h = add(concat({cls, tokens}, 1), m.pos);             // [B, N+1, D]
  for (const Block& layer : m.layers) h = block(layer, h);
  Tensor first = reshape(narrow(m.normF(h), 1, 0, 1), {B, D});  // the [CLS] state
  return m.head(first);                                        // [B, CLASSES]
}

Tensor lossFn(VisionTransformer& m, const Inputs& in) {
  return crossEntropy(classify(m, in["images"]), in["labels"]);
}

Tensor predictFn(VisionTransformer& m, const Inputs& in) { return classify(m, in["images"]); }

}  // namespace

NNDNA_SPEC(VisionTransformer) {
  return {
      .label = "Vision transformer (ViT)",
      .description =
          "A vision transformer for 32×32 colour images: 4×4 patches (64 per image) embedded by "
          "a strided convolution, a learned [CLS] token and positions, 6 pre-norm blocks (width "
          "192, 4 heads of 48, GELU MLP of 768) and a 10-way head on the [CLS] state. "
          "Cross-entropy on batches of 128, AdamW.",
      .loss = lossFn,
      .inputs = {{"images", {B, CHANNELS, SIDE, SIDE}}, {"labels", {B}, i32}},
      .optimizer = AdamW{.lr = 1e-3, .weightDecay = 0.05},
      .predict = predictFn,
      .predictInputs = {{"images", {B, CHANNELS, SIDE, SIDE}}},
      .dims = {{B, "B", "batch"},
               {SIDE, "S", "image side"},
               {N + 1, "N", "patches + [CLS]"},
               {D, "D", "model width"},
               {H, "H", "heads"},
               {DH, "Dh", "head width"},
               {F, "F", "MLP hidden"},
               {CLASSES, "K", "classes"}},
  };
}
