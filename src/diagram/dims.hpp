// Names and colours of dims. The IR tracks sizes, not names: declared dims label their size; when
// several share a size, the batch heuristic (axis 0 of a tensor of rank >= 2 is the batch dim)
// resolves the common case and anything still ambiguous joins its candidates with a slash (and is
// listed as a collision under the legend, for the shapes drawn). Undeclared sizes get automatic
// colours.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "nndna/diagram.hpp"
#include "nndna/ir.hpp"

namespace nndna::diagram::detail {

struct ResolvedDim {
  std::string name;
  std::string color;
};

// A dim's name in its colour, for a Graphviz HTML-like label.
std::string htmlDimName(const ResolvedDim& dim);

class DimResolver {
 public:
  DimResolver(std::vector<DimDecl> declared, const std::vector<const ir::Graph*>& graphs);

  ResolvedDim resolve(std::int64_t size, std::size_t position, std::size_t rank) const;
  // "[B, H]" in plain text, and as a Graphviz HTML-like label with coloured dims.
  std::string plainShape(const Shape& shape) const;
  std::string htmlShape(const Shape& shape) const;
  std::vector<std::string> names(const Shape& shape) const;

  const std::vector<LegendItem>& legend() const { return legend_; }
  // The sizes that some dim of these shapes draws slash-joined (`[B/Dh]`), with every declared
  // name of the size, by size.
  std::vector<DimCollision> collisionsIn(const std::vector<Shape>& drawn) const;

 private:
  std::vector<const DimDecl*> candidates(std::int64_t size, std::size_t position,
                                         std::size_t rank) const;

  std::vector<DimDecl> declared_;
  std::vector<std::string> colors_;  // per declared dim
  std::map<std::int64_t, std::vector<std::size_t>> bySize_;
  std::map<std::int64_t, std::string> autoColors_;
  std::optional<std::size_t> batch_;
  std::vector<LegendItem> legend_;
};

}  // namespace nndna::diagram::detail
