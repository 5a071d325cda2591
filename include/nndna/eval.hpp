// The reference CPU evaluator: executes any nndna ir::Graph on concrete values.
//
// It exists for tests (finite-difference gradient checks, training end to end), not for speed:
// values are held and computed in double whatever the IR dtype (f32 results are not rounded to
// float, which keeps central differences accurate), i32 results wrap like 32-bit integers, and
// booleans are 0 or 1. Every op costs time linear in the work it defines (a matmul is
// M·K·N, an elementwise op n), with no per-element allocation.
//
// Randomness (dropout masks, randn, categorical noise, parameter initialisation) is
// counter-based: a value depends only on the run seed, the op's `attrs.seed` and the element's
// flat index, so an op evaluated twice, or a backward op carrying its forward op's seed,
// reproduces the same mask. See docs/eval.md.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
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

namespace nndna::eval {

// A concrete tensor: shape, dtype and row-major values. i32 and bool values are exact integers
// (bool: 0 or 1).
struct Value {
  Shape shape;
  DType dtype = DType::f32;
  std::vector<double> data;

  Value() = default;
  // Throws std::invalid_argument when data.size() is not the shape's element count, or when an
  // i32/bool value is not an integer in range.
  Value(Shape shape, DType dtype, std::vector<double> data);

  static Value scalar(double value, DType dtype = DType::f32);
  static Value filled(Shape shape, double value, DType dtype = DType::f32);

  std::int64_t numel() const { return static_cast<std::int64_t>(data.size()); }
  // The single element of a one-element tensor (throws otherwise).
  double item() const;
  // The element at a full multi-index (throws when out of range).
  double at(std::initializer_list<std::int64_t> index) const;
};

// "[2, 3] f32"
std::string describe(const Value& value);

// Values of a graph's leaves, by name: param_input leaves read `params`, state_input leaves
// `state`, tensor_input leaves (data inputs and the optimizer's per-step scalars) `inputs`.
struct Leaves {
  std::map<std::string, Value, std::less<>> params;
  std::map<std::string, Value, std::less<>> state;
  std::map<std::string, Value, std::less<>> inputs;
};

// A failed evaluation: a missing or mis-shaped leaf, an index out of range, an op kind without
// a reference evaluation. The message names the op, its index and the spec line that made it.
class EvalError : public Error {
 public:
  explicit EvalError(std::string message, std::string file = {}, int line = 0,
                     std::string_view shownFile = {})
      : Error(Kind::eval_error, std::move(file), line, std::move(message), shownFile) {}
};

struct EvalOptions {
  // Seeds every random op of the run (with each op's own attrs.seed).
  std::uint64_t seed = 0;
};

// The values one evaluation computed, by tensor id.
class Results {
 public:
  Results() = default;
  explicit Results(std::vector<std::optional<Value>> values) : values_(std::move(values)) {}

  bool has(ir::TensorId id) const;
  // Throws EvalError when the tensor was not computed (not needed by the requested targets).
  const Value& at(ir::TensorId id) const;
  const Value& operator[](ir::TensorId id) const { return at(id); }

 private:
  std::vector<std::optional<Value>> values_;
};

// Evaluates what `targets` need (and nothing else). Each needed leaf must be in `leaves` with
// exactly its tensor's shape and dtype.
Results evaluate(const ir::Graph& graph, const Leaves& leaves, std::span<const ir::TensorId> targets,
                 EvalOptions options = {});
// Evaluates the graph's outputs, its updates' values and its captures.
Results evaluate(const ir::Graph& graph, const Leaves& leaves, EvalOptions options = {});

// Whether `kind` has a reference evaluation.
bool isEvaluable(ir::OpKind kind);
// Whether `kind` is evaluated as a view: a strided read of its input, no arithmetic. True exactly
// for the op table's views (ir::isViewKind), which the evaluator dispatches on.
bool isEvaluatedAsView(ir::OpKind kind);

// Initial values of every parameter and state tensor of `graph`, drawn from each one's
// ir::Param::init with a stream keyed by `seed` and the parameter's name. The built-in layers
// record PyTorch's defaults in the IR (see docs/eval.md); Init::Kind::automatic, left on raw
// `param`s, draws normal(0, 0.02), and on state, zeros.
Leaves initialLeaves(const ir::Graph& graph, std::uint64_t seed = 0);

// Applies a training step's graph.updates: each target leaf (a parameter or a state tensor)
// takes the value its update computed in `results`.
void applyUpdates(const ir::Graph& graph, const Results& results, Leaves& leaves);

}  // namespace nndna::eval
NNDNA_API_END
