// Named dims as the model API meets them. A size passed to the API (a layer's width, a reshape
// target, an input's shape) may be a Dim or a product of dims; the API turns it into the axis
// name the IR stores ("T", "H·Dh") and records every dim it names in the innermost DimLog, so the
// diagram's legend lists them without a separate `.dims` list.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nndna/ir.hpp"
#include "nndna/nndna.hpp"

namespace nndna::tracing {

// Collects the dims the model API meets on this thread while it lives. Logs nest (a model's trace
// inside traceModel): a dim met goes to every log installed.
class DimLog {
 public:
  DimLog();
  ~DimLog();
  DimLog(const DimLog&) = delete;
  DimLog& operator=(const DimLog&) = delete;

  static DimLog* active();
  // Adds `dim` to this log and the ones it is nested in, where it is not there yet; throws a
  // TraceError at the user's line when a dim of the same name was met with another size (`api`
  // names the call).
  void add(const DimDecl& dim, std::string_view api);
  const std::vector<DimDecl>& dims() const { return dims_; }
  std::vector<DimDecl> take() { return std::move(dims_); }

 private:
  DimLog* previous_;
  std::vector<DimDecl> dims_;
};

// The axis name of a size given to `api` ("" for a plain number or a product that lost its
// name), after recording its dims in the active DimLog. Throws a TraceError at the user's line
// for a dim whose name is not an identifier or whose size is not positive.
std::string nameOfSize(const Size& size, std::string_view api);
// One name per size; empty when none is named.
ir::DimNames namesOfSizes(const Sizes& sizes, std::string_view api);
// The name of a product ("H·Dh"), without recording anything; "" when it has none.
std::string formatDimExpr(const DimExpr& expr);

// Adds `more` to `into` (by name); throws a TraceError at `file:line` for a name met with two
// sizes. `what` says where `more` came from ("the spec's dims").
void mergeDims(std::vector<DimDecl>& into, const std::vector<DimDecl>& more, const std::string& file,
               int line, std::string_view what);

}  // namespace nndna::tracing
