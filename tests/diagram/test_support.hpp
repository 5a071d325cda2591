// Shared helpers of the diagram tests: trace a linked spec, count clusters by kind and label.
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

inline std::size_t count(std::string_view haystack, std::string_view needle) {
  std::size_t n = 0;
  for (auto pos = haystack.find(needle); pos != std::string_view::npos; pos = haystack.find(needle, pos + 1)) ++n;
  return n;
}

}  // namespace nndna::diagram::testing
