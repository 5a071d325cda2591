#include "render/stacked_bands.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "render/band_layout.hpp"
#include "render/escape.hpp"

namespace nndna::render {
namespace {

// Vertical room between two bands (points): about Graphviz's own spacing of stacked clusters
// plus the bands' padding; the edges joining them need no more.
constexpr double kBandGap = 16;
// Space between the drawing and the first lane, and between lanes (points).
constexpr double kLaneMargin = 14;
constexpr double kLaneStep = 8;
// Lanes are reused past this many, so a graph with many long edges does not grow without bound.
constexpr std::size_t kMaxLanes = 16;
// Graphviz's arrowhead: 10 points long, 7 wide.
constexpr double kArrowLength = 10;
constexpr double kArrowHalfWidth = 3.5;

std::string fmtNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// Appends `svg` to `out`, Graphviz's own ids (graph0, edgeN, nodeN, clustN: numbered from 0 or 1
// in every graph) prefixed with the band so they stay unique in the stacked document. Ids that the
// DOT set (n12, c3) are left alone.
void appendWithBandIds(std::string_view svg, std::size_t band, std::string& out) {
  static constexpr std::string_view kPrefixes[] = {"graph", "edge", "node", "clust"};
  static constexpr std::string_view kId = "id=\"";
  const std::string bandPrefix = "b" + std::to_string(band) + "_";
  std::size_t pos = 0;
  for (auto at = svg.find(kId); at != std::string_view::npos; at = svg.find(kId, at + 1)) {
    const auto value = at + kId.size();
    for (std::string_view prefix : kPrefixes) {
      if (svg.compare(value, prefix.size(), prefix) != 0) continue;
      auto digits = value + prefix.size();
      auto end = digits;
      while (end < svg.size() && std::isdigit(static_cast<unsigned char>(svg[end]))) ++end;
      if (end == digits || end >= svg.size() || svg[end] != '"') continue;
      out.append(svg.substr(pos, value - pos));
      out += bandPrefix;
      pos = value;
      break;
    }
  }
  out.append(svg.substr(pos));
}

struct Placed {
  std::size_t band = 0;
  double x = 0, top = 0, bottom = 0;  // in the stacked document
};

// The arrowhead at `tip`, pointing down (dir = 1) or up (dir = -1).
std::string arrowPoints(double x, double tip, int dir, bool vee) {
  const double base = tip - dir * kArrowLength;
  std::string p;
  auto add = [&](double px, double py) { p += fmtNumber(px) + "," + fmtNumber(py) + " "; };
  if (vee) {
    add(x - kArrowHalfWidth - 0.5, base);
    add(x, tip);
    add(x + kArrowHalfWidth + 0.5, base);
    add(x, tip - dir * kArrowLength * 0.6);
    add(x - kArrowHalfWidth - 0.5, base);
  } else {
    add(x + kArrowHalfWidth, base);
    add(x, tip);
    add(x - kArrowHalfWidth, base);
    add(x + kArrowHalfWidth, base);
  }
  p.pop_back();
  return p;
}

}  // namespace

std::string renderStackedBands(std::span<const std::string> bandDots, std::span<const BandEdge> crossEdges,
                               const LayoutOptions& options) {
  std::vector<std::string> ends;
  for (const BandEdge& e : crossEdges) {
    ends.push_back(e.tail);
    ends.push_back(e.head);
  }
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());

  const std::vector<detail::LaidOutBand> bands = detail::layOutBands(bandDots, ends, options);

  double width = 0;
  for (const detail::LaidOutBand& b : bands) width = std::max(width, b.width);
  // A band sits under the previous one so that the first edge joining them runs straight down
  // (a layered network reads as one column), as far as the drawing's width allows; centred when
  // no edge joins them.
  std::vector<double> offsetX, offsetY;
  double height = 0;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    if (i) height += kBandGap;
    double x = (width - bands[i].width) / 2;
    for (std::size_t k = 0; i > 0 && k < crossEdges.size(); ++k) {
      const auto head = bands[i].boxes.find(crossEdges[k].head);
      const auto tail = bands[i - 1].boxes.find(crossEdges[k].tail);
      if (head == bands[i].boxes.end() || tail == bands[i - 1].boxes.end()) continue;
      x = std::clamp(offsetX[i - 1] + tail->second.x - head->second.x, 0.0, width - bands[i].width);
      break;
    }
    offsetX.push_back(x);
    offsetY.push_back(height);
    height += bands[i].height;
  }

  std::unordered_map<std::string, Placed> placed;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    for (const auto& [name, box] : bands[i].boxes) {
      placed.try_emplace(name, Placed{i, offsetX[i] + box.x, offsetY[i] + box.top, offsetY[i] + box.bottom});
    }
  }

  // Edges: direct into the next band, along a lane otherwise.
  std::string edges;
  std::size_t lanes = 0;
  for (std::size_t k = 0; k < crossEdges.size(); ++k) {
    const BandEdge& e = crossEdges[k];
    const auto t = placed.find(e.tail);
    const auto h = placed.find(e.head);
    if (t == placed.end() || h == placed.end()) {
      throw RenderError("stacked bands: edge " + e.tail + " -> " + e.head + " names a node in no band");
    }
    const Placed& s = t->second;
    const Placed& d = h->second;
    const bool down = d.band > s.band || (d.band == s.band && d.top >= s.bottom);
    const int dir = down ? 1 : -1;
    const double sy = down ? s.bottom : s.top;
    const double tip = down ? d.top : d.bottom;
    const double base = tip - dir * kArrowLength;
    std::string path = "M" + fmtNumber(s.x) + "," + fmtNumber(sy);
    if (down && d.band <= s.band + 1) {
      const double mid = (sy + base) / 2;
      path += "C" + fmtNumber(s.x) + "," + fmtNumber(mid) + " " + fmtNumber(d.x) + "," + fmtNumber(mid) + " " +
              fmtNumber(d.x) + "," + fmtNumber(base);
    } else {
      const double lane = width + kLaneMargin + kLaneStep * static_cast<double>(lanes % kMaxLanes);
      ++lanes;
      const double r = 12;
      auto pt = [](double x, double y) { return fmtNumber(x) + "," + fmtNumber(y) + " "; };
      path += "C" + pt(s.x, sy + dir * r * 1.5) + pt(lane, sy + dir * r * 0.5) + pt(lane, sy + dir * r * 2);
      path += "L" + pt(lane, base - dir * r * 2);
      path += "C" + pt(lane, base - dir * r * 0.5) + pt(d.x, base - dir * r * 1.5) + pt(d.x, base);
      path.pop_back();
    }
    const std::string color = escapeXml(e.color);
    edges += "<g id=\"xedge" + std::to_string(k) + "\" class=\"edge" + (e.cssClass.empty() ? "" : " ") +
             escapeXml(e.cssClass) + "\">\n<title>" + escapeXml(e.tail + "->" + e.head) + "</title>\n";
    edges += "<path fill=\"none\" stroke=\"" + color + "\" stroke-width=\"1.5\"" +
             (e.dashed ? " stroke-dasharray=\"5,2\"" : "") + " d=\"" + path + "\"/>\n";
    edges += "<polygon fill=\"" + color + "\" stroke=\"" + color + "\" stroke-width=\"1.5\" points=\"" +
             arrowPoints(d.x, tip, dir, e.veeArrow) + "\"/>\n</g>\n";
  }

  const double fullWidth = width + (lanes ? kLaneMargin + kLaneStep * static_cast<double>(std::min(lanes, kMaxLanes)) : 0);
  const std::string root = "<svg width=\"" + fmtNumber(fullWidth) + "pt\" height=\"" + fmtNumber(height) +
                           "pt\"\n viewBox=\"0.00 0.00 " + fmtNumber(fullWidth) + " " + fmtNumber(height) +
                           "\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n" +
                           "<g id=\"graph0\" class=\"graph stacked-bands\">\n";
  std::vector<std::string> bandStarts;
  // The closing tags, and room for a caller's <style> after the root tag (svg_out.cpp adds one).
  std::size_t size = root.size() + edges.size() + 128;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    bandStarts.push_back("<g id=\"band" + std::to_string(i) + "\" transform=\"translate(" + fmtNumber(offsetX[i]) +
                         " " + fmtNumber(offsetY[i]) + ")\">\n");
    // An id Graphviz numbers itself takes at least 10 bytes (id="edge0"), and each gets the band's
    // prefix: room reserved for the most there can be (pages never written cost nothing).
    const std::size_t prefix = 2 + std::to_string(i).size();
    size += bandStarts.back().size() + bands[i].body().size() + bands[i].body().size() / 10 * prefix + 8;
  }
  // One allocation for the whole document: it is megabytes for a large diagram, and growing it
  // band by band copied it over and over.
  std::string svg;
  svg.reserve(size);
  svg += root;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    svg += bandStarts[i];
    appendWithBandIds(bands[i].body(), i, svg);
    svg += "</g>\n";
  }
  svg += edges;
  svg += "</g>\n</svg>\n";
  return svg;
}

}  // namespace nndna::render
