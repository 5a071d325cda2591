#include "diagram/dims.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
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

// Definitions may refer to each other (D = H·Dh, Dh = D/H); expansion stops this deep.
constexpr int kMaxExpansionDepth = 8;

// The dims the model API carried into these graphs: the names on their leaves' axes (inputs,
// parameters, state, constants), where a `Dim` given to the API first appears.
std::set<std::string, std::less<>> carriedDims(const std::vector<const ir::Graph*>& graphs) {
  std::set<std::string, std::less<>> carried;
  for (const ir::Graph* g : graphs) {
    for (const ir::Op& op : g->ops) {
      if (!ir::isLeafKind(op.kind) || op.out == ir::kNone) continue;
      for (const std::string& name : g->tensor(op.out).names) {
        if (name.empty()) continue;
        if (const std::optional<ir::DimTerms> terms = ir::parseDimName(name)) {
          for (const auto& [dim, power] : terms->powers) carried.insert(dim);
        }
      }
    }
  }
  return carried;
}

}  // namespace

DimResolver::DimResolver(std::vector<DimDecl> declared, const std::vector<const ir::Graph*>& graphs)
    : declared_(std::move(declared)) {
  // A dim the model API carried names every axis that is it, so an axis without a name that has
  // its size is some other axis written as a number (`Conv2d(3, 64)` beside a batch `Dim B{64}`):
  // drawn as its size, not as that dim. Sizes name dims only for dims declared as plain numbers.
  const std::set<std::string, std::less<>> carried = carriedDims(graphs);
  for (std::size_t i = 0; i < declared_.size(); ++i) {
    if (!carried.contains(std::string_view(declared_[i].name))) bySize_[declared_[i].size].push_back(i);
    byName_.try_emplace(std::string(declared_[i].name), i);
  }
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
  // Undeclared sizes, in order of first appearance, with how many axes have them.
  std::vector<std::int64_t> undeclared;
  std::map<std::int64_t, std::size_t> axesOfSize;
  for (const ir::Graph* g : graphs) {
    for (const ir::TensorInfo& t : g->tensors) {
      for (std::int64_t size : t.shape) {
        if (bySize_.contains(size)) continue;
        if (axesOfSize[size]++ == 0) undeclared.push_back(size);
      }
    }
  }
  // A colour says "the same axis", so no two sizes share one: with more sizes than colours left
  // (ResNet-50's 13), the most common sizes get them and the rest are drawn grey.
  const std::size_t left = kAutoPalette.size() - std::min(next, kAutoPalette.size());
  if (undeclared.size() > left) {
    std::vector<std::int64_t> common = undeclared;
    std::stable_sort(common.begin(), common.end(),
                     [&](std::int64_t a, std::int64_t b) { return axesOfSize[a] > axesOfSize[b]; });
    const std::set<std::int64_t> coloured(common.begin(), common.begin() + static_cast<std::ptrdiff_t>(left));
    std::erase_if(undeclared, [&](std::int64_t size) { return !coloured.contains(size); });
  }
  for (std::int64_t size : undeclared) autoColors_[size] = nextColor();
  for (std::size_t i = 0; i < declared_.size(); ++i) {
    const DimDecl& d = declared_[i];
    legend_.push_back({std::string(d.name), std::string(d.desc), d.size, colors_[i]});
  }
  // Once here rather than for every named axis drawn (needs byName_).
  expansions_.reserve(declared_.size());
  for (const DimDecl& d : declared_) expansions_.push_back(expanded(d.name, 0));
}

std::vector<DimCollision> DimResolver::collisionsIn(const std::vector<DrawnShape>& drawn) const {
  // Only what is drawn ambiguous needs the explainer: the batch heuristic resolves a two-way batch
  // collision on every tensor of rank >= 2, but not on a rank-1 one (a batch of labels); an axis
  // the spec named is never ambiguous.
  std::map<std::int64_t, bool> ambiguous;
  for (const DrawnShape& shape : drawn) {
    const Shape& s = shape.sizes;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (!ir::dimNameAt(shape.names, i).empty()) continue;
      if (candidates(s[i], i, s.size()).size() > 1) ambiguous[s[i]] = true;
    }
  }
  std::vector<DimCollision> out;
  for (const auto& [size, yes] : ambiguous) {
    DimCollision c{size, {}};
    for (std::size_t e : bySize_.at(size)) c.names.emplace_back(declared_[e].name);
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

std::optional<ir::DimTerms> DimResolver::expanded(std::string_view name, int depth) const {
  const std::optional<ir::DimTerms> terms = ir::parseDimName(name);
  if (!terms) return std::nullopt;
  ir::DimTerms out{terms->num, terms->den, {}};
  for (const auto& [dim, power] : terms->powers) {
    std::optional<ir::DimTerms> meaning;
    const auto it = byName_.find(dim);
    if (depth < kMaxExpansionDepth && it != byName_.end() && !declared_[it->second].definition.empty()) {
      meaning = expanded(declared_[it->second].definition, depth + 1);
    }
    if (!meaning) meaning = ir::DimTerms{1, 1, {{dim, 1}}};
    if (!ir::multiplyDimTerms(out, *meaning, power)) return std::nullopt;
  }
  std::sort(out.powers.begin(), out.powers.end());
  return out;
}

std::string DimResolver::displayName(std::string_view name, std::int64_t size) const {
  if (byName_.contains(name)) return std::string(name);
  const std::optional<ir::DimTerms> mine = expanded(name, 0);
  if (mine) {
    for (std::size_t i = 0; i < declared_.size(); ++i) {
      if (declared_[i].size == size && expansions_[i] == mine) return std::string(declared_[i].name);
    }
  }
  return std::string(name);
}

ResolvedDim DimResolver::resolve(const DrawnShape& shape, std::size_t axis) const {
  return resolve(shape.sizes[axis], axis, shape.sizes.size(), ir::dimNameAt(shape.names, axis));
}

ResolvedDim DimResolver::resolve(std::int64_t size, std::size_t position, std::size_t rank,
                                 std::string_view name) const {
  if (!name.empty()) {
    ResolvedDim named{displayName(name, size), {}};
    if (const auto it = byName_.find(named.name); it != byName_.end()) {
      named.color = colors_[it->second];
    } else if (const auto a = autoColors_.find(size); a != autoColors_.end()) {
      named.color = a->second;
    } else {
      named.color = "#666666";  // a product of dims ("H·Dh"): no colour of its own
    }
    return named;
  }
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

std::vector<std::string> DimResolver::names(const DrawnShape& shape) const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < shape.sizes.size(); ++i) out.push_back(resolve(shape, i).name);
  return out;
}

std::string DimResolver::plainShape(const DrawnShape& shape) const {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.sizes.size(); ++i) {
    if (i) out += ", ";
    out += resolve(shape, i).name;
  }
  return out + "]";
}

std::string htmlDimName(const ResolvedDim& dim) {
  return "<FONT COLOR=\"" + escapeXml(dim.color) + "\"><B>" + escapeHtmlLabel(dim.name) + "</B></FONT>";
}

std::string DimResolver::htmlShape(const DrawnShape& shape) const {
  // Brackets as character references: Graphviz 2.43 rejects `]` after a closing tag.
  std::string out = "&#91;";
  for (std::size_t i = 0; i < shape.sizes.size(); ++i) {
    if (i) out += ", ";
    out += htmlDimName(resolve(shape, i));
  }
  return out + "&#93;";
}

}  // namespace nndna::diagram::detail
