// Initial parameter and state values from each one's ir::Param::init.
//
// Init::Kind::automatic means "the layer's default", as PyTorch's: the IR keeps the kind, not the
// layer, so the layer is recognised from how the graph uses the parameter:
//   - the table of an `embedding` op                 -> normal(0, 1)          (nn.Embedding)
//   - the weight of a `conv2d` op [outC, inC/g, kH, kW] -> uniform(±1/sqrt(inC/g·kH·kW)) (nn.Conv2d)
//   - a rank-2 right operand of `matmul` [in, out]    -> uniform(±1/sqrt(in))  (nn.Linear)
//   - "<path>.bias" next to such a "<path>.weight"    -> the weight's bound    (their biases)
//   - any other parameter (a raw `param`)             -> normal(0, 0.02)
// State tensors default to zeros.
#include <cmath>
#include <unordered_map>

#include "eval/kernel.hpp"
#include "eval/random.hpp"

namespace nndna::eval {

using ir::OpKind;

namespace {

enum class LayerRole : std::uint8_t { unknown, embedding, conv, linear };

struct Usage {
  std::unordered_map<ir::TensorId, LayerRole> roles;

  LayerRole of(ir::TensorId id) const {
    const auto it = roles.find(id);
    return it == roles.end() ? LayerRole::unknown : it->second;
  }
};

// How parameters are used; an embedding table wins over any other use (tied embeddings).
Usage usageOf(const ir::Graph& graph) {
  Usage usage;
  auto mark = [&](ir::TensorId id, LayerRole role) {
    if (graph.producer(id).kind != OpKind::param_input) return;
    LayerRole& r = usage.roles[id];
    if (r != LayerRole::embedding) r = role;
  };
  for (const ir::Op& op : graph.ops) {
    if (op.kind == OpKind::embedding) mark(op.inputs.at(0), LayerRole::embedding);
    if (op.kind == OpKind::conv2d) mark(op.inputs.at(1), LayerRole::conv);
    if (op.kind == OpKind::matmul && graph.tensor(op.inputs.at(1)).shape.size() == 2) {
      mark(op.inputs.at(1), LayerRole::linear);
    }
  }
  return usage;
}

double fanInBound(LayerRole role, const Shape& shape) {
  const auto fanIn = role == LayerRole::conv ? shape[1] * shape[2] * shape[3] : shape[0];
  return 1.0 / std::sqrt(static_cast<double>(fanIn));
}

// The concrete init of an automatic parameter (see the file comment).
Init resolveAutomatic(const ir::Graph& graph, const ir::Param& p, const Usage& usage) {
  const LayerRole role = usage.of(p.tensor);
  const Shape& shape = graph.tensor(p.tensor).shape;
  if (role == LayerRole::embedding) return init::normal(1.0);
  if (role == LayerRole::conv || role == LayerRole::linear) {
    const double bound = fanInBound(role, shape);
    return init::uniform(-bound, bound);
  }
  constexpr std::string_view kBias = "bias";
  if (p.name.ends_with(kBias)) {
    const std::string weightName = p.name.substr(0, p.name.size() - kBias.size()) + "weight";
    for (const ir::Param& w : graph.params) {
      if (w.name != weightName) continue;
      const LayerRole wRole = usage.of(w.tensor);
      if (wRole == LayerRole::conv || wRole == LayerRole::linear) {
        const double bound = fanInBound(wRole, graph.tensor(w.tensor).shape);
        return init::uniform(-bound, bound);
      }
    }
  }
  return init::normal(0.02);
}

Value draw(const Init& init, const Shape& shape, const RandomStream& stream) {
  Value v = Value::filled(shape, 0.0);
  for (std::size_t i = 0; i < v.data.size(); ++i) {
    switch (init.kind) {
      case Init::Kind::ones: v.data[i] = 1.0; break;
      case Init::Kind::normal: v.data[i] = init.a * stream.normal(i); break;
      case Init::Kind::uniform: v.data[i] = init.a + (init.b - init.a) * stream.uniform(i); break;
      default: break;  // zeros
    }
  }
  return v;
}

}  // namespace

Leaves initialLeaves(const ir::Graph& graph, std::uint64_t seed) {
  const Usage usage = usageOf(graph);
  Leaves leaves;
  for (const ir::Param& p : graph.params) {
    const Init init =
        p.init.kind == Init::Kind::automatic ? resolveAutomatic(graph, p, usage) : p.init;
    leaves.params[p.name] =
        draw(init, graph.tensor(p.tensor).shape, RandomStream(seed, hashName(p.name)));
  }
  for (const ir::Param& s : graph.state) {
    const Init init = s.init.kind == Init::Kind::automatic ? init::zeros() : s.init;
    leaves.state[s.name] =
        draw(init, graph.tensor(s.tensor).shape, RandomStream(seed, hashName(s.name)));
  }
  return leaves;
}

}  // namespace nndna::eval
