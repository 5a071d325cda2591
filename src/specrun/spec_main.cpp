// main() of a compiled spec program (the static library nndna_specmain).
//
// The spec runner links one user spec file with this main and runs the program in a sandboxed
// child, in a private working directory. The program traces the spec and writes, in that
// directory, either the IR (`ir.cbor`, its CBOR form) or a description of what went wrong
// (`error.json`), and exits with one of the codes in child_protocol.hpp. The parent reads only
// those two files.
#include <fcntl.h>
#include <unistd.h>

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <typeinfo>
#include <new>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "specrun/child_protocol.hpp"
#include "specrun/crash_record.hpp"
#include "trace/callsite.hpp"

namespace {

using namespace nndna::specrun::child;

// Opened before any of the spec's code runs: its working directory (the spec may chdir away),
// and error.json with its space reserved — a spec that fills its size-limited directory can still
// say what went wrong.
int workDir = -1;
int errorFile = -1;
constexpr std::size_t kErrorFileBytes = 64 << 10;

bool writeAll(int fd, std::string_view text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Streamed to the file in pieces (ir::writeCbor): a 200k-op IR is about 25 MB that need never be
// held whole. CBOR rather than JSON's text: nndna reads it in about 0.6 of the time (docs/ir.md).
// After a failed write the rest is skipped.
bool writeIr(const nndna::ir::TracedModel& model) {
  const int fd = ::openat(workDir, kIrFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = true;
  nndna::ir::writeCbor(model, [&](std::string_view piece) { ok = ok && writeAll(fd, piece); });
  return ::close(fd) == 0 && ok;
}

// The memo an earlier run of this binary saved (argv[1]), if it can be read: without it (the first
// run, or a memo that is unreadable or too large) the run starts from an empty one.
std::string readMemoFile(const char* path) {
  std::string text;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[64 << 10];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxFrameMemoBytes) {
      text.clear();
      break;
    }
  }
  ::close(fd);
  return text;
}

// Best effort: a memo that cannot be written whole is removed (the next run resolves again).
void saveFrameMemo() {
  const std::optional<std::string> memo = nndna::tracing::grownFrameMemo();
  if (!memo || memo->size() > kMaxFrameMemoBytes) return;
  const int fd = ::openat(workDir, kFrameMemoFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const bool written = writeAll(fd, *memo);
  if (::close(fd) != 0 || !written) ::unlinkat(workDir, kFrameMemoFile, 0);
}

[[noreturn]] void fail(int code, nlohmann::json error) {
  // Quoted texts capped (a huge shape in a message). They may hold bytes that are not UTF-8 (a
  // name, an exception text): replaced, not fatal.
  for (const char* field : {"message", "detail"}) {
    if (error.contains(field)) error[field] = capQuoted(error[field].get<std::string>());
  }
  const std::string text = error.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (errorFile >= 0 && text.size() <= kErrorFileBytes) writeAll(errorFile, text);
  std::fflush(nullptr);
  std::_Exit(code);
}

// What `throw 42` (or any value that is not a std::exception) says: its type, demangled. Called
// inside a catch (...) handler.
[[noreturn]] void failWithThrownValue() {
  const std::type_info* type = abi::__cxa_current_exception_type();
  std::string name = type != nullptr ? type->name() : "unknown";
  int status = 0;
  if (char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status); status == 0) {
    name = demangled;
    std::free(demangled);
  }
  fail(kExitError, {{"kind", "error"},
                    {"message", "the spec threw a value of type '" + name +
                                    "', which is not an exception (throw std::runtime_error(\"...\") says what "
                                    "went wrong)"}});
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
      failWithThrownValue();
    }
  }
  std::abort();
}

// Runs before any spec's static initialisers (which may allocate, throw, or fill the disk).
__attribute__((constructor(101))) void prepare() {
  std::set_terminate(onTerminate);
  workDir = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  errorFile = ::openat(workDir, kErrorFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (errorFile >= 0) ::fallocate(errorFile, FALLOC_FL_KEEP_SIZE, 0, kErrorFileBytes);
  recordCrashesTo(errorFile);  // a crash names its line (the runner reads where it was)
}

}  // namespace

int main(int argc, char** argv) {
  try {
    nndna::tracing::startFrameMemo(argc > 1 ? readMemoFile(argv[1]) : std::string());
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
    if (!writeIr(model)) {
      fail(kExitOutput, {{"kind", "output_limit"}, {"message", "could not write the IR"}});
    }
    saveFrameMemo();
    // Done: exit without destroying the model and the graphs (freeing a 200k-op trace piece by
    // piece is work nobody waits for) or running static destructors; nothing is left unwritten.
    ::unlinkat(workDir, kErrorFile, 0);  // the reservation, unused
    std::fflush(nullptr);
    std::_Exit(kExitOk);
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
  } catch (...) {
    failWithThrownValue();
  }
}
