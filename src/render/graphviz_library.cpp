#include "render/graphviz_library.hpp"

#include <stdexcept>
#include <string>

#include "loaded_library.hpp"
#include "render/svg_render.hpp"

namespace nndna::render::detail {
namespace {

GraphvizLibrary load() {
  try {
    // libgvc's soname, read at configure time from the library pkg-config names
    // (cmake/Dependencies.cmake).
    const LoadedLibrary library(NNDNA_GRAPHVIZ_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
    GraphvizLibrary gv{};
    library.take("gvContext", gv.gvContext);
    library.take("gvLayout", gv.gvLayout);
    library.take("gvFreeLayout", gv.gvFreeLayout);
    library.take("gvRenderData", gv.gvRenderData);
    library.take("gvFreeRenderData", gv.gvFreeRenderData);
    library.take("gvAddLibrary", gv.gvAddLibrary);
    library.take("gvtextlayout_select", gv.gvtextlayout_select);
    library.take("gvwrite", gv.gvwrite);
    // libcgraph's, found through libgvc's dependencies.
    library.take("agseterrf", gv.agseterrf);
    library.take("agseterr", gv.agseterr);
    library.take("agsafeset", gv.agsafeset);
    library.take("agclose", gv.agclose);
    library.take("agreadline", gv.agreadline);
    library.take("agread", gv.agread);
    library.take("agnode", gv.agnode);
    library.take("AgIoDisc", gv.AgIoDisc);
    library.take("AgMemDisc", gv.AgMemDisc);
    return gv;
  } catch (const std::runtime_error& e) {
    throw RenderError(std::string("graphviz: ") + e.what() + " (Debian's libgvc6, which lays diagrams out)");
  }
}

}  // namespace

const GraphvizLibrary& graphvizLibrary() {
  // Loaded once, by whichever thread comes first; a throw leaves it unset, and the next call
  // tries again.
  static const GraphvizLibrary loaded = load();
  return loaded;
}

}  // namespace nndna::render::detail
