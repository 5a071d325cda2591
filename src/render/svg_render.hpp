// DOT -> SVG with Graphviz's C library (libgvc), in process. Shared by xray and the model diagrams.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "nndna/error.hpp"

namespace nndna::render {

struct LayoutOptions {
  // Graphviz layout engine ("dot" for layered graphs).
  std::string engine = "dot";
  // Graphviz's `nslimit`: bounds the network-simplex passes of x-placement, which dominate the
  // layout time of large layered graphs (DESIGN.md: 55.6 s -> 5.7 s at 6,000 boxes with 0.5).
  std::optional<double> nslimit;
  // A banded drawing's bands (stacked_bands.hpp) are laid out in up to this many processes at
  // once (forked copies of this one); 0: one per CPU this process may run on, at most 4.
  unsigned processes = 0;
};

// Raised when Graphviz rejects the DOT or fails to lay it out; what() carries Graphviz's message.
class RenderError : public Error {
 public:
  explicit RenderError(std::string message) : Error(Kind::render_error, {}, 0, std::move(message)) {}
};

// Lays out `dot` and returns the SVG document. Thread-safe: libgvc keeps global state, so calls
// are serialised on one process-wide mutex.
std::string renderSvg(std::string_view dot, const LayoutOptions& options = {});

// The SVG without its XML prolog and DOCTYPE, ready to be placed inside an HTML page.
std::string renderInlineSvg(std::string_view dot, const LayoutOptions& options = {});

}  // namespace nndna::render
