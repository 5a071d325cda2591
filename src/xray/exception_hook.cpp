// Lets an RAII span that is left by an exception record "TypeName: what()".
//
// A destructor running during unwinding cannot see the in-flight exception
// (std::current_exception() only sees caught ones), so this library interposes __cxa_throw —
// the Itanium C++ ABI entry every `throw` calls — notes a description of the exception on the
// throwing thread when a span is open there, and forwards to the real function. Only active
// while tracing; otherwise it costs one relaxed load per throw.
#include <cxxabi.h>
#include <dlfcn.h>

#include <exception>
#include <typeinfo>

#include "xray/recorder.hpp"

namespace {

using CxaThrow = void (*)(void*, std::type_info*, void (*)(void*));

CxaThrow realCxaThrow() {
  static CxaThrow real = reinterpret_cast<CxaThrow>(dlsym(RTLD_NEXT, "__cxa_throw"));
  return real;
}

[[gnu::tls_model("initial-exec")]] thread_local bool t_inHook = false;

void noteException(void* object, std::type_info* type) noexcept {
  if (t_inHook) return;
  t_inHook = true;
  try {
    auto* thread = nndna::xray::detail::existingThreadState();
    if (thread != nullptr && thread->depth.load(std::memory_order_relaxed) > 0) {
      std::string text = nndna::xray::detail::demangle(type->name());
      // libstdc++'s own catch matching: is the thrown object a std::exception?
      void* adjusted = object;
      if (typeid(std::exception).__do_catch(type, &adjusted, 1)) {
        text += ": ";
        text += static_cast<const std::exception*>(adjusted)->what();
      }
      thread->lastException = std::move(text);
    }
  } catch (...) {
    // No memory for the description: the span will say "exception".
  }
  t_inHook = false;
}

}  // namespace

namespace __cxxabiv1 {
extern "C" {
// NOLINTNEXTLINE: the ABI's name and signature.
[[noreturn]] void __cxa_throw(void* object, std::type_info* type, void (*destructor)(void*)) {
  if (nndna::xray::enabled()) noteException(object, type);
  realCxaThrow()(object, type, destructor);
  __builtin_unreachable();
}
}
}  // namespace __cxxabiv1
