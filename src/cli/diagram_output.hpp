// Writing a diagram to the file -o names (or standard output), in the format its extension or
// --format names: shared by the commands that draw (`nndna diagram`, `nndna design`).
#pragma once

#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <thread>

#include "cli/files.hpp"
#include "diagram/warm_up.hpp"
#include "nndna/diagram.hpp"

namespace nndna::cli {

enum class DiagramFormat { html, svg, dot, json };

// Where a diagram goes: a file, or standard output ("-"), in one of the four formats.
struct DiagramOutput {
  std::filesystem::path path;
  DiagramFormat format = DiagramFormat::html;

  // "-", or /dev/stdout by name: either way the report must not go where the drawing goes.
  bool toStandardOutput() const { return isStandardOutput(path); }
  // Where the command's other lines go: standard error when the drawing holds standard output.
  std::ostream& reportStream() const { return reportStreamFor(path); }
  // Whether writing it lays the diagram out (.html, .svg) rather than writing its DOT or JSON.
  bool laidOut() const { return format == DiagramFormat::html || format == DiagramFormat::svg; }
};

// The output -o and --format name: the format is `format` when given ("html", "svg", "dot",
// "json"), else the path's extension; standard output ("-") has none, so it needs `format`.
// Throws CLI::ValidationError naming the option at fault.
DiagramOutput diagramOutput(const std::filesystem::path& path, std::string_view format = {});

// Runs diagram::warmUpRenderer on a thread of its own, which the returned jthread joins when it is
// destroyed: for a command that will lay a diagram out, started before the model is loaded, so the
// first layout's start-up (Graphviz's plugins, pango, the fonts) overlaps the spec's compile and
// run. SIGTERM, SIGINT and SIGHUP are blocked in the thread, and so in any thread a library starts
// from it: a spec run takes them from a signalfd to stop cleanly, and a thread that let them
// through would end the process at once. An empty jthread when no thread can be started (the
// layout then loads what it needs itself). `work` is the warm-up (a test's stand-in aside).
std::jthread startRendererWarmUp(void (*work)() noexcept = diagram::warmUpRenderer);

// Writes the page, SVG, DOT or JSON; returns the lines to print (no final newline): "wrote
// out.html (4 boxes, 2 clusters, 10 edges, training and inference merged)" ("wrote standard
// output (...)"), then one line per side with the page header's figures ("training: 1.2 M params
// · …"). With standard output holding the diagram, the caller prints them to standard error.
std::string writeDiagram(const diagram::Diagram& diagram, const DiagramOutput& out);

// One line per side with the page header's figures, the same display strings and units:
// "training: 24.9K parameters · 928.0 KiB activations · 35.7M FLOPs/step · 44 kernels" (no final
// newline). What `nndna diagram`, `nndna ir`, `nndna trace` and `nndna summary` print.
std::string metricsLines(const diagram::PerSide<std::vector<diagram::Metric>>& metrics);

}  // namespace nndna::cli
