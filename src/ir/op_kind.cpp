#include "nndna/op_kind.hpp"

#include <array>

namespace nndna::ir {

namespace {
constexpr std::array kNames = {
#define NNDNA_OP_NAME(name) std::string_view(#name),
    NNDNA_OP_KINDS(NNDNA_OP_NAME)
#undef NNDNA_OP_NAME
};
}  // namespace

std::string_view opKindName(OpKind kind) { return kNames.at(static_cast<std::size_t>(kind)); }

std::optional<OpKind> opKindFromName(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<OpKind>(i);
  }
  return std::nullopt;
}

std::size_t opKindCount() { return kNames.size(); }

bool isLeafKind(OpKind kind) {
  return kind == OpKind::param_input || kind == OpKind::tensor_input ||
         kind == OpKind::state_input;
}

bool isElementwiseUnary(OpKind kind) {
  switch (kind) {
    case OpKind::sqrt: case OpKind::rsqrt: case OpKind::log: case OpKind::exp:
    case OpKind::neg: case OpKind::abs: case OpKind::square: case OpKind::sin:
    case OpKind::cos: case OpKind::erf: case OpKind::relu: case OpKind::tanh:
    case OpKind::sigmoid: case OpKind::gelu: case OpKind::silu: case OpKind::leaky_relu:
    case OpKind::softplus: case OpKind::clamp:
      return true;
    default:
      return false;
  }
}

bool isElementwiseBinary(OpKind kind) {
  switch (kind) {
    case OpKind::add: case OpKind::sub: case OpKind::mul: case OpKind::div:
    case OpKind::min: case OpKind::max: case OpKind::less: case OpKind::greater:
      return true;
    default:
      return false;
  }
}

bool isViewKind(OpKind kind) { return kind == OpKind::reshape || kind == OpKind::permute; }

}  // namespace nndna::ir
