#include "trace/own_module.hpp"

#include <dlfcn.h>
#include <sys/auxv.h>

namespace nndna::tracing {

namespace {

OwnModule findOwnModule() {
  OwnModule own;
  // A function of libnndna's own that nothing outside can interpose or take the address of (an
  // exported one's address may be a program's PLT entry).
  Dl_info self{};
  if (::dladdr(reinterpret_cast<void*>(&findOwnModule), &self) == 0) return own;
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
