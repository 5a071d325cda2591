// A mixture-of-experts layer routed by topk (Mixtral's router): softmax over the router's logits,
// the top K = 2 experts of each token, their probabilities renormalised into gates, and the
// experts' outputs mixed by those gates. Every expert runs on every token (the unchosen get a
// gate of 0), so the FLOPs count all of them.
#include <nndna/nndna.hpp>

namespace {

using namespace nndna;

constexpr int B = 2;        // sequences per batch
constexpr int T = 8;        // tokens per sequence
constexpr int D = 16;       // width
constexpr int F = 32;       // expert hidden width
constexpr int E = 4;        // experts
constexpr int K = 2;        // experts per token

struct Expert : Module {
  Linear up{"up", D, F};
  Linear down{"down", F, D};
};

struct MoeLayer : Module {
  Linear router{"router", D, E, {.bias = false}};
  std::vector<Expert> experts = list<Expert>("experts", E);
};

// Gates [B, T, E]: each token's renormalised top-K probabilities at their experts, 0 elsewhere.
Tensor gates(const MoeLayer& m, Tensor x) {
  auto [probs, chosen] = topk(softmax(m.router(x)), K);             // [B, T, K] each
  Tensor weights = div(probs, sum(probs, -1, {.keepDims = true}));  // renormalised over the K
  return sum(mul(oneHot(chosen, E), reshape(weights, {B, T, K, 1})), -2);
}

Tensor mixture(const MoeLayer& m, Tensor x) {
  Tensor g = gates(m, x);
  Tensor out = zeros({B, T, D});
  for (std::size_t e = 0; e < m.experts.size(); ++e) {
    Tensor y = m.experts[e].down(gelu(m.experts[e].up(x)));  // [B, T, D]
    out = add(out, mul(narrow(g, -1, static_cast<std::int64_t>(e), 1), y));
  }
  return out;
}

Tensor lossFn(MoeLayer& m, const Inputs& in) { return mean(square(sub(mixture(m, in["x"]), in["y"]))); }
Tensor predictFn(MoeLayer& m, const Inputs& in) { return mixture(m, in["x"]); }

}  // namespace

NNDNA_SPEC(MoeLayer) {
  return {.label = "Top-2 mixture of experts",
          .description = "4 GELU experts, a linear router without bias, top-2 gates renormalised.",
          .loss = lossFn,
          .inputs = {{"x", {B, T, D}}, {"y", {B, T, D}}},
          .optimizer = Adam{.lr = 1e-3},
          .predict = predictFn,
          .predictInputs = {{"x", {B, T, D}}},
          .dims = {{B, "B", "batch"}, {T, "T", "tokens"}, {D, "D", "width"}, {E, "E", "experts"}}};
}
