// One laid-out Graphviz graph, held under the process-wide Graphviz lock. Internal to
// nndna_render: svg_render.cpp and stacked_bands.cpp build on it.
#pragma once

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <mutex>
#include <string>
#include <string_view>

#include "render/svg_render.hpp"

namespace nndna::render::detail {

// Parses `dot` and lays it out; the lock on libgvc's global state (error callback, plugin
// registry, layout scratch data) is held for the object's lifetime. Throws RenderError with
// Graphviz's message when the DOT is rejected or the layout fails.
class LaidOutGraph {
 public:
  LaidOutGraph(std::string_view dot, const LayoutOptions& options);
  ~LaidOutGraph();
  LaidOutGraph(const LaidOutGraph&) = delete;
  LaidOutGraph& operator=(const LaidOutGraph&) = delete;

  // The drawing in a Graphviz output format ("svg").
  std::string render(const char* format);

  Agraph_t* graph() const { return graph_; }

 private:
  std::unique_lock<std::mutex> lock_;
  Agraph_t* graph_ = nullptr;
  bool laidOut_ = false;
};

}  // namespace nndna::render::detail
