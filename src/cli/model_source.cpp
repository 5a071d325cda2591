#include "cli/model_source.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>

#include "cli/huge_page_heap.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"

namespace nndna::cli {

void addModelSourceOptions(CLI::App& cmd, ModelSource& source) {
  auto* input = cmd.add_option("model", source.input, "A model spec (.cpp) or a traced IR (.json)");
  auto* example = cmd.add_option("--example", source.example, "A built-in spec (see `nndna examples`)");
  input->excludes(example);
  addSpecRunOptions(cmd, source.run);
}

ir::TracedModel loadModel(const ModelSource& source) {
  topUpHugePageHeap();
  if (source.input.empty() && source.example.empty()) {
    throw CLI::ValidationError("model", "give a spec file, an IR .json, or --example NAME");
  }
  if (!source.example.empty()) {
    const RegisteredSpec* registered = findSpec(source.example);
    if (registered == nullptr) {
      throw CLI::ValidationError("--example", "no built-in spec named '" + source.example +
                                                  "' (see `nndna examples`)");
    }
    ir::TracedModel model = traceModel(loadSpec(*registered));
    ir::validateGraph(model.train, "train");
    if (model.hasInfer) ir::validateGraph(model.infer, "infer");
    return model;
  }
  const std::filesystem::path path(source.input);
  ir::TracedModel model = path.extension() == ".json" ? ir::tracedModelFromFile(path)
                                                       : runSpecForCli(source.input, source.run);
  topUpHugePageHeap();  // room for drawing it
  return model;
}

}  // namespace nndna::cli
