#include "render/svg_render.hpp"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>

namespace nndna::render {
namespace {

// libgvc and cgraph keep global state (the error callback, the plugin registry, the layout
// scratch data): every use goes through this lock.
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
GVC_t* context() {
  static GVC_t* gvc = [] {
    GVC_t* c = gvContext();
    if (c == nullptr) throw RenderError("graphviz: cannot create a layout context");
    return c;
  }();
  return gvc;
}

struct GraphCloser {
  void operator()(Agraph_t* g) const { agclose(g); }
};
using GraphPtr = std::unique_ptr<Agraph_t, GraphCloser>;

std::string takeErrors(std::string_view fallback) {
  std::string message = std::move(errorBuffer());
  errorBuffer().clear();
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message.empty() ? std::string(fallback) : "graphviz: " + message;
}

}  // namespace

std::string renderSvg(std::string_view dot, const LayoutOptions& options) {
  std::lock_guard lock(graphvizMutex());
  errorBuffer().clear();
  agseterrf(collectError);
  // Without this, warnings (e.g. unknown attributes) would also end up in the error text.
  agseterr(AGERR);
  GVC_t* gvc = context();

  // agmemread needs a NUL-terminated buffer.
  std::string text(dot);
  GraphPtr graph(agmemread(text.c_str()));
  if (!graph) throw RenderError(takeErrors("graphviz: cannot parse the DOT text"));
  if (options.nslimit) {
    std::string value = std::to_string(*options.nslimit);
    agsafeset(graph.get(), const_cast<char*>("nslimit"), value.data(), const_cast<char*>(""));
  }
  if (gvLayout(gvc, graph.get(), options.engine.c_str()) != 0)
    throw RenderError(takeErrors("graphviz: layout failed"));

  char* data = nullptr;
  unsigned int length = 0;
  int rc = gvRenderData(gvc, graph.get(), "svg", &data, &length);
  std::string svg;
  if (rc == 0 && data != nullptr) svg.assign(data, length);
  if (data != nullptr) gvFreeRenderData(data);
  gvFreeLayout(gvc, graph.get());
  if (rc != 0) throw RenderError(takeErrors("graphviz: SVG rendering failed"));
  errorBuffer().clear();
  return svg;
}

std::string renderInlineSvg(std::string_view dot, const LayoutOptions& options) {
  std::string svg = renderSvg(dot, options);
  auto start = svg.find("<svg");
  return start == std::string::npos ? svg : svg.substr(start);
}

}  // namespace nndna::render
