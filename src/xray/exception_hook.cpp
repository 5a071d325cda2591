// Lets an RAII span that is left by an exception record "TypeName: what()".
//
// A destructor running during unwinding cannot see the in-flight exception
// (std::current_exception() only sees caught ones), so this library interposes the Itanium C++
// ABI's entry points that start unwinding — __cxa_throw (`throw x`), __cxa_rethrow (`throw;`)
// and std::rethrow_exception (which std::future::get uses) — notes a description of the
// exception on the throwing thread when a span is open there, and forwards to the real function.
// Each note is counted, so a span records only an exception noted after it opened, never an older
// one remembered from earlier on the thread. Only active while tracing; otherwise a throw costs
// one relaxed load more.
#include <cxxabi.h>
#include <dlfcn.h>

#include <exception>
#include <typeinfo>

#include "xray/recorder.hpp"

namespace {

using CxaThrow = void (*)(void*, std::type_info*, void (*)(void*));
using CxaRethrow = void (*)();
using RethrowException = void (*)(std::exception_ptr);

template <class Fn>
Fn realFunction(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

CxaThrow realCxaThrow() {
  static CxaThrow real = realFunction<CxaThrow>("__cxa_throw");
  return real;
}
CxaRethrow realCxaRethrow() {
  static CxaRethrow real = realFunction<CxaRethrow>("__cxa_rethrow");
  return real;
}
RethrowException realRethrowException() {
  static RethrowException real =
      realFunction<RethrowException>("_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE");
  return real;
}

[[gnu::tls_model("initial-exec")]] thread_local bool t_inHook = false;

// Runs `describe` (which may throw and catch internally) with the hooks off on this thread, and
// notes its result when a span is open here.
template <class Describe>
void note(Describe&& describe) noexcept {
  if (t_inHook) return;
  auto* thread = nndna::xray::detail::existingThreadState();
  if (thread == nullptr || thread->depth.load(std::memory_order_relaxed) == 0) return;
  t_inHook = true;
  try {
    thread->lastException = describe();
    ++thread->exceptionCount;
  } catch (...) {
    // No memory for the description: the span will say "exception".
  }
  t_inHook = false;
}

std::string describeThrown(void* object, std::type_info* type) {
  std::string text = nndna::xray::detail::demangle(type->name());
  // libstdc++'s own catch matching: is the thrown object a std::exception?
  void* adjusted = object;
  if (typeid(std::exception).__do_catch(type, &adjusted, 1)) {
    text += ": ";
    text += static_cast<const std::exception*>(adjusted)->what();
  }
  return text;
}

}  // namespace

// The three are noreturn by their first declarations (cxxabi.h, exception_ptr.h); clang refuses
// a [[noreturn]] that is not on the first declaration, so the definitions do not repeat it.
namespace __cxxabiv1 {
extern "C" {
// NOLINTNEXTLINE: the ABI's name and signature.
NNDNA_API void __cxa_throw(void* object, std::type_info* type, void (*destructor)(void*)) {
  if (nndna::xray::enabled()) note([&] { return describeThrown(object, type); });
  realCxaThrow()(object, type, destructor);
  __builtin_unreachable();
}

// NOLINTNEXTLINE: the ABI's name and signature.
NNDNA_API void __cxa_rethrow() {
  // The exception rethrown is the one being handled: describe it as a catch would see it.
  if (nndna::xray::enabled()) note([] { return nndna::xray::detail::describeCurrentException(); });
  realCxaRethrow()();
  __builtin_unreachable();
}
}
}  // namespace __cxxabiv1

namespace std {
// NOLINTNEXTLINE: the standard library's name and signature, interposed.
NNDNA_API void rethrow_exception(exception_ptr exception) {
  if (nndna::xray::enabled() && exception)
    note([&] {
      // Thrown and caught here, with the hooks off, to read it as a catch would.
      try {
        realRethrowException()(exception);
      } catch (...) {
        return nndna::xray::detail::describeCurrentException();
      }
      return std::string("exception");
    });
  realRethrowException()(exception);
  __builtin_unreachable();
}
}  // namespace std
