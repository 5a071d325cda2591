// Shared machinery of the op builders: find the active trace, capture the call site, resolve
// inputs, report shape/dtype errors at the user's line, and append the op.
#pragma once

#include <fmt/format.h>

#include <span>
#include <string>
#include <string_view>

#include "nndna/ir.hpp"
#include "nndna/nndna.hpp"
#include "trace/tracer.hpp"

namespace nndna::ops {

class OpBuilder {
 public:
  // `api` is the name the user wrote ("matmul", "swapAxes"), used in error messages.
  OpBuilder(ir::OpKind kind, std::string_view api);

  // Adds `t` as the op's next input and returns its shape and dtype.
  const ir::TensorInfo& input(Tensor t);
  ir::OpAttrs& attrs() { return op_.attrs; }
  ir::Graph& graph() { return tracer_.graph(); }
  ir::SiteId site() const { return op_.site; }

  // Throws a TraceError at the user's line: "model.cpp:14: matmul: <detail>".
  [[noreturn]] void fail(std::string detail) const;
  template <class... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
    fail(fmt::format(format, std::forward<Args>(args)...));
  }

  // An axis in [-rank, rank) normalised to [0, rank).
  std::int64_t axis(std::int64_t axis, std::size_t rank, std::string_view what = "axis") const;
  void requireDtype(const ir::TensorInfo& t, DType dtype, std::string_view operand) const;
  void requireFloat(const ir::TensorInfo& t, std::string_view operand = "input") const {
    requireDtype(t, DType::f32, operand);
  }
  void requireRank(const ir::TensorInfo& t, std::size_t rank, std::string_view operand) const;

  // Appends the op with its output's shape and dtype; returns the output handle.
  Tensor finish(Shape shape, DType dtype);

 private:
  tracing::Tracer& tracer_;
  ir::Op op_;
  std::string_view api_;
};

// NumPy broadcasting of two shapes (trailing alignment); fails through `op` when incompatible.
Shape broadcastShapes(const OpBuilder& op, const Shape& a, const Shape& b);

// "[256, 32] f32"
std::string describe(const ir::TensorInfo& t);

}  // namespace nndna::ops
