// A model holding one of each built-in layer. Tests load it (spec "eval_layers") and trace their
// own loss functions over its layers, so each layer can be checked on its own.
#pragma once

#include <nndna/nndna.hpp>

namespace eval_layers {

struct Layers : nndna::Module {
  nndna::Linear linear{"linear", 3, 2};
  nndna::LayerNorm layerNorm{"layer_norm", 4};              // eps 1e-5
  nndna::RMSNorm rmsNorm{"rms_norm", 4};                    // eps 1e-6
  nndna::BatchNorm2d batchNorm{"batch_norm", 2};            // eps 1e-5, momentum 0.1
  nndna::Embedding embedding{"embedding", 5, 3};
  nndna::Conv2d conv{"conv", 2, 4, 3, groupedPadded()};      // 3x3, padding 1, 2 groups
  nndna::BatchNorm2d frozenBatchNorm{"frozen_batch_norm", 2, frozen()};
  nndna::BatchNorm1d batchNorm1d{"batch_norm1d", 2};                // eps 1e-5, momentum 0.1
  nndna::GroupNorm groupNorm{"group_norm", 2, 4};           // eps 1e-5, affine
  // 4 -> 2 channels, 3x3, stride 2, padding 1, outputPadding 1, 2 groups: doubles H and W.
  nndna::ConvTranspose2d convTranspose{"conv_transpose", 4, 2, 3, upsampling()};
  nndna::LSTM lstm{"lstm", 2, 3, {.numLayers = 2}};           // 2 -> 3, two layers
  nndna::GRU gru{"gru", 2, 3};
  nndna::MultiheadAttention attn{"attn", 4, 2};                 // E 4, 2 heads of 2
  // E 4, 2 heads of 2, keys of 3 features and values of 5: separate q, k and v weights.
  nndna::MultiheadAttention crossAttn{"cross_attn", 4, 2, {.kdim = 3, .vdim = 5}};
  nndna::LayerNorm layerNormOverAxes{"layer_norm_axes", {2, 1, 2}};  // eps 1e-5
  nndna::InstanceNorm2d instanceNorm{"instance_norm", 2, {.affine = true}};
  nndna::TransformerEncoderLayer encoder{"encoder", 4, 2, {.dimFeedforward = 6}};
  nndna::TransformerEncoderLayer preNormEncoder{"pre_norm_encoder", 4, 2,
                                                {.dimFeedforward = 6, .gelu = true, .normFirst = true}};
  nndna::TransformerDecoderLayer decoder{"decoder", 4, 2, {.dimFeedforward = 6}};
  nndna::TransformerDecoderLayer preNormDecoder{"pre_norm_decoder", 4, 2,
                                                {.dimFeedforward = 6, .gelu = true, .normFirst = true}};

  static nndna::BatchNorm2dOptions frozen() {
    nndna::BatchNorm2dOptions options;
    options.frozen = true;
    return options;
  }
  static nndna::ConvTranspose2dLayerOptions upsampling() {
    nndna::ConvTranspose2dLayerOptions options;
    options.stride = 2;
    options.padding = 1;
    options.outputPadding = 1;
    options.groups = 2;
    return options;
  }

  static nndna::Conv2dLayerOptions groupedPadded() {
    nndna::Conv2dLayerOptions options;
    options.padding = 1;
    options.groups = 2;
    return options;
  }
};

}  // namespace eval_layers
