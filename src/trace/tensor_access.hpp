// The library's access to a Tensor's handle, which the model API keeps private.
#pragma once

#include <cstdint>

#include "nndna/nndna.hpp"

namespace nndna::detail {

struct TensorAccess {
  static std::uint32_t id(const Tensor& t) { return t.id_; }
  static std::uint32_t owner(const Tensor& t) { return t.owner_; }
  static Tensor make(std::uint32_t id, std::uint32_t owner) {
    Tensor t;
    t.id_ = id;
    t.owner_ = owner;
    return t;
  }
};

}  // namespace nndna::detail
