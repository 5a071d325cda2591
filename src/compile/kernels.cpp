// Which ops dispatch a GPU kernel (the rule and its reasons are in docs/ir.md "Kernels").
#include "nndna/training.hpp"

namespace nndna::training {

using ir::OpKind;

bool isKernelKind(OpKind kind) {
  if (ir::isLeafKind(kind)) return false;  // data that is already in memory
  switch (kind) {
    // Views: only the way memory is read changes; the consumer reads them strided.
    case OpKind::reshape:
    case OpKind::permute:
    case OpKind::broadcast_to:
    case OpKind::split_heads:
    // Identities: the output aliases the input.
    case OpKind::stop_gradient:
    case OpKind::capture:
      return false;
    default:
      return true;
  }
}

std::vector<ir::OpId> kernelOps(const ir::Graph& graph) {
  std::vector<ir::OpId> kernels;
  kernels.reserve(graph.ops.size());
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    if (isKernelKind(graph.ops[i].kind)) kernels.push_back(static_cast<ir::OpId>(i));
  }
  return kernels;
}

}  // namespace nndna::training
