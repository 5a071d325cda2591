// Names of a tensor's axes, and the little algebra the shape rules carry them through.
//
// A spec that declares named dims (`constexpr Dim T{"T", 1024};`) and passes them to the model
// API gets tensors whose axes know their names; every shape rule computes its output's names
// from its inputs' (matmul keeps M and N, mergeHeads makes `H·Dh`, splitHeads makes `D/H`, a
// stride-2 convolution makes `S/2`), so a diagram shows `[B, H, T, Dh]` even where sizes collide.
//
// An axis name is a string: "" when nothing is known, a dim's name ("T"), or a product of names
// and whole numbers with an optional divisor: "H·Dh", "4·D", "D/H", "S/4", "B·T", "T^2",
// "D/(H·K)". A dim's name is an identifier: a letter, then letters, digits or '_'.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nndna/export.hpp"
#include "nndna/ir.hpp"

// Exported: the diagram library and the unit tests link libnndna.
NNDNA_API_BEGIN

namespace nndna::ir {

// The most characters an axis name may have (the JSON reader enforces it).
inline constexpr std::size_t kMaxDimNameLength = 64;

// A name in canonical form: a whole-number factor num/den (reduced, den > 0) times named dims
// with nonzero integer powers, in order of first appearance.
struct DimTerms {
  std::int64_t num = 1;
  std::int64_t den = 1;
  std::vector<std::pair<std::string, int>> powers;
  bool operator==(const DimTerms&) const = default;
};

// Whether `name` is an identifier (what a declared dim may be called).
bool isDimIdentifier(std::string_view name);
// Parses an axis name; nothing for "" or anything not of the form above.
std::optional<DimTerms> parseDimName(std::string_view name);
// Whether parseDimName accepts `name`. A dim's own name, nearly every name an IR holds, is
// answered without building its terms: the readers check every axis name of every tensor.
bool isDimName(std::string_view name);
// The canonical text of `terms`: "" when it has no named dim (a bare number is not a name) or
// does not fit kMaxDimNameLength.
std::string formatDimName(const DimTerms& terms);

// into·by^power (a negative power divides), in canonical form: the shape rules' products and
// quotients and the diagram's expansion of defined dims are this one algebra. False when a
// whole-number factor overflows or a power leaves its range (±99); `into` is then unspecified.
bool multiplyDimTerms(DimTerms& into, const DimTerms& by, int power = 1);

// a·b, a/b and a·num/den: "" when an operand is unknown or the result has no name.
std::string multiplyDimNames(std::string_view a, std::string_view b);
std::string divideDimNames(std::string_view a, std::string_view b);
std::string scaleDimName(std::string_view a, std::int64_t num, std::int64_t den);
// Whether two names denote the same product ("Dh·H" and "H·Dh"); "" equals only "".
bool sameDimName(std::string_view a, std::string_view b);

// The name of axis `i` of a tensor whose names are `names` ("" when it has none).
inline const std::string& dimNameAt(const DimNames& names, std::size_t i) {
  static const std::string kUnknown;
  return i < names.size() ? names[i] : kUnknown;
}
// `names` with every entry "" cleared to an empty list (a tensor with no named axis).
DimNames normalizedDimNames(DimNames names);

}  // namespace nndna::ir
NNDNA_API_END
