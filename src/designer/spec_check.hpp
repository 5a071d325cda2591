// Compiling and tracing a candidate spec, the way `nndna diagram` does (specrun: compile cache,
// sandboxed run), and reading where its error points.
#pragma once

#include <optional>
#include <stop_token>
#include <string_view>

#include "designer/events.hpp"
#include "nndna/ir.hpp"
#include "specrun/spec_runner.hpp"

namespace nndna::designer {

struct CheckedSpec {
  CheckOutcome outcome;
  std::optional<ir::TracedModel> model;  // when outcome.ok
  bool cancelled = false;                // the stop token ended the compile or the run
};

// Compiles and runs `source` with specrun::runSpecSource (equal sources share one compile);
// messages name the file `displayName`. A stop request kills the compiler or the spec program.
// Never throws for a bad spec: the failure is in the outcome.
CheckedSpec checkSpec(std::string_view source, std::string_view displayName, const specrun::RunOptions& options,
                      std::stop_token stop = {});

// The line of `displayName` that an error message names first ("design.cpp:12:5: error: ...",
// "design.cpp:12: matmul: ..."); 0 when it names none.
int errorLine(std::string_view message, std::string_view displayName);

}  // namespace nndna::designer
