// Test helpers: finding a span of a trace by name, and one of its inputs.
#pragma once

#include <gtest/gtest.h>

#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace xray_test {

// The one span named `name` (a test failure if there are more; an exception if there is none).
inline const nndna::xray::TraceNode& only(const nndna::xray::Trace& t, std::string_view name) {
  const nndna::xray::TraceNode* found = nullptr;
  for (const auto& n : t.nodes)
    if (n.name == name) {
      EXPECT_EQ(found, nullptr) << "more than one span named " << name;
      found = &n;
    }
  if (found == nullptr) throw std::runtime_error("no span named " + std::string(name));
  return *found;
}

// The text of the span's input `name`, or "<missing>".
inline std::string input(const nndna::xray::TraceNode& n, std::string_view name) {
  for (const auto& [k, v] : n.inputs())
    if (k == name) return v;
  return "<missing>";
}

}  // namespace xray_test
