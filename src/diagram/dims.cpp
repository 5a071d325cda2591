#include "diagram/dims.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <cctype>

#include "diagram/text.hpp"

namespace nndna::diagram::detail {
namespace {

constexpr std::array<std::string_view, 10> kAutoPalette = {
    "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    "#e377c2", "#17becf", "#bcbd22", "#aec7e8", "#ffbb78"};

// `batch` as a whole word, any case (the seed's /\bbatch\b/i).
bool mentionsBatch(std::string_view desc) {
  std::string lower;
  for (char c : desc) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t pos = lower.find("batch"); pos != std::string::npos;
       pos = lower.find("batch", pos + 1)) {
    const bool before = pos == 0 || !word(lower[pos - 1]);
    const bool after = pos + 5 >= lower.size() || !word(lower[pos + 5]);
    if (before && after) return true;
  }
  return false;
}

// A declared colour as Graphviz 2.43 and CSS both accept it: "#rrggbb" or "#rrggbbaa"; "#rgb" is
// widened (Graphviz 2.43 does not know it). Anything else is ignored for an automatic colour.
std::optional<std::string> normalizeColor(std::string_view c) {
  if (c.empty() || c[0] != '#') return std::nullopt;
  const std::string_view hex = c.substr(1);
  if (!std::all_of(hex.begin(), hex.end(), [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)) != 0; })) {
    return std::nullopt;
  }
  if (hex.size() == 3) return std::string{'#', hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]};
  if (hex.size() == 6 || hex.size() == 8) return std::string(c);
  return std::nullopt;
}

}  // namespace

DimResolver::DimResolver(std::vector<DimDecl> declared, const std::vector<const ir::Graph*>& graphs)
    : declared_(std::move(declared)) {
  for (std::size_t i = 0; i < declared_.size(); ++i) bySize_[declared_[i].size].push_back(i);
  for (std::size_t i = 0; i < declared_.size(); ++i) {
    if (declared_[i].name == "B" || mentionsBatch(declared_[i].desc)) {
      batch_ = i;
      break;
    }
  }
  // Declared and undeclared sizes draw from one counter, so colliding sizes stay distinct and no
  // automatic colour repeats a declared one.
  std::size_t next = 0;
  auto nextColor = [&] { return std::string(kAutoPalette[next++ % kAutoPalette.size()]); };
  for (const DimDecl& d : declared_) {
    const auto declaredColor = normalizeColor(d.color);
    colors_.push_back(declaredColor ? *declaredColor : nextColor());
  }
  for (const ir::Graph* g : graphs) {
    for (const ir::TensorInfo& t : g->tensors) {
      for (std::int64_t size : t.shape) {
        if (bySize_.contains(size) || autoColors_.contains(size)) continue;
        autoColors_[size] = nextColor();
      }
    }
  }
  for (std::size_t i = 0; i < declared_.size(); ++i) {
    legend_.push_back({declared_[i].name, declared_[i].desc, declared_[i].size, colors_[i]});
  }
}

std::vector<DimCollision> DimResolver::collisionsIn(const std::vector<Shape>& drawn) const {
  // Only what is drawn ambiguous needs the explainer: the batch heuristic resolves a two-way batch
  // collision on every tensor of rank >= 2, but not on a rank-1 one (a batch of labels).
  std::map<std::int64_t, bool> ambiguous;
  for (const Shape& shape : drawn) {
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (candidates(shape[i], i, shape.size()).size() > 1) ambiguous[shape[i]] = true;
    }
  }
  std::vector<DimCollision> out;
  for (const auto& [size, yes] : ambiguous) {
    DimCollision c{size, {}};
    for (std::size_t e : bySize_.at(size)) c.names.push_back(declared_[e].name);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<const DimDecl*> DimResolver::candidates(std::int64_t size, std::size_t position,
                                                    std::size_t rank) const {
  std::vector<const DimDecl*> out;
  auto it = bySize_.find(size);
  if (it == bySize_.end()) return out;
  const auto& entries = it->second;
  if (entries.size() > 1 && batch_ && declared_[*batch_].size == size && rank >= 2) {
    if (position == 0) return {&declared_[*batch_]};
    for (std::size_t e : entries) {
      if (e != *batch_) out.push_back(&declared_[e]);
    }
    return out;
  }
  for (std::size_t e : entries) out.push_back(&declared_[e]);
  return out;
}

ResolvedDim DimResolver::resolve(std::int64_t size, std::size_t position, std::size_t rank) const {
  const auto cands = candidates(size, position, rank);
  if (cands.empty()) {
    auto it = autoColors_.find(size);
    return {std::to_string(size), it == autoColors_.end() ? "#666666" : it->second};
  }
  ResolvedDim r;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    if (i) r.name += "/";
    r.name += cands[i]->name;
  }
  r.color = colors_[static_cast<std::size_t>(cands[0] - declared_.data())];
  return r;
}

std::vector<std::string> DimResolver::names(const Shape& shape) const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < shape.size(); ++i) out.push_back(resolve(shape[i], i, shape.size()).name);
  return out;
}

std::string DimResolver::plainShape(const Shape& shape) const {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += resolve(shape[i], i, shape.size()).name;
  }
  return out + "]";
}

std::string htmlDimName(const ResolvedDim& dim) {
  return "<FONT COLOR=\"" + escapeXml(dim.color) + "\"><B>" + escapeHtmlLabel(dim.name) + "</B></FONT>";
}

std::string DimResolver::htmlShape(const Shape& shape) const {
  // Brackets as character references: Graphviz 2.43 rejects `]` after a closing tag.
  std::string out = "&#91;";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += htmlDimName(resolve(shape[i], i, shape.size()));
  }
  return out + "&#93;";
}

}  // namespace nndna::diagram::detail
