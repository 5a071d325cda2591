// Architecture diagrams: from a traced model (training and inference graphs) to NN DNA's picture.
//
// The pipeline follows the seed's algorithm (docs/diagram.md): a group tree of call clusters and
// source-line leaves per side, a DAG of its leaves, loop detection and folding (`×N`), keys that
// match nodes across the two sides, one merged model, and Graphviz DOT. Rendering (SVG, the HTML
// page) goes through Graphviz's C library in process.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nndna/ir.hpp"

namespace nndna::diagram {

enum class Side : std::uint8_t { train, infer };
// "train" / "infer"
std::string_view sideName(Side side);

struct Options {
  // Draw one side alone. Unset: both sides, merged into one picture when they share a layer.
  std::optional<Side> only;
  // Make Diagram::summary, which only the HTML page shows (its Summary tab): a drawing for
  // another output (DOT, SVG, JSON) skips it, about a quarter of GPT-2 small's diagram.
  bool summary = true;
};

// Per-side values; a side that does not draw the element has nothing.
template <class T>
struct PerSide {
  std::optional<T> train;
  std::optional<T> infer;
  std::optional<T>& operator[](Side s) { return s == Side::train ? train : infer; }
  const std::optional<T>& operator[](Side s) const { return s == Side::train ? train : infer; }
};

// What one box (or cluster) costs, on one side.
struct Cost {
  std::int64_t params = 0;  // distinct trainable parameters its ops read
  std::int64_t flops = 0;   // matmul/conv FLOPs of its ops, summed over every folded iteration
};

struct Node {
  int id = 0;             // "n<id>" in the DOT and the SVG
  std::string key;        // the cross-side key (docs/diagram.md)
  bool isInput = false;   // a data input drawn at the top
  std::string label;      // the source line (or "input: name"), trimmed, shape comment stripped
  std::string file;       // source file of the line ("" for inputs)
  int line = 0;
  // Its shape per distinct value over both sides and every iteration folded into it, in order,
  // dims resolved: "[B, H]"; a box that hands on several tensors (a `split` line) "3 × [B, T, D]".
  std::vector<std::string> shapes;
  // What its ops compute: layer calls by their module's name, other ops by kind ("ln1", "add",
  // "conv1 · bn1 · relu"). The box shows it when another box of its cluster has the same label.
  std::string computes;
  std::string color;      // border colour: by source line, or by input name
  std::vector<Side> sides;
  int cluster = -1;       // innermost enclosing cluster id, -1 at top level
  PerSide<Cost> cost;
};

struct Cluster {
  int id = 0;             // "c<id>" in the DOT and the SVG
  enum class Kind : std::uint8_t { user, loop } kind = Kind::user;
  std::string label;      // as laid out ("×12 (inference)", the call line, ...)
  // A wrapper pair: one call seen from the two sides (lossFn's and predictFn's call of the
  // shared forward); the page swaps in the label of the side shown.
  std::optional<std::string> trainLabel, inferLabel;
  std::vector<Side> sides;
  int parent = -1;
  PerSide<Cost> cost;
};

struct Edge {
  int src = 0, dst = 0;   // node ids
  // A loop-carried dependency (from one iteration of a loop into a later one): dashed. An edge
  // from one loop into another is not carried.
  bool carried = false;
  bool backEdge = false;  // carried into a folded loop: a cycle, drawn with constraint=false
  std::string color;
  std::vector<Side> sides;
};

struct LegendItem {
  std::string name, desc;
  std::int64_t size = 0;
  std::string color;
};
struct DimCollision {
  std::int64_t size = 0;
  std::vector<std::string> names;
};

struct Metric {
  std::string key;      // "params", "activations", "flops", "kernels"
  std::int64_t value = 0;
  std::string display;  // "24.9K parameters"
  std::string tooltip;
};

struct Summary;  // summary.hpp

struct Diagram {
  std::string label, description;
  bool merged = false;  // both sides drawn as one picture
  bool hasInfer = false;
  bool hasTrainOnly = false, hasInferOnly = false;
  std::vector<Node> nodes;  // by id
  std::vector<Cluster> clusters;  // by id
  std::vector<Edge> edges;
  std::vector<LegendItem> legend;
  // Sizes some drawn shape shows slash-joined (`[B/Dh]`), with the names declared for them.
  std::vector<DimCollision> collisions;
  PerSide<std::vector<Metric>> metrics;
  std::string dot;
  // When the sides share no layer (a flow's inverse pass), this diagram draws the training side
  // and the inference side is drawn alone here (the seed's two separate diagrams).
  std::shared_ptr<const Diagram> inferAlone;
  // The model's summary (summary.hpp, default memory options): the page's Summary tab.
  std::shared_ptr<const Summary> summary;

  // Boxes drawn, inputs not counted (the seed's count).
  std::size_t layerCount() const;
  std::size_t carriedEdgeCount() const;
};

// Builds the diagram of a traced model. Never caps the size.
Diagram buildDiagram(const ir::TracedModel& model, const Options& options = {});

// The header metrics of each side the model has (docs/diagram.md "Metrics"): what buildDiagram
// puts in Diagram::metrics, without drawing. Builds the training step (FLOPs/step, kernels):
// throws nndna::Error when it cannot be built (an invalid optimizer setting, an op without an
// adjoint rule).
PerSide<std::vector<Metric>> modelMetrics(const ir::TracedModel& model);

// Lays out the DOT and returns the SVG document: in one piece up to 1,000 boxes + clusters, in
// stacked bands beyond (docs/diagram.md). The DOT carries Graphviz's speed settings for large
// diagrams itself, so a `.dot` output renders alike with the `dot` command. The bands are laid
// out in forked copies of the calling process too, one per CPU it may run on (at most 4), which
// this call waits for and reaps before it returns.
std::string renderSvg(const Diagram& diagram);
// The DOT to write as a `.dot` file: Diagram::dot, which the page lays out, with each cluster of a
// call seen from both sides labelled as the training side's (as renderSvg's standalone view).
std::string standaloneDot(const Diagram& diagram);
// The diagram model, metrics and legend as JSON (docs/diagram.md lists the fields).
std::string toJson(const Diagram& diagram, int indent = 2);
// One self-contained offline HTML page: header, metrics, legend, the SVG, side toggle, hover,
// tooltips, pan and zoom. `svg` is the output of renderSvg (rendered once, reused).
std::string renderHtml(const Diagram& diagram, const std::string& svg);
std::string renderHtml(const Diagram& diagram);

}  // namespace nndna::diagram
