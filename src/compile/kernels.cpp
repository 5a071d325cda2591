// Which ops dispatch a GPU kernel: every op but leaves and views, by the op table's flags (the
// rule and its reasons are in docs/ir.md "Kernels").
#include "nndna/training.hpp"

namespace nndna::training {

bool isKernelKind(ir::OpKind kind) { return ir::launchesKernel(kind); }

std::vector<ir::OpId> kernelOps(const ir::Graph& graph) {
  std::vector<ir::OpId> kernels;
  kernels.reserve(graph.ops.size());
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    if (ir::launchesKernel(graph.ops[i].kind)) kernels.push_back(static_cast<ir::OpId>(i));
  }
  return kernels;
}

}  // namespace nndna::training
