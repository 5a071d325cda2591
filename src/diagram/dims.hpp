// Names and colours of dims. An axis the spec named (named dims, carried through the shape rules:
// ir::TensorInfo::names) shows its name, read as a declared dim where its product equals one's
// definition (`D/H` is Dh when Dh was defined as D / H). An axis without a name falls back to its
// size: dims declared as plain numbers (not carried by the model API) label their size; when
// several share a size, the batch heuristic (axis 0 of
// a tensor of rank >= 2 is the batch dim) resolves the common case and anything still ambiguous
// joins its candidates with a slash (and is listed as a collision under the legend, for the shapes
// drawn). Undeclared sizes get automatic colours.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nndna/diagram.hpp"
#include "ir/dim_names.hpp"
#include "nndna/ir.hpp"

namespace nndna::diagram::detail {

struct ResolvedDim {
  std::string name;
  std::string color;
};

// A tensor's shape as a box draws it: its sizes and, when the spec named them, its axes' names.
struct DrawnShape {
  Shape sizes;
  ir::DimNames names;  // empty, or one per axis ("" = unnamed)
  bool operator==(const DrawnShape&) const = default;
};

// A dim's name in its colour, for a Graphviz HTML-like label.
std::string htmlDimName(const ResolvedDim& dim);

class DimResolver {
 public:
  DimResolver(std::vector<DimDecl> declared, const std::vector<const ir::Graph*>& graphs);

  // Axis `position` of a shape of `rank` axes: by its `name` when it has one, else by its size.
  ResolvedDim resolve(std::int64_t size, std::size_t position, std::size_t rank,
                      std::string_view name = {}) const;
  ResolvedDim resolve(const DrawnShape& shape, std::size_t axis) const;
  // "[B, H]" in plain text, and as a Graphviz HTML-like label with coloured dims.
  std::string plainShape(const DrawnShape& shape) const;
  std::string htmlShape(const DrawnShape& shape) const;
  std::vector<std::string> names(const DrawnShape& shape) const;

  const std::vector<LegendItem>& legend() const { return legend_; }
  // The sizes that some dim of these shapes draws slash-joined (`[B/Dh]`), with every declared
  // name of the size, by size.
  std::vector<DimCollision> collisionsIn(const std::vector<DrawnShape>& drawn) const;

 private:
  // What an axis named `name` is drawn as: the declared dim whose product (its definitions
  // expanded) equals the name's, else the name itself.
  std::string displayName(std::string_view name, std::int64_t size) const;
  std::optional<ir::DimTerms> expanded(std::string_view name, int depth) const;
  std::vector<const DimDecl*> candidates(std::int64_t size, std::size_t position,
                                         std::size_t rank) const;

  std::vector<DimDecl> declared_;
  std::vector<std::string> colors_;  // per declared dim
  std::map<std::int64_t, std::vector<std::size_t>> bySize_;
  std::map<std::int64_t, std::string> autoColors_;
  std::optional<std::size_t> batch_;
  std::map<std::string, std::size_t, std::less<>> byName_;  // declared dims by name
  std::vector<std::optional<ir::DimTerms>> expansions_;      // per declared dim: expanded(name)
  std::vector<LegendItem> legend_;
};

}  // namespace nndna::diagram::detail
