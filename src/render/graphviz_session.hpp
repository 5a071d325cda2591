// One laid-out Graphviz graph, held under the process-wide Graphviz lock. Internal to
// nndna_render: svg_render.cpp and stacked_bands.cpp build on it.
#pragma once

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "render/graphviz_library.hpp"
#include "render/svg_render.hpp"

namespace nndna::render::detail {

// A drawing as Graphviz wrote it, in Graphviz's own buffer: read in place rather than copied (a
// banded diagram's SVG is megabytes, and each copy also churns the heap Graphviz allocates from).
class RenderedText {
 public:
  RenderedText(char* data, std::size_t length) : data_(data), length_(length) {}
  std::string_view view() const { return {data_.get(), length_}; }

 private:
  struct Free {
    void operator()(char* data) const { graphvizLibrary().gvFreeRenderData(data); }
  };
  std::unique_ptr<char, Free> data_;
  std::size_t length_ = 0;
};

// The process-wide lock on libgvc's global state (error callback, plugin registry, layout scratch
// data). Held across a fork (band_layout.cpp), so that no other thread is inside Graphviz when
// its state is copied into the child.
using GraphvizLock = std::unique_lock<std::mutex>;
GraphvizLock lockGraphviz();

// Parses `dot` and lays it out; the lock on libgvc's global state is held for the object's
// lifetime. Throws RenderError with Graphviz's message when the DOT is rejected or the layout
// fails. `dot` is a std::string because Graphviz reads NUL-terminated text: a band's DOT is read
// where it is, not copied.
class LaidOutGraph {
 public:
  LaidOutGraph(const std::string& dot, const LayoutOptions& options);
  // With the lock already held by the caller (it must outlive this object).
  LaidOutGraph(const std::string& dot, const LayoutOptions& options, const GraphvizLock& held);
  ~LaidOutGraph();
  LaidOutGraph(const LaidOutGraph&) = delete;
  LaidOutGraph& operator=(const LaidOutGraph&) = delete;

  // The drawing in a Graphviz output format ("svg"). Throws RenderError when rendering fails.
  RenderedText render(const char* format);

  Agraph_t* graph() const { return graph_; }

 private:
  void layOut(const std::string& dot, const LayoutOptions& options);

  GraphvizLock lock_;  // empty when the caller holds the lock
  Agraph_t* graph_ = nullptr;
  bool laidOut_ = false;
};

}  // namespace nndna::render::detail
