// Normalisation ops. Not part of the public API: the LayerNorm, RMSNorm and BatchNorm2d layers
// issue them (one fused op each).
#pragma once

#include "nndna/nndna.hpp"

namespace nndna::ops {

// x [..., D], weight [D], bias [D] or undefined.
Tensor layerNorm(Tensor x, Tensor weight, Tensor bias, double eps);
Tensor rmsNorm(Tensor x, Tensor weight, double eps);
// x [N, C, H, W], weight/bias [C]: batch statistics.
Tensor batchNorm2d(Tensor x, Tensor weight, Tensor bias, double eps, double momentum);
// Running statistics mean/var [C].
Tensor batchNorm2dInference(Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor var,
                            double eps);

}  // namespace nndna::ops
