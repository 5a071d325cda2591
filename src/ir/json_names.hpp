// The JSON spelling of the IR's enums (one table per enum, indexed by its value), shared by the
// writer and the reader.
#pragma once

#include <array>
#include <string_view>

namespace nndna::ir::json_names {

inline constexpr std::array<std::string_view, 3> kDtypes = {"f32", "i32", "bool"};
inline constexpr std::array<std::string_view, 3> kPhases = {"forward", "backward", "optimizer"};
inline constexpr std::array<std::string_view, 3> kReductions = {"mean", "sum", "none"};
inline constexpr std::array<std::string_view, 5> kInits = {"automatic", "zeros", "ones", "normal",
                                                            "uniform"};
inline constexpr std::array<std::string_view, 5> kLearningRates = {
    "constant", "linear", "cosine_annealing", "staircase", "multi_step"};

}  // namespace nndna::ir::json_names
