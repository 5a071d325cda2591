// The bands of a stacked drawing (stacked_bands.hpp) laid out with Graphviz: each band on its own,
// several at once in forked copies of this process when there are CPUs for them. Graphviz keeps
// its state in process-wide globals, so within one process layouts run one after the other: a
// 1,500-box diagram's 15 bands took 0.16-0.18 s in one process and 0.10-0.13 s in two on the
// 2-CPU development machine (whose two CPUs slow each other down: a band takes 14-20 ms beside
// another layout, 11 ms alone). Internal to nndna_render.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "render/svg_render.hpp"

namespace nndna::render::detail {

// A box's place in its band's SVG user space.
struct BandBox {
  double x = 0, top = 0, bottom = 0;
  friend bool operator==(const BandBox&, const BandBox&) = default;
};

struct LaidOutBand {
  std::string svg;  // Graphviz's drawing of the band
  std::size_t bodyStart = 0, bodyLength = 0;  // in svg: the band's top <g class="graph"> element
  double width = 0, height = 0;
  std::unordered_map<std::string, BandBox> boxes;  // the boxes asked for (`ends`) found in this band

  std::string_view body() const { return std::string_view(svg).substr(bodyStart, bodyLength); }
};

// Lays out every band of `dots` and finds the boxes named in `ends` in each. Uses up to
// options.processes processes (0: one per CPU this process may run on, at most 4): this one and
// forked children, each given a run of consecutive bands of about equal DOT size. A child that
// cannot be started leaves its bands to this process. Throws RenderError with Graphviz's message
// for the first band (in order) that does not lay out, wherever it was laid out.
std::vector<LaidOutBand> layOutBands(std::span<const std::string> dots, std::span<const std::string> ends,
                                     const LayoutOptions& options);

}  // namespace nndna::render::detail
