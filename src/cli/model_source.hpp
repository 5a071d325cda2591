// Where a command's model comes from: a built-in spec (--example NAME), a spec file (compiled
// and run in the sandbox) or a traced IR file (.json). Shared by `nndna diagram`, `nndna summary`
// and `nndna trace`.
#pragma once

#include <string>

#include "cli/spec_run_options.hpp"
#include "nndna/ir.hpp"

namespace CLI {
class App;
}

namespace nndna::cli {

struct ModelSource {
  std::string input;    // a spec .cpp or an IR .json
  std::string example;  // a built-in spec
  SpecRunArgs run;
};

// The positional `model`, --example (excluding each other) and the spec runner's options.
void addModelSourceOptions(CLI::App& cmd, ModelSource& source);

// Throws CLI::ValidationError when neither a model file nor --example is given, or the example is
// unknown: the checks loadModel makes before any work (a command may start other work after them).
void checkModelSource(const ModelSource& source);

// Traces the example, reads the IR file (by its .json extension) or runs the spec file. Throws
// CLI::ValidationError when neither is given or the example is unknown; a spec file's errors are
// printed and thrown as runSpecForCli does. The model's graphs are checked (ir::validateGraph: the
// IR reader checks what it reads, and a traced example is checked here), so it may be drawn with
// diagram::buildDiagramOfCheckedModel.
ir::TracedModel loadModel(const ModelSource& source);

}  // namespace nndna::cli
