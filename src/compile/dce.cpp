// Dead-code elimination: keep what the outputs, the updates and the captures need, plus the
// graph's interface leaves; renumber the survivors densely in their original order.
#include <stdexcept>

#include "ir/huge_pages.hpp"
#include "nndna/training.hpp"

namespace nndna::training {

using ir::TensorId;

void eliminateDeadCode(ir::Graph& graph) {
  const std::size_t tensorCount = graph.tensors.size();
  std::vector<std::uint8_t> live(tensorCount, 0);
  auto mark = [&](TensorId t) {
    if (t < 0 || static_cast<std::size_t>(t) >= tensorCount) {
      throw std::invalid_argument("eliminateDeadCode: a root names a tensor outside the graph");
    }
    live[static_cast<std::size_t>(t)] = 1;
  };
  for (TensorId t : graph.outputs) mark(t);
  for (const ir::Update& u : graph.updates) {
    mark(u.target);
    mark(u.value);
  }
  for (const ir::NamedTensor& c : graph.captures) mark(c.tensor);
  for (const ir::Param& p : graph.params) mark(p.tensor);
  for (const ir::Param& s : graph.state) mark(s.tensor);
  for (const ir::NamedTensor& in : graph.inputs) mark(in.tensor);

  // Ops are in topological order: one reverse sweep propagates liveness to all producers.
  for (std::size_t i = graph.ops.size(); i-- > 0;) {
    const ir::Op& op = graph.ops[i];
    if (!live[static_cast<std::size_t>(op.out)]) continue;
    for (TensorId in : op.inputs) live[static_cast<std::size_t>(in)] = 1;
  }

  // Survivors keep their order; the k-th surviving op makes tensor k. Ops are compacted in place
  // (k never passes the op being read), and so are tensors when op i makes tensor i, as in every
  // graph the tracer, autodiff and the optimizer build: a million-op step's tensors are over a
  // hundred MB, and a second array of them set the peak memory of a large diagram.
  bool tensorsInOpOrder = graph.tensors.size() == graph.ops.size();
  for (std::size_t i = 0; tensorsInOpOrder && i < graph.ops.size(); ++i) {
    tensorsInOpOrder = graph.ops[i].out == static_cast<TensorId>(i);
  }
  std::vector<TensorId> remap(tensorCount, ir::kNone);
  std::vector<ir::TensorInfo> reordered;  // the survivors' tensors, when they cannot move in place
  if (!tensorsInOpOrder) {
    reordered.reserve(graph.ops.size());
    ir::adviseHugePages(reordered);
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    ir::Op& op = graph.ops[i];
    if (!live[static_cast<std::size_t>(op.out)]) continue;
    const auto id = static_cast<TensorId>(kept);
    ir::TensorInfo info = std::move(graph.tensors[static_cast<std::size_t>(op.out)]);
    info.source = id;
    if (tensorsInOpOrder) {
      graph.tensors[kept] = std::move(info);  // from index i >= kept: not yet overwritten
    } else {
      reordered.push_back(std::move(info));
    }
    remap[static_cast<std::size_t>(op.out)] = id;
    op.out = id;
    for (TensorId& in : op.inputs) in = remap[static_cast<std::size_t>(in)];
    if (kept != i) graph.ops[kept] = std::move(op);
    ++kept;
  }
  graph.ops.resize(kept);
  if (tensorsInOpOrder) {
    graph.tensors.resize(kept);
  } else {
    graph.tensors = std::move(reordered);
  }

  auto at = [&](TensorId t) { return remap[static_cast<std::size_t>(t)]; };
  for (TensorId& t : graph.outputs) t = at(t);
  for (ir::Update& u : graph.updates) {
    u.target = at(u.target);
    u.value = at(u.value);
  }
  for (ir::NamedTensor& c : graph.captures) c.tensor = at(c.tensor);
  for (ir::Param& p : graph.params) p.tensor = at(p.tensor);
  for (ir::Param& s : graph.state) s.tensor = at(s.tensor);
  for (ir::NamedTensor& in : graph.inputs) in.tensor = at(in.tensor);
}

}  // namespace nndna::training
