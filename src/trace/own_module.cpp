#include "trace/own_module.hpp"

#include <dlfcn.h>
#include <sys/auxv.h>

namespace nndna::tracing {

namespace {

OwnModule findOwnModule() {
  OwnModule own;
  Dl_info self{};
  if (::dladdr(reinterpret_cast<void*>(&ownModule), &self) == 0) return own;
  own.base = reinterpret_cast<std::uintptr_t>(self.dli_fbase);
  if (self.dli_fname != nullptr) own.file = self.dli_fname;
  // The program's own module holds its program headers (AT_PHDR), wherever it was loaded.
  Dl_info program{};
  if (::dladdr(reinterpret_cast<void*>(::getauxval(AT_PHDR)), &program) != 0) {
    own.isProgram = program.dli_fbase == self.dli_fbase;
  }
  return own;
}

}  // namespace

const OwnModule& ownModule() {
  static const OwnModule own = findOwnModule();
  return own;
}

}  // namespace nndna::tracing
