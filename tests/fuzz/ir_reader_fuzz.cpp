// Fuzz target: the IR JSON reader, and what the parent process does with an IR it accepted —
// building the training step, the diagram, and its SVG (Graphviz, in process).
//
// A document may be rejected, and an accepted graph may still not make a training step or a
// diagram: those are nndna::Errors, reported to the user. Anything else — a crash, a sanitizer
// report, another exception type, an allocation past the RSS limit, a slow input — is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "nndna/diagram.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/training.hpp"

namespace {
// Layouts of larger diagrams take seconds each: the fuzzer renders the small ones (every seed is).
constexpr std::size_t kMaxRenderedBoxes = 200;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nndna::ir::TracedModel model;
  try {
    model = nndna::ir::tracedModelFromJson(text);
  } catch (const nndna::Error&) {
    return 0;
  }
  try {
    const nndna::ir::Graph step = nndna::training::buildTrainingStep(model.train, model.spec.optimizer);
    const nndna::diagram::Diagram diagram = nndna::diagram::buildDiagram(model);
    if (diagram.nodes.size() + diagram.clusters.size() <= kMaxRenderedBoxes) {
      (void)nndna::diagram::renderSvg(diagram);
    }
  } catch (const nndna::Error&) {
  }
  return 0;
}
