// A shared library opened with dlopen the first time it is needed, rather than linked (and so
// loaded at every start): libdw (trace/libdw.hpp) and libgvc (render/graphviz_library.hpp).
// Header-only: libnndna and the renderer each use it, and neither links the other.
#pragma once

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace nndna {

class LoadedLibrary {
 public:
  // Opens `soname` with dlopen's `mode`; never closed (what it provides is used until the
  // process ends). Throws std::runtime_error with dlerror()'s reason.
  LoadedLibrary(const char* soname, int mode) : soname_(soname), handle_(::dlopen(soname, mode)) {
    if (handle_ == nullptr) throw std::runtime_error("cannot load " + std::string(soname) + ": " + reason());
  }

  // Sets `out` to the library's symbol `name` (a function or data, of the type `out` has), or
  // throws std::runtime_error naming the library and the symbol.
  template <typename T>
  void take(const char* name, T& out) const {
    void* symbol = ::dlsym(handle_, name);
    if (symbol == nullptr) throw std::runtime_error(std::string(soname_) + " lacks " + name + " (" + reason() + ")");
    out = reinterpret_cast<T>(symbol);
  }

 private:
  static std::string reason() {
    const char* text = ::dlerror();
    return text != nullptr ? text : "no reason given";
  }

  const char* soname_;
  void* handle_;
};

}  // namespace nndna
