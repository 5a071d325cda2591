// "Will it fit": the memory a training step and an inference pass need, from the traced graphs
// (docs/summary.md, "Memory"). Element counts are the diagram's (metrics.hpp); only the bytes per
// element change with the dtype.
#include <fmt/format.h>

#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "diagram/group_tree.hpp"
#include "diagram/metrics.hpp"
#include "diagram/summary_parts.hpp"
#include "diagram/text.hpp"

namespace nndna::diagram::detail {
namespace {

MemoryItem item(std::string key, std::int64_t elements, std::string_view what, MemoryDtype dtype) {
  const int width = bytesPerElement(dtype);
  return {std::move(key), checkedMul(elements, width),
          fmt::format("{} {} × {} bytes ({})", formatGrouped(elements), what, width, memoryDtypeName(dtype))};
}

// The first non-view tensor behind `t`: what memory holds for it.
ir::TensorId throughViews(const ir::Graph& g, ir::TensorId t) {
  while (true) {
    const ir::OpId src = g.tensor(t).source;
    if (src == ir::kNone || !ir::isViewKind(g.op(src).kind) || g.op(src).inputs.empty()) return t;
    t = g.op(src).inputs[0];
  }
}

// The matmul that made attention scores, through views and scalings by a number.
const ir::Op* scoresMatmul(const ir::Graph& g, ir::TensorId scores) {
  using K = ir::OpKind;
  while (true) {
    const ir::OpId src = g.tensor(scores).source;
    if (src == ir::kNone) return nullptr;
    const ir::Op& op = g.op(src);
    if (op.kind == K::matmul) return &op;
    const bool scaling = (op.kind == K::mul || op.kind == K::div || op.kind == K::add || op.kind == K::sub) &&
                         op.attrs->scalarOperand;
    if (!scaling && !ir::isViewKind(op.kind)) return nullptr;
    scores = op.inputs.at(0);
  }
}

}  // namespace

std::optional<KvCache> kvCache(const ir::Graph& g, std::optional<std::int64_t> context, int width) {
  using K = ir::OpKind;
  const std::vector<char> forward = forwardReachable(g);
  std::unordered_map<ir::TensorId, std::vector<const ir::Op*>> readers;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    if (!forward[i]) continue;
    for (ir::TensorId in : g.ops[i].inputs) readers[in].push_back(&g.ops[i]);
  }
  // The matmul that weighs the values by `probs` (after a dropout, in training).
  auto valuesMatmul = [&](ir::TensorId probs) -> const ir::Op* {
    for (int hop = 0; hop < 2; ++hop) {
      const ir::Op* dropout = nullptr;
      for (const ir::Op* r : readers[probs]) {
        if (r->kind == K::matmul && r->inputs.at(0) == probs) return r;
        if (r->kind == K::dropout) dropout = r;
      }
      if (dropout == nullptr) return nullptr;
      probs = dropout->out;
    }
    return nullptr;
  };

  KvCache cache;
  std::int64_t elementsPerToken = 0;
  std::int64_t tracedKeys = 0;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const ir::Op& op = g.ops[i];
    if (!forward[i]) continue;
    // Causal attention weights: softmaxCausal(scores), or softmax(whereCausal(scores, -inf)).
    ir::TensorId scores = ir::kNone;
    if (op.kind == K::softmax_causal) scores = op.inputs.at(0);
    if (op.kind == K::softmax && g.producer(op.inputs.at(0)).kind == K::where_causal) {
      scores = g.producer(op.inputs.at(0)).inputs.at(0);
    }
    if (scores == ir::kNone) continue;
    const ir::Op* qk = scoresMatmul(g, scores);
    const ir::Op* pv = valuesMatmul(op.out);
    if (qk == nullptr || pv == nullptr) continue;
    const std::int64_t keys = g.tensor(scores).shape.back();
    const std::int64_t k = ir::numel(g.tensor(throughViews(g, qk->inputs.at(1))).shape);
    const std::int64_t v = ir::numel(g.tensor(throughViews(g, pv->inputs.at(1))).shape);
    if (keys <= 0 || k % keys != 0 || v % keys != 0) continue;
    elementsPerToken = checkedAdd(elementsPerToken, k / keys + v / keys);
    if (tracedKeys == 0) tracedKeys = keys;
    ++cache.attentions;
  }
  if (cache.attentions == 0) return std::nullopt;
  cache.context = context.value_or(tracedKeys);
  cache.bytesPerToken = checkedMul(elementsPerToken, width);
  cache.bytes = checkedMul(cache.bytesPerToken, cache.context);
  return cache;
}

MemoryEstimate memoryEstimate(const ir::TracedModel& model, const ir::Graph& step, const MemoryOptions& options) {
  if (options.mixedPrecision && options.dtype == MemoryDtype::f32) {
    throw std::invalid_argument("--mixed-precision needs a 16-bit dtype: --dtype bf16 or --dtype f16");
  }
  if (options.context && *options.context < 1) throw std::invalid_argument("the context must be at least 1 token");
  const MemoryDtype dtype = options.dtype;
  const MemoryDtype master = options.mixedPrecision ? MemoryDtype::f32 : dtype;  // f32 copies
  MemoryEstimate m{dtype, options.mixedPrecision, {}, 0, {}, 0, std::nullopt};

  const std::int64_t params = countParams(model.train);
  const std::int64_t buffers = countElements(model.train, model.train.state);
  // Optimizer state: the state the training step adds to the model's (Adam's two moments, SGD's
  // momentum buffer), read from the step itself.
  std::unordered_set<std::string> modelState;
  for (const ir::Param& s : model.train.state) modelState.insert(s.name);
  std::int64_t optimizerState = 0;
  for (const ir::Param& s : step.state) {
    if (!modelState.contains(s.name)) optimizerState = checkedAdd(optimizerState, ir::numel(step.tensor(s.tensor).shape));
  }

  m.training.push_back(item("parameters", params, "parameters", dtype));
  m.training.push_back(item("gradients", params, "gradients", dtype));
  if (options.mixedPrecision) m.training.push_back(item("master_weights", params, "master weights", master));
  m.training.push_back(item("optimizer_state", optimizerState, "optimizer state values", master));
  if (buffers > 0) m.training.push_back(item("buffers", buffers, "buffer values", master));
  m.training.push_back(item("activations", countActivationElements(model.train, forwardReachable(model.train)), "activation values", dtype));

  const ir::Graph& infer = model.hasInfer ? model.infer : model.train;
  m.inference.push_back(item("weights", params, "parameters", dtype));
  if (buffers > 0) m.inference.push_back(item("buffers", buffers, "buffer values", dtype));
  m.inference.push_back(item("activations", countActivationElements(infer, forwardReachable(infer)), "activation values", dtype));
  m.kvCache = kvCache(infer, options.context, bytesPerElement(dtype));
  if (m.kvCache) {
    m.inference.push_back({"kv_cache", m.kvCache->bytes,
                           fmt::format("{} causal attentions: {} bytes per token × {} tokens",
                                       m.kvCache->attentions, formatGrouped(m.kvCache->bytesPerToken),
                                       formatGrouped(m.kvCache->context))});
  }
  for (const MemoryItem& i : m.training) m.trainingTotal = checkedAdd(m.trainingTotal, i.bytes);
  for (const MemoryItem& i : m.inference) m.inferenceTotal = checkedAdd(m.inferenceTotal, i.bytes);
  return m;
}

}  // namespace nndna::diagram::detail
