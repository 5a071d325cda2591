// Fuzz target: the IR's CBOR reader — what nndna reads from every spec program it runs — and the
// property that ties it to the JSON reader: a document it accepts, written as JSON, reads back
// to the same model (everything CBOR can say that JSON cannot, the reader must refuse). Then what
// the parent does with the model, as ir_reader does, without the SVG (ir_reader renders).
//
// A document may be rejected, and an accepted graph may still not make a training step or a
// diagram: those are nndna::Errors. Anything else — a crash, a sanitizer report, another
// exception type, an accepted model whose JSON does not read back the same — is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "nndna/diagram.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/training.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  nndna::ir::TracedModel model;
  try {
    model = nndna::ir::tracedModelFromCbor(bytes);
  } catch (const nndna::Error&) {
    return 0;
  }
  // Not caught: an IrFormatError here is a finding (the CBOR reader accepted what JSON's refuses).
  const std::string text = nndna::ir::toJson(model);
  if (nndna::ir::toJson(nndna::ir::tracedModelFromJson(text)) != text) __builtin_trap();
  try {
    const nndna::ir::Graph step = nndna::training::buildTrainingStep(model.train, model.spec.optimizer);
    (void)nndna::diagram::buildDiagram(model);
  } catch (const nndna::Error&) {
  }
  return 0;
}
