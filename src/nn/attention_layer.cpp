// MultiheadAttention, TransformerEncoderLayer and TransformerDecoderLayer: PyTorch's
// nn.MultiheadAttention, nn.TransformerEncoderLayer and nn.TransformerDecoderLayer (batch_first),
// composed of the table's ops and the other layers.
#include <fmt/format.h>

#include <cmath>
#include <tuple>

#include "nn/layer_support.hpp"
#include "nndna/nndna.hpp"
#include "trace/tracer.hpp"

namespace nndna {

MultiheadAttention::MultiheadAttention(std::string_view name, Size embedDim, Size heads,
                                       MultiheadAttentionOptions options)
    : Module(name), numHeads(heads) {
  const Size kdim = options.kdim.value_or(embedDim);
  const Size vdim = options.vdim.value_or(embedDim);
  layers::requirePositive(*this, "MultiheadAttention",
                          {{"embedDim", embedDim}, {"numHeads", heads}, {"kdim", kdim}, {"vdim", vdim}});
  if (embedDim % heads != 0) {
    tracing::failAtUserLine("MultiheadAttention",
                            fmt::format("layer '{}': embedDim {} must be divisible by numHeads {}", path(),
                                        embedDim.value(), heads.value()));
  }
  // PyTorch: xavier_uniform_ on each projection weight ([out, in]: bound sqrt(6 / (in + out))),
  // zero biases. in_proj_weight is [3E, E] there.
  auto xavier = [](std::int64_t in, std::int64_t out) {
    const double bound = std::sqrt(6.0 / static_cast<double>(in + out));
    return init::uniform(-bound, bound);
  };
  if (kdim.value() == embedDim.value() && vdim.value() == embedDim.value()) {
    inProjWeight = param("in_proj_weight", {embedDim, layers::timesSize(3, embedDim)}, {xavier(embedDim, 3 * embedDim)});
  } else {
    qProjWeight = param("q_proj_weight", {embedDim, embedDim}, {xavier(embedDim, embedDim)});
    kProjWeight = param("k_proj_weight", {kdim, embedDim}, {xavier(kdim, embedDim)});
    vProjWeight = param("v_proj_weight", {vdim, embedDim}, {xavier(vdim, embedDim)});
  }
  if (options.bias) inProjBias = param("in_proj_bias", {layers::timesSize(3, embedDim)}, {init::zeros()});
  LinearOptions out;
  out.bias = options.bias;
  outProj = child<Linear>("out_proj", embedDim, embedDim, out);
}

Tensor MultiheadAttention::operator()(Tensor query, Tensor key, Tensor value, AttentionOptions options) const {
  const bool separate = qProjWeight.defined();
  layers::requireBuilt(separate ? qProjWeight : inProjWeight, "MultiheadAttention");
  const std::int64_t e = separate ? qProjWeight.dim(0) : inProjWeight.dim(0);
  const std::int64_t kdim = separate ? kProjWeight.dim(0) : e;
  const std::int64_t vdim = separate ? vProjWeight.dim(0) : e;
  for (const auto& [what, t, features] :
       {std::tuple{"query", &query, e}, std::tuple{"key", &key, kdim}, std::tuple{"value", &value, vdim}}) {
    if (!t->defined() || t->rank() != 3 || t->dim(-1) != features) {
      tracing::failAtUserLine("MultiheadAttention",
                              fmt::format("layer '{}': the {} must be [B, T, {}] (batch first), got {}", path(), what,
                                          features, t->defined() ? ir::formatShape(t->shape()) : "an undefined tensor"));
    }
  }
  // The q, k and v projections: the three column blocks of in_proj_weight, or the three weights
  // of their own; the three blocks of in_proj_bias either way.
  auto project = [&](Tensor x, std::int64_t block) {
    const Tensor& own = block == 0 ? qProjWeight : block == 1 ? kProjWeight : vProjWeight;
    Tensor y = matmul(x, separate ? own : narrow(inProjWeight, 1, block * e, e));
    return inProjBias.defined() ? add(y, narrow(inProjBias, 0, block * e, e)) : y;
  };
  const Tensor q = splitHeads(project(query, 0), numHeads);  // [B, H, Tq, Dh]
  const Tensor k = splitHeads(project(key, 1), numHeads);
  const Tensor v = splitHeads(project(value, 2), numHeads);
  return outProj(mergeHeads(scaledDotProductAttention(q, k, v, options)));
}

namespace {

LinearOptions linearOf(const TransformerEncoderLayerOptions& options) {
  LinearOptions linear;
  linear.bias = options.bias;
  return linear;
}

LayerNormOptions normOf(const TransformerEncoderLayerOptions& options) {
  LayerNormOptions norm;
  norm.eps = options.layerNormEps;
  norm.bias = options.bias;
  return norm;
}

// The feed-forward block of both transformer layers: linear2(dropout(act(linear1(h)))), then
// the block's own dropout.
Tensor feedForward(const Linear& linear1, const Linear& linear2, const Dropout& inner, const Dropout& after, bool gelu,
                   const Tensor& h) {
  const Tensor hidden = linear1(h);
  return after(linear2(inner(gelu ? nndna::gelu(hidden) : relu(hidden))));
}

}  // namespace

TransformerEncoderLayer::TransformerEncoderLayer(std::string_view name, Size dModel, Size nhead,
                                                 TransformerEncoderLayerOptions options)
    : Module(name), normFirst(options.normFirst), gelu(options.gelu) {
  layers::requirePositive(*this, "TransformerEncoderLayer",
                          {{"dModel", dModel}, {"nhead", nhead}, {"dimFeedforward", options.dimFeedforward}});
  selfAttn = child<MultiheadAttention>("self_attn", dModel, nhead, MultiheadAttentionOptions{.bias = options.bias});
  linear1 = child<Linear>("linear1", dModel, options.dimFeedforward, linearOf(options));
  linear2 = child<Linear>("linear2", options.dimFeedforward, dModel, linearOf(options));
  norm1 = child<LayerNorm>("norm1", dModel, normOf(options));
  norm2 = child<LayerNorm>("norm2", dModel, normOf(options));
  dropout = child<Dropout>("dropout", options.dropout);
  dropout1 = child<Dropout>("dropout1", options.dropout);
  dropout2 = child<Dropout>("dropout2", options.dropout);
}

Tensor TransformerEncoderLayer::operator()(Tensor x, AttentionOptions options) const {
  layers::requireBuilt(linear1.weight, "TransformerEncoderLayer");
  auto attend = [&](const Tensor& h) { return dropout1(selfAttn(h, h, h, options)); };
  auto feedForward = [&](const Tensor& h) { return nndna::feedForward(linear1, linear2, dropout, dropout2, gelu, h); };
  if (normFirst) {
    x = add(x, attend(norm1(x)));
    return add(x, feedForward(norm2(x)));
  }
  x = norm1(add(x, attend(x)));
  return norm2(add(x, feedForward(x)));
}

TransformerDecoderLayer::TransformerDecoderLayer(std::string_view name, Size dModel, Size nhead,
                                                 TransformerDecoderLayerOptions options)
    : Module(name), normFirst(options.normFirst), gelu(options.gelu) {
  layers::requirePositive(*this, "TransformerDecoderLayer",
                          {{"dModel", dModel}, {"nhead", nhead}, {"dimFeedforward", options.dimFeedforward}});
  selfAttn = child<MultiheadAttention>("self_attn", dModel, nhead, MultiheadAttentionOptions{.bias = options.bias});
  multiheadAttn =
      child<MultiheadAttention>("multihead_attn", dModel, nhead, MultiheadAttentionOptions{.bias = options.bias});
  linear1 = child<Linear>("linear1", dModel, options.dimFeedforward, linearOf(options));
  linear2 = child<Linear>("linear2", options.dimFeedforward, dModel, linearOf(options));
  norm1 = child<LayerNorm>("norm1", dModel, normOf(options));
  norm2 = child<LayerNorm>("norm2", dModel, normOf(options));
  norm3 = child<LayerNorm>("norm3", dModel, normOf(options));
  dropout = child<Dropout>("dropout", options.dropout);
  dropout1 = child<Dropout>("dropout1", options.dropout);
  dropout2 = child<Dropout>("dropout2", options.dropout);
  dropout3 = child<Dropout>("dropout3", options.dropout);
}

Tensor TransformerDecoderLayer::operator()(Tensor tgt, Tensor memory, AttentionOptions selfAttention,
                                           AttentionOptions memoryAttention) const {
  layers::requireBuilt(linear1.weight, "TransformerDecoderLayer");
  auto attend = [&](const Tensor& h) { return dropout1(selfAttn(h, h, h, selfAttention)); };
  auto attendMemory = [&](const Tensor& h) { return dropout2(multiheadAttn(h, memory, memory, memoryAttention)); };
  auto feedForward = [&](const Tensor& h) { return nndna::feedForward(linear1, linear2, dropout, dropout3, gelu, h); };
  Tensor x = tgt;
  if (normFirst) {
    x = add(x, attend(norm1(x)));
    x = add(x, attendMemory(norm2(x)));
    return add(x, feedForward(norm3(x)));
  }
  x = norm1(add(x, attend(x)));
  x = norm2(add(x, attendMemory(x)));
  return norm3(add(x, feedForward(x)));
}

}  // namespace nndna
