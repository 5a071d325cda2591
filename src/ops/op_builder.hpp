// Shared machinery of the op builders: find the active trace, capture the call site, resolve
// inputs, run the kind's one shape rule (src/ir/shape_rules) and report what it rejects at the
// user's line, and append the op.
//
// A builder only turns the model API's arguments into the IR's canonical attributes (negative
// axes, a reshape's -1, swapAxes as a permutation, maxPool2d's default stride); everything the
// op requires of its inputs and attributes is the shape rule's.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "ir/shape_rules.hpp"
#include "nndna/ir.hpp"
#include "nndna/nndna.hpp"
#include "trace/tracer.hpp"

namespace nndna::ops {

class OpBuilder {
 public:
  // `api` is the name the user wrote ("matmul", "swapAxes"), used in error messages.
  OpBuilder(ir::OpKind kind, std::string_view api);

  // Adds `t` as the op's next input and returns its shape and dtype (valid until finish()).
  const ir::TensorInfo& input(Tensor t);
  ir::OpAttrs& attrs() { return op_.attrs.edit(); }
  // Sets attrs().count to `size` and attrs().names to its name, if it has one (a Dim).
  void count(const Size& size);
  // Sets attrs().names to the names of `sizes` (one per entry, or none).
  void nameDims(const Sizes& sizes);
  ir::Graph& graph() { return tracer_.graph(); }

  // Throws a TraceError at the user's line: "model.cpp:14: matmul: <detail>".
  [[noreturn]] void fail(std::string detail) const;
  template <class... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
    fail(fmt::format(format, std::forward<Args>(args)...));
  }

  // An axis argument in [-rank, rank), normalised to [0, rank).
  std::int64_t axis(std::int64_t axis, std::size_t rank, std::string_view what = "axis") const;

  // Checks the op against its kind's shape rule (a broken rule is a TraceError at the user's
  // line), appends it with the output type the rule gives, and returns the output's handle.
  Tensor finish();

 private:
  tracing::Tracer& tracer_;
  ir::Op op_;
  std::string_view api_;
};

// A reshape or a broadcast_to (both views) issued by a composite op under its own API name
// (`repeatKv`, `conv1d`, `mean` over several axes), so that errors name what the user called.
Tensor reshapeAs(std::string_view api, Tensor x, const Sizes& shape);
// A reshape of `x` to the shape of `like`, its axes keeping `like`'s names: a composite that
// flattened axes to compute restores them as they were (`LayerNorm` over several axes).
Tensor reshapeLike(std::string_view api, Tensor x, Tensor like);
Tensor broadcastAs(std::string_view api, Tensor x, const Sizes& shape);

}  // namespace nndna::ops
