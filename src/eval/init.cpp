// Initial parameter and state values from each one's ir::Param::init.
//
// The built-in layers record their PyTorch defaults in the IR (src/nn/layers.cpp), so
// Init::Kind::automatic is left only on raw `param`s, which start as normal(0, 0.02), and on
// state, which starts at zeros.

#include "eval/kernel.hpp"
#include "eval/random.hpp"

namespace nndna::eval {

namespace {

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
  Leaves leaves;
  for (const ir::Param& p : graph.params) {
    const Init init = p.init.kind == Init::Kind::automatic ? init::normal(0.02) : p.init;
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
