#include "cli/model_source.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>

#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"

namespace nndna::cli {

namespace {

// CLI11's check that the file exists, pointing to --example when a built-in spec has the name
// given (`nndna diagram gpt2_small` for `--example gpt2_small`).
CLI::Validator existingModelFile() {
  return CLI::Validator(
      [](std::string& path) {
        std::string message = CLI::ExistingFile(path);
        if (!message.empty() && findSpec(path) != nullptr) {
          message += " (a built-in spec has that name: --example " + path + ")";
        }
        return message;
      },
      "FILE");
}

}  // namespace

void addModelSourceOptions(CLI::App& cmd, ModelSource& source) {
  // Checked as `nndna ir` checks its spec: a missing file is a command-line mistake (status 105).
  auto* input =
      cmd.add_option("model", source.input, "A model spec (.cpp) or a traced IR (.json)")->check(existingModelFile());
  auto* example = cmd.add_option("--example", source.example, "A built-in spec (see `nndna examples`)");
  input->excludes(example);
  addSpecRunOptions(cmd, source.run);
}

namespace {

// The built-in spec --example names; throws CLI::ValidationError when there is none.
const RegisteredSpec& namedExample(const std::string& name) {
  const RegisteredSpec* registered = findSpec(name);
  if (registered == nullptr) {
    throw CLI::ValidationError("--example", "no built-in spec named '" + name + "' (see `nndna examples`)");
  }
  return *registered;
}

}  // namespace

void checkModelSource(const ModelSource& source) {
  if (source.input.empty() && source.example.empty()) {
    throw CLI::ValidationError("model", "give a spec file, an IR .json, or --example NAME");
  }
  if (!source.example.empty()) (void)namedExample(source.example);
}

ir::TracedModel loadModel(const ModelSource& source) {
  checkModelSource(source);
  if (!source.example.empty()) {
    ir::TracedModel model = traceModel(loadSpec(namedExample(source.example)));
    ir::validateGraph(model.train, "train");
    if (model.hasInfer) ir::validateGraph(model.infer, "infer");
    return model;
  }
  const std::filesystem::path path(source.input);
  return path.extension() == ".json" ? ir::tracedModelFromFile(path) : runSpecForCli(source.input, source.run);
}

}  // namespace nndna::cli
