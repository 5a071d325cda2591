#include "test_util.hpp"

#include <stdexcept>
#include <string>

namespace nndna::testing {

TracedSpec traceSpec(std::string_view name) {
  const RegisteredSpec* spec = findSpec(name);
  if (spec == nullptr) throw std::runtime_error("no spec named " + std::string(name));
  const LoadedSpec loaded = loadSpec(*spec);
  return {trace(loaded), loaded.spec.optimizer};
}

std::size_t countOps(const ir::Graph& graph, ir::OpKind kind) {
  std::size_t n = 0;
  for (const ir::Op& op : graph.ops) n += op.kind == kind ? 1 : 0;
  return n;
}

std::size_t countOps(const ir::Graph& graph, ir::OpKind kind, ir::Phase phase) {
  std::size_t n = 0;
  for (const ir::Op& op : graph.ops) n += op.kind == kind && op.phase == phase ? 1 : 0;
  return n;
}

std::size_t countPhase(const ir::Graph& graph, ir::Phase phase) {
  std::size_t n = 0;
  for (const ir::Op& op : graph.ops) n += op.phase == phase ? 1 : 0;
  return n;
}

ir::TensorId leafNamed(const ir::Graph& graph, std::string_view name) {
  for (const ir::Op& op : graph.ops) {
    if (ir::isLeafKind(op.kind) && op.attrs->name == name) return op.out;
  }
  return ir::kNone;
}

}  // namespace nndna::testing
