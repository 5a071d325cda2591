// The one shape and dtype rule of every op kind.
//
// Given an op's kind, attributes and input types, a rule checks everything the kind requires of
// them — input counts, dtypes, ranks, sizes that must agree, attributes in range (axes within the
// rank, permutations, positive counts, windows that fit, products that do not overflow) — and
// returns the output's type. Three callers, one rule:
//   - the tracer (src/ops): a broken rule becomes a TraceError at the user's spec line;
//   - autodiff and optimizer lowering (src/grad, src/optim): every op they append gets its type
//     here (a broken rule is a bug, reported with the forward op's spec line);
//   - the IR JSON reader: every op of a document is re-checked and its declared output compared.
// Attributes are canonical here: axes in [0, rank), reshape targets without -1 (the model API's
// conveniences are resolved by the op builders before the rule runs).
#pragma once

#include <span>
#include <string>

#include "nndna/error.hpp"
#include "nndna/export.hpp"
#include "nndna/ir.hpp"

namespace nndna::ir {

// An output type: what a rule computes.
struct TensorType {
  Shape shape;
  DType dtype = DType::f32;
  DimNames names;  // per axis (dim_names.hpp); empty when no axis is named
  bool operator==(const TensorType&) const = default;
};

// A broken rule. message() says what is wrong with the op's inputs or attributes
// ("inner dimensions differ: [256, 32] · [64, 128]") without a location: callers add it.
class ShapeRuleError : public Error {
 public:
  explicit ShapeRuleError(std::string message)
      : Error(Kind::invalid_ir, {}, 0, std::move(message)) {}
};

// The output type of an op of `kind` with `attrs` over `inputs` (in order), by the kind's rule.
// Also checks the input count against the op table and that every attribute the kind does not
// use keeps its default. Leaves have no rule (their type is declared): `kind` must not be a leaf.
// Throws ShapeRuleError. Exported (NNDNA_API) for tests/core/rule_names_test.cpp.
NNDNA_API TensorType inferOutput(OpKind kind, const OpAttrs& attrs, std::span<const TensorInfo* const> inputs);

// "" when an op of `kind` may have `count` inputs, else what it takes: "takes 2 inputs, got 3".
std::string arityProblem(OpKind kind, std::size_t count);

// Whether `kind` has a shape rule: every kind but the leaves (tests enumerate the table with it).
// Exported (NNDNA_API) for tests/core/op_table_test.cpp, which links the shared libnndna.
NNDNA_API bool hasShapeRule(OpKind kind);

// The JSON name of the first attribute `attrs` sets (differs from its default) that `kind` does
// not use, or "" when there is none. Exported (NNDNA_API) for tests/core/rule_names_test.cpp.
NNDNA_API std::string_view unusedAttribute(OpKind kind, const OpAttrs& attrs);

// "[256, 32] f32"
std::string describe(const TensorInfo& t);

}  // namespace nndna::ir
