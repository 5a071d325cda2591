// Compiler output as a spec's author should read it: their file's errors only, with the path they
// typed, without notes from inside nndna's headers or the standard library.
#pragma once

#include <string>
#include <string_view>

namespace nndna::specrun {

struct DiagnosticPaths {
  std::string compiledPath;  // the path the compiler was given (absolute)
  std::string displayPath;   // the path to show instead ("model.cpp", as the user typed it)
};

// Keeps the first `maxErrors` errors located in the spec (each with its code excerpt, and the
// notes that point into the spec), rewrites the spec's path to displayPath and drops everything
// else: "In file included from", notes and errors inside nndna or system headers, the linker's
// summary line. When no error lies in the spec (an error inside a header, a link error), the
// first such error is kept rather than hiding the only clue.
std::string trimCompilerOutput(std::string_view output, const DiagnosticPaths& paths,
                               int maxErrors = 3);

}  // namespace nndna::specrun
