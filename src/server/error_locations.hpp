// Where in the user's spec an error is: the lines the editor marks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nndna::server {

struct SourceDiagnostic {
  int line = 0;          // 1-based
  int column = 0;        // 1-based; 0 when the message names only a line (trace errors)
  std::string severity;  // "error", "warning" or "info" (a compiler note)
  std::string message;   // the text after the location ("'x' was not declared in this scope")
};

// The located lines of a spec runner's message: every line that starts with `fileName:LINE:` or
// `fileName:LINE:COLUMN:` — the compiler's "model.cpp:12:5: error: ..." (specrun names the spec
// by its display name) and the tracer's "model.cpp:14: matmul: inner dimensions differ ...".
// Lines without a location (the code excerpts under a compiler error, a crash's signal) are not
// diagnostics; a message with none yields an empty list. A trace error's "(called from line 9,
// from line 20)" adds an "info" diagnostic on each of those lines. The message is a stranger's
// (a spec program writes it): fuzzed (tests/fuzz/error_locations_fuzz.cpp).
std::vector<SourceDiagnostic> locateDiagnostics(std::string_view message, std::string_view fileName);

}  // namespace nndna::server
