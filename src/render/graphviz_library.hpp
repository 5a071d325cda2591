// Graphviz's libgvc (with libcgraph and the libraries they need), loaded the first time a layout
// needs it rather than when the program starts.
//
// A program that links nndna's renderer does not lay out on every run: `nndna diagram -o x.dot`,
// `nndna trace`, `nndna --version` never do, and `nndna serve` only once its warm-up starts.
// Linked, libgvc and the five libraries it brings (libcgraph, libcdt, libpathplan, libltdl,
// libexpat) were loaded at every start: about 1 ms on the VMs nndna runs on (docs/specrun.md,
// "The command as a process"). Internal to nndna_render.
#pragma once

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvcext.h>

#include <cstddef>

namespace nndna::render::detail {

// The functions and data of libgvc and libcgraph nndna uses, with the types their headers give
// them. Named as in Graphviz.
struct GraphvizLibrary {
  decltype(&::gvContext) gvContext;
  decltype(&::gvLayout) gvLayout;
  decltype(&::gvFreeLayout) gvFreeLayout;
  decltype(&::gvRenderData) gvRenderData;
  decltype(&::gvFreeRenderData) gvFreeRenderData;
  decltype(&::gvAddLibrary) gvAddLibrary;
  // Exported by libgvc, declared only in its private headers (gvplugin_textlayout.h's
  // gvtextlayout_select; gvio.h's gvwrite, which Debian does not install).
  int (*gvtextlayout_select)(GVC_t* gvc);
  std::size_t (*gvwrite)(GVJ_t* job, const char* s, std::size_t len);
  decltype(&::agseterrf) agseterrf;
  decltype(&::agseterr) agseterr;
  decltype(&::agsafeset) agsafeset;
  decltype(&::agclose) agclose;
  decltype(&::agreadline) agreadline;
  decltype(&::agread) agread;
  decltype(&::agnode) agnode;
  Agiodisc_t* AgIoDisc;
  Agmemdisc_t* AgMemDisc;
};

// Loads libgvc on the first call (thread-safe; before any fork of a layout child, which every
// layout path reaches through lockGraphviz()). RTLD_GLOBAL: Graphviz's plugins, which it loads
// itself, resolve their references to libgvc through the process's global scope, where nndna's
// own gvprintdouble (svg_numbers.hpp) comes first. Throws RenderError naming the library and
// the reason when it cannot be loaded (every call tries, and throws, again).
const GraphvizLibrary& graphvizLibrary();

}  // namespace nndna::render::detail
