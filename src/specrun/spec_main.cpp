// main() of a compiled spec program (the static library nndna_specmain).
//
// The spec runner links one user spec file with this main and runs the program in a sandboxed
// child, in a private working directory. The program traces the spec and writes, in that
// directory, either the IR (`ir.json`) or a description of what went wrong (`error.json`), and
// exits with one of the codes in child_protocol.hpp. The parent reads only those two files.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <new>
#include <nlohmann/json.hpp>
#include <string>

#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "specrun/child_protocol.hpp"

namespace {

using namespace nndna::specrun::child;

bool writeFile(const char* name, const std::string& text) {
  std::ofstream out(name, std::ios::binary | std::ios::trunc);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

[[noreturn]] void fail(int code, const nlohmann::json& error) {
  writeFile(kErrorFile, error.dump());
  std::fflush(nullptr);
  std::_Exit(code);
}

// An allocation that fails under RLIMIT_AS while a spec's static objects are built, or an
// exception nothing catches, ends in std::terminate: report what it was before aborting.
[[noreturn]] void onTerminate() {
  if (std::exception_ptr current = std::current_exception()) {
    try {
      std::rethrow_exception(current);
    } catch (const std::bad_alloc&) {
      fail(kExitMemory, {{"kind", "memory_limit"}, {"message", "out of memory"}});
    } catch (const std::exception& e) {
      fail(kExitError, {{"kind", "error"}, {"message", e.what()}});
    } catch (...) {
    }
  }
  std::abort();
}

// Runs before any spec's static initialisers (which may allocate or throw).
__attribute__((constructor(101))) void installTerminateHandler() { std::set_terminate(onTerminate); }

}  // namespace

int main() {
  try {
    const auto specs = nndna::registeredSpecs();
    if (specs.empty()) {
      fail(kExitError, {{"kind", "no_spec"},
                        {"message", "the file has no NNDNA_SPEC(Model) { ... } block"}});
    }
    if (specs.size() > 1) {
      fail(kExitError, {{"kind", "error"}, {"message", "the file has more than one NNDNA_SPEC"}});
    }
    const nndna::LoadedSpec loaded = nndna::loadSpec(specs.front());
    const nndna::ir::TracedModel model = nndna::traceModel(loaded);
    if (!writeFile(kIrFile, nndna::ir::toJson(model))) {
      fail(kExitOutput, {{"kind", "output_limit"}, {"message", "could not write the IR"}});
    }
  } catch (const nndna::TraceError& e) {
    fail(kExitTrace, {{"kind", "trace_error"},
                      {"file", e.file()},
                      {"line", e.line()},
                      {"op", e.op()},
                      {"detail", e.detail()},
                      {"message", e.what()}});
  } catch (const std::bad_alloc&) {
    fail(kExitMemory, {{"kind", "memory_limit"}, {"message", "out of memory"}});
  } catch (const std::exception& e) {
    fail(kExitError, {{"kind", "error"}, {"message", e.what()}});
  }
  std::fflush(nullptr);
  return kExitOk;
}
