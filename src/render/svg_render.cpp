#include "render/svg_render.hpp"

#include <stdexcept>
#include <string>

#include "render/dot_reader.hpp"
#include "render/graphviz_library.hpp"
#include "render/graphviz_session.hpp"
#include "render/text_measure_cache.hpp"

namespace nndna::render {
namespace detail {
namespace {

std::mutex& graphvizMutex() {
  static std::mutex m;
  return m;
}

// Graphviz reports errors through a callback; collect them while the lock is held.
std::string& errorBuffer() {
  static std::string buffer;
  return buffer;
}

int collectError(char* message) {
  errorBuffer() += message;
  return 0;
}

// One context for the process lifetime: creating a context re-reads the plugin configuration.
// Called with the lock held.
GVC_t* context() {
  static GVC_t* gvc = [] {
    GVC_t* c = graphvizLibrary().gvContext();
    if (c == nullptr) throw RenderError("graphviz: cannot create a layout context");
    // Without pango (not installed), Graphviz falls back to its built-in font metrics, as before.
    installTextMeasureCache(c);
    return c;
  }();
  return gvc;
}

std::string takeErrors(std::string_view fallback) {
  std::string message = std::move(errorBuffer());
  errorBuffer().clear();
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message.empty() ? std::string(fallback) : "graphviz: " + message;
}

}  // namespace

GraphvizLock lockGraphviz() {
  // Loaded before the lock is taken, and so before any layout child is forked (band_layout.cpp).
  (void)graphvizLibrary();
  return GraphvizLock(graphvizMutex());
}

LaidOutGraph::LaidOutGraph(const std::string& dot, const LayoutOptions& options) : lock_(lockGraphviz()) {
  layOut(dot, options);
}

LaidOutGraph::LaidOutGraph(const std::string& dot, const LayoutOptions& options, const GraphvizLock& held) {
  if (!held.owns_lock() || held.mutex() != &graphvizMutex()) {
    throw std::logic_error("LaidOutGraph: the Graphviz lock is not held");
  }
  layOut(dot, options);
}

void LaidOutGraph::layOut(const std::string& dot, const LayoutOptions& options) {
  const GraphvizLibrary& gv = graphvizLibrary();
  errorBuffer().clear();
  gv.agseterrf(collectError);
  // Without this, warnings (e.g. unknown attributes) would also end up in the error text.
  gv.agseterr(AGERR);
  GVC_t* gvc = context();

  graph_ = readDot(dot);
  if (graph_ == nullptr) throw RenderError(takeErrors("graphviz: cannot parse the DOT text"));
  if (options.nslimit) {
    std::string value = std::to_string(*options.nslimit);
    gv.agsafeset(graph_, const_cast<char*>("nslimit"), value.data(), const_cast<char*>(""));
  }
  if (gv.gvLayout(gvc, graph_, options.engine.c_str()) != 0) {
    gv.agclose(graph_);
    throw RenderError(takeErrors("graphviz: layout failed"));
  }
  laidOut_ = true;
}

LaidOutGraph::~LaidOutGraph() {
  const GraphvizLibrary& gv = graphvizLibrary();
  if (laidOut_) gv.gvFreeLayout(context(), graph_);
  gv.agclose(graph_);
  errorBuffer().clear();
}

RenderedText LaidOutGraph::render(const char* format) {
  char* data = nullptr;
  unsigned int length = 0;
  const int rc = graphvizLibrary().gvRenderData(context(), graph_, format, &data, &length);
  RenderedText out(data, data == nullptr ? 0 : length);
  if (rc != 0) throw RenderError(takeErrors("graphviz: rendering failed"));
  return out;
}

}  // namespace detail

std::string renderSvg(std::string_view dot, const LayoutOptions& options) {
  detail::LaidOutGraph laidOut(std::string(dot), options);
  return std::string(laidOut.render("svg").view());
}

std::string renderInlineSvg(std::string_view dot, const LayoutOptions& options) {
  detail::LaidOutGraph laidOut(std::string(dot), options);
  const detail::RenderedText svg = laidOut.render("svg");
  const auto start = svg.view().find("<svg");
  return std::string(start == std::string_view::npos ? svg.view() : svg.view().substr(start));
}

}  // namespace nndna::render
