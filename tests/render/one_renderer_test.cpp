// One renderer per process: a program that draws diagrams (nndna_render) and xray pages
// (libnndna_xray, which lays out its call graph with the same code) holds one Graphviz context
// and one lock. Graphviz keeps its layout state in process-wide globals, so two copies of the
// renderer, each with its own lock, would lay out at the same time from two threads and crash or
// corrupt each other's drawings (what `nndna design --trace` hit when the renderer was a static
// library inside both).
#include <gtest/gtest.h>
#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>

#include <stdexcept>
#include <string>
#include <thread>

#include "render/svg_render.hpp"

namespace {

namespace xr = nndna::xray;

xr::Trace threeCalls() {
  xr::Session session;
  {
    XRAY_SPAN("plan", {{"goal", "a trip"}}, {.kind = "agent"});
    for (int i = 0; i < 2; ++i) XRAY_SPAN("call_llm", {{"prompt", "where to"}}, {.kind = "llm"});
  }
  return session.finish();
}

// A drawing of a few boxes in clusters, as a diagram's DOT holds them.
constexpr const char* kDot = R"(digraph {
  node [shape=box fontname="Courier"]
  subgraph cluster_0 { label="block" a [label=<<B>a</B>>] b }
  subgraph cluster_1 { label="head" c d }
  a -> b -> c -> d; a -> d
})";

// What Graphviz writes at the top of every drawing it laid out.
constexpr const char* kLaidOut = "<g id=\"graph0\" class=\"graph\"";

TEST(OneRenderer, DiagramsAndXrayPagesLayOutFromTwoThreadsAtOnce) {
  const xr::Trace trace = threeCalls();
  constexpr int kRounds = 40;
  int diagramsDrawn = 0, pagesDrawn = 0;
  std::string diagramError, pageError;
  std::thread diagrams([&] {
    try {
      for (int i = 0; i < kRounds; ++i)
        if (nndna::render::renderInlineSvg(kDot).find(kLaidOut) != std::string::npos) ++diagramsDrawn;
    } catch (const std::exception& e) {
      diagramError = e.what();
    }
  });
  std::thread pages([&] {
    try {
      for (int i = 0; i < kRounds; ++i) {
        const std::string page = xr::toHtml(trace);
        if (page.find(kLaidOut) != std::string::npos && page.find("could not be drawn") == std::string::npos)
          ++pagesDrawn;
      }
    } catch (const std::exception& e) {
      pageError = e.what();
    }
  });
  diagrams.join();
  pages.join();
  EXPECT_EQ(diagramError, "");
  EXPECT_EQ(pageError, "");
  EXPECT_EQ(diagramsDrawn, kRounds);
  EXPECT_EQ(pagesDrawn, kRounds);
}

}  // namespace
