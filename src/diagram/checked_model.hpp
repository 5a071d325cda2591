// buildDiagram for a model whose graphs are already checked.
#pragma once

#include "nndna/diagram.hpp"

namespace nndna::diagram {

// buildDiagram without ir::validateGraph on the model's graphs first: for a model whose graphs
// have been checked and not changed since. The IR reader checks every graph it reads, so this is
// what a model from a spec run or an IR file is drawn with (the command, the server, the
// designer), and a traced example the command checks itself; any other model goes through
// buildDiagram. The same diagram either way.
Diagram buildDiagramOfCheckedModel(const ir::TracedModel& model, const Options& options = {});

}  // namespace nndna::diagram
