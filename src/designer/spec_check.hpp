// Compiling and tracing a candidate spec, the way `nndna diagram` does (specrun: compile cache,
// sandboxed run), and reading where its error points.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

#include "designer/events.hpp"
#include "nndna/ir.hpp"
#include "specrun/spec_runner.hpp"

namespace nndna::designer {

struct CheckedSpec {
  CheckOutcome outcome;
  std::optional<ir::TracedModel> model;  // when outcome.ok
  std::filesystem::path file;            // where the source was written and compiled
};

// Writes `source` under the compile cache (designs/<hash>/<file name of displayName>, so equal
// sources share one path and therefore one cached binary) and runs it with runSpecFile; messages
// name the file `displayName`. Never throws for a bad spec: the failure is in the outcome.
CheckedSpec checkSpec(std::string_view source, std::string_view displayName, const specrun::RunOptions& options);

// The line of `displayName` that an error message names first ("design.cpp:12:5: error: ...",
// "design.cpp:12: matmul: ..."); 0 when it names none.
int errorLine(std::string_view message, std::string_view displayName);

}  // namespace nndna::designer
