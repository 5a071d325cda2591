#include "render/svg_render.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace {

using nndna::render::LayoutOptions;
using nndna::render::RenderError;
using nndna::render::renderInlineSvg;
using nndna::render::renderSvg;

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

TEST(SvgRender, RendersNodesEdgesIdsAndClasses) {
  std::string svg = renderSvg(R"(digraph G { a [id="node_a", class="hot"]; b; a -> b; b -> c; })");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"node"), 3u);
  EXPECT_EQ(count(svg, "class=\"edge\""), 2u);
  EXPECT_NE(svg.find("id=\"node_a\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"node hot\""), std::string::npos);
}

TEST(SvgRender, EscapesLabelTextAsXml) {
  std::string svg = renderSvg(R"(digraph { a [label="</text><script>x & y"]; })");
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;/text&gt;&lt;script&gt;x &amp; y"), std::string::npos);
}

TEST(SvgRender, SyntaxErrorBecomesExceptionWithGraphvizMessage) {
  try {
    renderSvg("digraph { a -> ; }");
    FAIL() << "expected RenderError";
  } catch (const RenderError& e) {
    EXPECT_NE(std::string(e.what()).find("syntax error"), std::string::npos) << e.what();
  }
  // The parser recovers: the next graph renders.
  EXPECT_NE(renderSvg("digraph { x -> y }").find("<svg"), std::string::npos);
}

TEST(SvgRender, UnknownEngineIsAnError) {
  LayoutOptions options;
  options.engine = "no-such-engine";
  EXPECT_THROW(renderSvg("digraph { a }", options), RenderError);
}

TEST(SvgRender, NslimitOptionKeepsEveryNodeAndEdge) {
  std::string dot = "digraph { ";
  for (int i = 0; i < 40; ++i) dot += "n" + std::to_string(i) + " -> n" + std::to_string((i * 7 + 3) % 40) + "; ";
  dot += "}";
  LayoutOptions options;
  options.nslimit = 0.5;
  std::string svg = renderSvg(dot, options);
  EXPECT_EQ(count(svg, "class=\"node\""), 40u);
  EXPECT_EQ(count(svg, "class=\"edge\""), 40u);
}

TEST(SvgRender, InlineSvgHasNoPrologue) {
  std::string svg = renderInlineSvg("digraph { a }");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(svg.find("<?xml"), std::string::npos);
}

TEST(SvgRender, SixDigitColoursWork) {
  std::string svg = renderSvg(R"(digraph { a [style=filled, fillcolor="#666666"]; })");
  EXPECT_NE(svg.find("fill=\"#666666\""), std::string::npos);
}

TEST(SvgRender, ConcurrentCallsAreSerialisedSafely) {
  std::vector<std::thread> threads;
  std::vector<std::string> results(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &results] {
      for (int i = 0; i < 10; ++i) results[t] = renderSvg("digraph { a -> b -> c }");
    });
  for (auto& t : threads) t.join();
  for (const auto& svg : results) EXPECT_EQ(count(svg, "class=\"node\""), 3u);
}

}  // namespace
