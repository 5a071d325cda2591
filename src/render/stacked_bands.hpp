// Large layered graphs laid out in horizontal bands, stacked into one SVG.
//
// Graphviz's dot spends time quadratic in (clusters × ranks) on a tall graph with many clusters
// (per-cluster rank arrays sized by the absolute rank, linear node-list searches), so a
// 6,000-box chain of clusters takes tens of seconds in one piece but a few seconds as 20 bands
// of a few hundred boxes each. The caller cuts the graph (it knows where a cut is harmless); this
// lays each band out on its own, at full quality, several at once in forked processes
// (band_layout.hpp, LayoutOptions::processes), and draws the edges between bands.
#pragma once

#include <span>
#include <string>

#include "render/svg_render.hpp"

namespace nndna::render {

// An edge whose ends lie in different bands, drawn by renderStackedBands.
struct BandEdge {
  std::string tail, head;  // node names as written in the bands' DOT
  std::string color;       // stroke and arrowhead colour, e.g. "#1f77b4"
  std::string cssClass;    // extra classes on the edge's <g class="edge ...">
  bool dashed = false;
  bool veeArrow = false;   // Graphviz's arrowhead=vee instead of the normal triangle
  friend bool operator==(const BandEdge&, const BandEdge&) = default;
};

// Lays out each band (a complete DOT graph) and stacks the drawings top to bottom into one SVG
// document without XML prolog. A band is placed so that the first edge from the band above runs
// straight down, within the widest band's width; centred when no edge joins them. An edge into
// the next band is a curve from the
// tail's bottom to the head's top; one that skips bands, or runs upwards, goes along a lane to
// the right of the drawing. Graphviz's automatic ids (graph0, edgeN, nodeN, clustN) are made
// unique per band; ids the DOT sets are kept. Throws RenderError when a band does not lay out
// or an edge names a node found in no band.
std::string renderStackedBands(std::span<const std::string> bandDots, std::span<const BandEdge> crossEdges,
                               const LayoutOptions& options = {});

}  // namespace nndna::render
