// Attention as one call: scaled dot-product attention (PyTorch's F.scaled_dot_product_attention),
// composed of the table's ops (matmul, softmax, softmax_causal), so that every stage after the
// trace sees ordinary ops. Its shapes are checked first, so that an error names this call.
#include <fmt/format.h>

#include <cmath>

#include "nndna/nndna.hpp"
#include "trace/tracer.hpp"

namespace nndna {

Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, AttentionOptions options) {
  constexpr std::string_view kApi = "scaledDotProductAttention";
  for (const auto& [what, t] : {std::pair{"q", &q}, std::pair{"k", &k}, std::pair{"v", &v}}) {
    if (!t->defined()) tracing::failAtUserLine(kApi, fmt::format("{} is undefined", what));
    if (t->rank() < 2) {
      tracing::failAtUserLine(kApi, fmt::format("{} must be [..., T, D], got {}", what, ir::formatShape(t->shape())));
    }
  }
  if (q.dim(-1) != k.dim(-1)) {
    tracing::failAtUserLine(kApi, fmt::format("q and k must have the same last axis (the head size), got q {} and k {}",
                                              ir::formatShape(q.shape()), ir::formatShape(k.shape())));
  }
  if (k.dim(-2) != v.dim(-2)) {
    tracing::failAtUserLine(kApi, fmt::format("k and v must have the same number of positions (axis -2), got k {} and v {}",
                                              ir::formatShape(k.shape()), ir::formatShape(v.shape())));
  }
  if (options.causal && q.dim(-2) != k.dim(-2)) {
    tracing::failAtUserLine(kApi, fmt::format("causal attention needs as many queries as keys, got q {} and k {}",
                                              ir::formatShape(q.shape()), ir::formatShape(k.shape())));
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.dim(-1)));
  const Tensor scores = mul(matmul(q, swapAxes(k, -2, -1)), scale);  // [..., Tq, Tk]
  const Tensor weights = options.causal ? softmaxCausal(scores) : softmax(scores, -1);
  return matmul(weights, v);
}

}  // namespace nndna
