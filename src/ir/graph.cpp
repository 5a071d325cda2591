// Small helpers over IR values.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <stdexcept>

#include "ir/attrs_interner.hpp"
#include "nndna/ir.hpp"

namespace nndna::ir {

namespace {
// A signed zero compares equal to the default 0.0 but is kept: `mul(x, -0.0)` stays itself.
bool allDefaults(const OpAttrs& attrs) { return identicalAttrs(attrs, OpAttrs{}); }
}  // namespace

OpAttrsBox::OpAttrsBox(OpAttrs attrs) {
  if (!allDefaults(attrs)) block_ = std::make_unique<Block>(1, std::move(attrs)).release();
}

OpAttrsBox::OpAttrsBox(const OpAttrsBox& other) noexcept : block_(other.block_) {
  if (block_) block_->boxes.fetch_add(1, std::memory_order_relaxed);
}

OpAttrsBox& OpAttrsBox::operator=(const OpAttrsBox& other) noexcept {
  Block* const incoming = other.block_;  // read first: release() clears it when other is this
  if (incoming) incoming->boxes.fetch_add(1, std::memory_order_relaxed);
  release();
  block_ = incoming;
  return *this;
}

void OpAttrsBox::release() noexcept {
  // The last box frees the block; acquire/release orders every box's reads before the free.
  if (block_ && block_->boxes.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    const std::unique_ptr<Block> last(block_);
  }
  block_ = nullptr;
}

void OpAttrsBox::dropIfDefaults() {
  if (block_ && allDefaults(block_->attrs)) release();
}

OpAttrs& OpAttrsBox::edit() {
  // A count of 1 is exact: another box could only start sharing this block by copying this box,
  // which would race with this call whatever the count said.
  if (!block_) {
    block_ = std::make_unique<Block>().release();
  } else if (block_->boxes.load(std::memory_order_acquire) > 1) {
    auto own = std::make_unique<Block>(1, block_->attrs);
    release();
    block_ = own.release();
  }
  return block_->attrs;
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
