// nndna::Error: the one error type users see.
//
// Every error nndna reports about a user's model or files — a shape error while tracing, a
// module built wrongly, an invalid IR document, a failed evaluation, a spec that would not
// compile or run, a diagram Graphviz rejected — is an nndna::Error (or a class derived from it:
// TraceError, IrFormatError, EvalError, specrun::SpecRunError, render::RenderError). It carries
// what went wrong (kind), where in the user's file (file and line, when known) and a message that
// names the operation and what was expected. what() is "file:line: message".
//
// Nothing in nndna catches an Error to carry on: it reaches the caller (the CLI prints it).
//
// Header-only, and light: libraries that do not link libnndna (xray, render) derive from it too.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "nndna/export.hpp"

NNDNA_API_BEGIN  // the whole header is libnndna's interface (export.hpp)

namespace nndna {

class Error : public std::runtime_error {
 public:
  enum class Kind : std::uint8_t {
    trace_error,     // a shape, dtype or usage error in a spec (tracing or building its model)
    invalid_ir,      // an IR document or graph that breaks the IR's rules
    eval_error,      // the reference evaluator could not evaluate a graph
    render_error,    // Graphviz rejected a diagram
    // Running a spec file (specrun::SpecRunError).
    compile_error,   // the compiler rejected the spec (message: trimmed diagnostics)
    spec_error,      // another exception thrown by the spec, or no NNDNA_SPEC
    crash,           // killed by a signal (named)
    timeout,         // wall-clock or CPU-time limit
    memory_limit,    // allocation failed under the memory limit
    output_limit,    // too much stdout/stderr, or an IR past the file-size limit
    invalid_output,  // the IR the child wrote did not validate
    setup_error,     // the spec file or the toolchain could not be used
    cancelled,       // the caller stopped the run (RunOptions::stop)
  };

  // `file` empty: no location; `line` 0: the file without a line. `shownFile` is the file as
  // what() shows it (a path relative to the working directory); empty: `file` itself.
  Error(Kind kind, std::string file, int line, std::string message, std::string_view shownFile = {})
      : std::runtime_error(located(shownFile.empty() ? std::string_view(file) : shownFile, line, message)),
        kind_(kind),
        file_(std::move(file)),
        line_(line),
        message_(std::move(message)) {}

  Kind kind() const { return kind_; }
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  // The message without the location.
  const std::string& message() const { return message_; }

  // "file:line: message", "file: message" without a line, "message" without a file.
  static std::string located(std::string_view file, int line, std::string_view message) {
    std::string out;
    if (!file.empty()) {
      out += file;
      if (line > 0) out += ":" + std::to_string(line);
      out += ": ";
    }
    out += message;
    return out;
  }

 private:
  Kind kind_;
  std::string file_;
  int line_;
  std::string message_;
};

// "trace_error", "invalid_ir", ... (the spelling of error.json and --json outputs).
constexpr std::string_view errorKindName(Error::Kind kind) {
  switch (kind) {
    case Error::Kind::trace_error: return "trace_error";
    case Error::Kind::invalid_ir: return "invalid_ir";
    case Error::Kind::eval_error: return "eval_error";
    case Error::Kind::render_error: return "render_error";
    case Error::Kind::compile_error: return "compile_error";
    case Error::Kind::spec_error: return "spec_error";
    case Error::Kind::crash: return "crash";
    case Error::Kind::timeout: return "timeout";
    case Error::Kind::memory_limit: return "memory_limit";
    case Error::Kind::output_limit: return "output_limit";
    case Error::Kind::invalid_output: return "invalid_output";
    case Error::Kind::setup_error: return "setup_error";
    case Error::Kind::cancelled: return "cancelled";
  }
  return "unknown";
}

}  // namespace nndna
NNDNA_API_END
