// Small helpers over IR values.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "nndna/ir.hpp"

namespace nndna::ir {

std::int64_t numel(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) {
      throw std::overflow_error("element count of " + formatShape(shape) + " overflows 64 bits");
    }
  }
  return n;
}

std::optional<std::int64_t> checkedNumel(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

std::string formatShape(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

std::string_view dtypeName(DType dtype) {
  switch (dtype) {
    case DType::f32: return "f32";
    case DType::i32: return "i32";
    case DType::boolean: return "bool";
  }
  return "?";
}

std::string_view phaseName(Phase phase) {
  switch (phase) {
    case Phase::forward: return "forward";
    case Phase::backward: return "backward";
    case Phase::optimizer: return "optimizer";
  }
  return "?";
}

}  // namespace nndna::ir
