#include "diagram/shape_label.hpp"

#include <algorithm>

#include "diagram/text.hpp"

namespace nndna::diagram::detail {
namespace {

// Runs of equal consecutive outputs, each written by `shapeText` and prefixed "n × " when n > 1,
// joined by ", ".
template <class ShapeText>
std::string groupedOutputs(const BoxShape& shape, ShapeText shapeText) {
  std::string out;
  for (std::size_t i = 0; i < shape.size();) {
    std::size_t n = 1;
    while (i + n < shape.size() && shape[i + n] == shape[i]) ++n;
    if (!out.empty()) out += ", ";
    if (n > 1) out += std::to_string(n) + " × ";
    out += shapeText(shape[i]);
    i += n;
  }
  return out;
}

std::string htmlBoxShape(const DimResolver& dims, const BoxShape& shape) {
  return groupedOutputs(shape, [&](const DrawnShape& s) { return dims.htmlShape(s); });
}

}  // namespace

std::string plainBoxShape(const DimResolver& dims, const BoxShape& shape) {
  return groupedOutputs(shape, [&](const DrawnShape& s) { return dims.plainShape(s); });
}

std::string htmlBoxShapes(const DimResolver& dims, const std::vector<BoxShape>& shapes) {
  const bool mergeAxes =
      shapes.size() > 1 && std::all_of(shapes.begin(), shapes.end(), [&](const BoxShape& s) {
        return s.size() == 1 && s[0].sizes.size() == shapes[0][0].sizes.size();
      });
  if (!mergeAxes) {
    std::string out;
    for (const BoxShape& s : shapes) {
      if (!out.empty()) out += " │ ";
      out += htmlBoxShape(dims, s);
    }
    return out;
  }
  // Brackets as character references: Graphviz 2.43 rejects `]` after a closing tag.
  const std::size_t rank = shapes[0][0].sizes.size();
  std::string out = "&#91;";
  for (std::size_t axis = 0; axis < rank; ++axis) {
    std::vector<ResolvedDim> values;
    for (const BoxShape& s : shapes) {
      const ResolvedDim d = dims.resolve(s[0], axis);
      if (std::none_of(values.begin(), values.end(), [&](const ResolvedDim& v) { return v.name == d.name; })) {
        values.push_back(d);
      }
    }
    if (axis) out += ", ";
    for (std::size_t i = 0; i < values.size(); ++i) {
      const bool elided = values.size() > kListedValues && i >= 2 && i + 1 < values.size();
      if (elided) {
        if (i == 2) out += "|…";
        continue;
      }
      if (i) out += "|";
      out += htmlDimName(values[i]);
    }
  }
  return out + "&#93;";
}

}  // namespace nndna::diagram::detail
