// Loading registered specs and tracing them into IR graphs.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "nndna/error.hpp"
#include "nndna/export.hpp"
#include "nndna/ir.hpp"
#include "nndna/nndna.hpp"

NNDNA_API_BEGIN  // the whole header is libnndna's interface (export.hpp)

namespace nndna {

// A forward function over the base Module: how the library holds a spec's loss and predict.
using ErasedForward = std::function<Tensor(Module&, const Inputs&)>;

namespace detail {
// A spec with its model type erased (what NNDNA_SPEC's body returned).
struct ErasedSpec {
  std::string label;
  std::string description;
  ErasedForward loss;
  std::vector<InputDecl> inputs;
  Optimizer optimizer;
  ErasedForward predict;
  std::vector<InputDecl> predictInputs;
  std::vector<DimDecl> dims;
};

// Where NNDNA_SPEC's buildSpec puts the model it constructs (adoptModel).
struct ModelSlot {
  std::unique_ptr<Module> model;
};

// Constructs the model into its argument and returns the spec; run inside a
// parameter-registration scope. NNDNA_SPEC registers through registerSpecFunction (nndna.hpp);
// tests and tools may register any callable here.
using SpecBuilder = std::function<ErasedSpec(std::unique_ptr<Module>&)>;
bool registerSpec(const char* sourceFile, SpecBuilder builder);
// `line`: the NNDNA_SPEC line (errors in the spec body are reported there).
bool registerSpec(const char* sourceFile, int line, SpecBuilder builder);
}  // namespace detail

// A parameter or state tensor declared while a model was built.
struct ParamDecl {
  std::string name;  // dotted path
  Shape shape;
  std::vector<std::string> names;  // per axis when some axis is named (ir::DimNames)
  Init init;
  bool decay = false;
  bool isState = false;  // non-trainable state (BatchNorm running statistics)
};

// A spec file registered by NNDNA_SPEC.
struct RegisteredSpec {
  std::string sourceFile;  // __FILE__ of the spec
  std::string name;        // the file's stem: "gpt2_small"
  detail::SpecBuilder build;
  int line = 0;            // the NNDNA_SPEC line (0: unknown)
};

// A built model and its spec.
struct LoadedSpec {
  std::string sourceFile;
  std::string name;
  detail::ErasedSpec spec;
  std::unique_ptr<Module> model;
  std::vector<ParamDecl> params;  // in registration order
  int line = 0;                   // the NNDNA_SPEC line (0: unknown)
  std::uint32_t paramSerial = 0;  // what the model's parameter handles carry (0: no model built)
  std::vector<DimDecl> dims;      // the named dims met while the model was built
};

// Every spec linked into this program, in registration order.
std::span<const RegisteredSpec> registeredSpecs();
// The spec whose name (file stem) or path matches; nullptr if none.
const RegisteredSpec* findSpec(std::string_view name);
// Builds the model (registering its parameters) and evaluates the spec body. Throws TraceError at
// the spec line for a module built wrongly (a duplicate or dotted name, a non-positive size).
LoadedSpec loadSpec(const RegisteredSpec& spec);

// A shape, dtype or usage error in a spec — while tracing it or building its model —
// attributed to the spec line that caused it: "model.cpp:14: matmul: inner dimensions differ".
// message() is "op: detail".
class TraceError : public Error {
 public:
  TraceError(std::string file, int line, std::string op, std::string detail);
  const std::string& op() const { return op_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string op_;
  std::string detail_;
};

// The training graph: the forward of the loss (a rank-0 f32 tensor). Later stages add the
// backward pass and the optimizer to it.
ir::Graph trace(const LoadedSpec& spec);
// The inference graph, from the predict function. Throws if the spec has none.
ir::Graph traceForward(const LoadedSpec& spec);
// Both graphs and the spec's metadata.
ir::TracedModel traceModel(const LoadedSpec& spec);

// Traces a free-standing function of named inputs, without a model (tests and tools). The
// graph's output is whatever `fn` returns; `training` is what isTraining() reports.
ir::Graph traceFunction(const std::vector<InputDecl>& inputs,
                        const std::function<Tensor(const Inputs&)>& fn, bool training = true);

}  // namespace nndna
NNDNA_API_END
