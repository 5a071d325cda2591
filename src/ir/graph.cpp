// Small helpers over IR values.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <stdexcept>

#include "nndna/ir.hpp"

namespace nndna::ir {

namespace {
// A signed zero compares equal to the default 0.0 but is kept: `mul(x, -0.0)` stays itself.
bool allDefaults(const OpAttrs& attrs) {
  return attrs == OpAttrs{} && !std::signbit(attrs.scalar) && !std::signbit(attrs.scalar2);
}
}  // namespace

OpAttrsBox::OpAttrsBox(OpAttrs attrs) {
  if (!allDefaults(attrs)) held_ = std::make_unique<OpAttrs>(std::move(attrs));
}

void OpAttrsBox::dropIfDefaults() {
  if (held_ && allDefaults(*held_)) held_.reset();
}

OpAttrsBox::OpAttrsBox(const OpAttrsBox& other)
    : held_(other.held_ ? std::make_unique<OpAttrs>(*other.held_) : nullptr) {}

OpAttrsBox& OpAttrsBox::operator=(const OpAttrsBox& other) {
  if (this != &other) held_ = other.held_ ? std::make_unique<OpAttrs>(*other.held_) : nullptr;
  return *this;
}

OpAttrs& OpAttrsBox::edit() {
  if (!held_) held_ = std::make_unique<OpAttrs>();
  return *held_;
}

const OpAttrs& OpAttrsBox::defaults() {
  static const OpAttrs none;
  return none;
}

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
