// Shared helpers of the diagram tests: trace a linked spec, find boxes, count clusters by kind and
// label, read metrics.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "nndna/diagram.hpp"
#include "nndna/trace.hpp"

namespace nndna::diagram::testing {

inline ir::TracedModel traced(std::string_view name) {
  const RegisteredSpec* spec = findSpec(name);
  if (spec == nullptr) throw std::runtime_error("spec not linked: " + std::string(name));
  return traceModel(loadSpec(*spec));
}

inline std::vector<std::string> loopLabels(const Diagram& d) {
  std::vector<std::string> out;
  for (const Cluster& c : d.clusters) {
    if (c.kind == Cluster::Kind::loop) out.push_back(c.label);
  }
  return out;
}

inline const Metric& metric(const std::vector<Metric>& metrics, std::string_view key) {
  auto it = std::find_if(metrics.begin(), metrics.end(), [&](const Metric& m) { return m.key == key; });
  if (it == metrics.end()) throw std::runtime_error("no metric " + std::string(key));
  return *it;
}

inline std::int64_t value(const PerSide<std::vector<Metric>>& metrics, Side side, std::string_view key) {
  const auto& m = metrics[side];
  if (!m) throw std::runtime_error("no metrics for a side");
  return metric(*m, key).value;
}

// Boxes (inputs not counted) drawn by exactly these sides.
inline std::size_t boxesOn(const Diagram& d, const std::vector<Side>& sides) {
  return static_cast<std::size_t>(std::count_if(d.nodes.begin(), d.nodes.end(), [&](const Node& n) {
    return !n.isInput && n.sides == sides;
  }));
}

// The box whose label contains `text` (and, when given, whose line is `line`).
inline const Node& boxWithLabel(const Diagram& d, std::string_view text, int line = 0) {
  auto it = std::find_if(d.nodes.begin(), d.nodes.end(), [&](const Node& n) {
    return n.label.find(text) != std::string::npos && (line == 0 || n.line == line);
  });
  if (it == d.nodes.end()) throw std::runtime_error("no box labelled " + std::string(text));
  return *it;
}

inline std::vector<std::string> userClusterLabels(const Diagram& d) {
  std::vector<std::string> out;
  for (const Cluster& c : d.clusters) {
    if (c.kind == Cluster::Kind::user) out.push_back(c.label);
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::size_t count(std::string_view haystack, std::string_view needle) {
  std::size_t n = 0;
  for (auto pos = haystack.find(needle); pos != std::string_view::npos; pos = haystack.find(needle, pos + 1)) ++n;
  return n;
}

}  // namespace nndna::diagram::testing
