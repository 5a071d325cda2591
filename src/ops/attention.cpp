// Attention as one call: scaled dot-product attention (PyTorch's F.scaled_dot_product_attention),
// composed of the table's ops (matmul, softmax, softmax_causal), so that every stage after the
// trace sees ordinary ops. Its shapes are checked first, so that an error names this call.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "nndna/nndna.hpp"
#include "trace/tracer.hpp"

namespace nndna {

namespace {

// The scores with the masked keys at the lowest f32 (softmax gives them no weight; ops take finite
// numbers only, so a query whose every key is masked attends to all alike, where PyTorch's -inf
// gives NaN): `keyPaddingMask` [B, Tk] viewed as [B, 1, …, 1, Tk], `mask` broadcast as it is.
Tensor masked(std::string_view api, Tensor scores, const AttentionOptions& options) {
  const Shape& s = scores.shape();
  const auto requireBoolean = [&](const Tensor& m, std::string_view what) {
    if (m.dtype() != DType::boolean) {
      tracing::failAtUserLine(api, fmt::format("{} must be boolean (true: masked), got {}", what, ir::dtypeName(m.dtype())));
    }
  };
  const Tensor lowest = add(zeros(Shape{}), static_cast<double>(std::numeric_limits<float>::lowest()));
  if (options.keyPaddingMask.defined()) {
    const Tensor& m = options.keyPaddingMask;
    requireBoolean(m, "keyPaddingMask");
    if (m.rank() != 2 || s.size() < 3 || m.dim(0) != s.front() || m.dim(1) != s.back()) {
      tracing::failAtUserLine(api, fmt::format("keyPaddingMask must be [B, Tk] = [{}, {}] for the scores {}, got {}",
                                               s.size() < 3 ? std::int64_t{0} : s.front(), s.back(),
                                               ir::formatShape(s), ir::formatShape(m.shape())));
    }
    Shape view(s.size(), 1);
    view.front() = s.front();
    view.back() = s.back();
    scores = where(reshape(m, view), lowest, scores);
  }
  if (options.mask.defined()) {
    const Tensor& m = options.mask;
    requireBoolean(m, "mask");
    const Shape& ms = m.shape();
    bool broadcasts = ms.size() <= s.size();
    for (std::size_t i = 0; broadcasts && i < ms.size(); ++i) {
      const std::int64_t a = ms[ms.size() - 1 - i], b = s[s.size() - 1 - i];
      broadcasts = a == b || a == 1;
    }
    if (!broadcasts) {
      tracing::failAtUserLine(api, fmt::format("mask {} does not broadcast to the scores {} ([..., Tq, Tk])",
                                               ir::formatShape(ms), ir::formatShape(s)));
    }
    scores = where(m, lowest, scores);
  }
  return scores;
}

}  // namespace

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
  Tensor scores = mul(matmul(q, swapAxes(k, -2, -1)), scale);  // [..., Tq, Tk]
  if (options.keyPaddingMask.defined() || options.mask.defined()) scores = masked(kApi, scores, options);
  const Tensor weights = options.causal ? softmaxCausal(scores) : softmax(scores, -1);
  return matmul(weights, v);
}

}  // namespace nndna
