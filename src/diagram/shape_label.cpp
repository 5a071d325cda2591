#include "diagram/shape_label.hpp"

#include <algorithm>

#include "diagram/text.hpp"

namespace nndna::diagram::detail {
namespace {

// Runs of equal consecutive outputs, as (count, shape).
std::vector<std::pair<std::size_t, const Shape*>> groups(const BoxShape& shape) {
  std::vector<std::pair<std::size_t, const Shape*>> out;
  for (const Shape& s : shape) {
    if (!out.empty() && *out.back().second == s) {
      ++out.back().first;
    } else {
      out.push_back({1, &s});
    }
  }
  return out;
}

std::string htmlBoxShape(const DimResolver& dims, const BoxShape& shape) {
  std::string out;
  for (const auto& [count, s] : groups(shape)) {
    if (!out.empty()) out += ", ";
    if (count > 1) out += std::to_string(count) + " × ";
    out += dims.htmlShape(*s);
  }
  return out;
}

}  // namespace

std::string plainBoxShape(const DimResolver& dims, const BoxShape& shape) {
  std::string out;
  for (const auto& [count, s] : groups(shape)) {
    if (!out.empty()) out += ", ";
    if (count > 1) out += std::to_string(count) + " × ";
    out += dims.plainShape(*s);
  }
  return out;
}

std::string htmlBoxShapes(const DimResolver& dims, const std::vector<BoxShape>& shapes) {
  const bool mergeAxes =
      shapes.size() > 1 && std::all_of(shapes.begin(), shapes.end(), [&](const BoxShape& s) {
        return s.size() == 1 && s[0].size() == shapes[0][0].size();
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
  const std::size_t rank = shapes[0][0].size();
  std::string out = "&#91;";
  for (std::size_t axis = 0; axis < rank; ++axis) {
    std::vector<ResolvedDim> values;
    for (const BoxShape& s : shapes) {
      const ResolvedDim d = dims.resolve(s[0][axis], axis, rank);
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
