#include "trace/own_module.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/auxv.h>

#include <cstring>

namespace nndna::tracing {

namespace {

// The program's NT_GNU_BUILD_ID note, read from its loaded program headers (no file is opened).
int readProgramBuildId(dl_phdr_info* info, std::size_t, void* out) {
  auto& hex = *static_cast<std::string*>(out);
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    const auto* at = reinterpret_cast<const unsigned char*>(info->dlpi_addr + segment.p_vaddr);
    const unsigned char* end = at + segment.p_memsz;
    // Each note: its header, then its name and its description, each padded to 4 bytes.
    while (static_cast<std::size_t>(end - at) >= sizeof(ElfW(Nhdr))) {
      ElfW(Nhdr) note{};
      std::memcpy(&note, at, sizeof note);
      const std::size_t nameBytes = (note.n_namesz + 3u) & ~std::size_t{3};
      const std::size_t descBytes = (note.n_descsz + 3u) & ~std::size_t{3};
      const unsigned char* name = at + sizeof note;
      if (nameBytes > static_cast<std::size_t>(end - name) ||
          descBytes > static_cast<std::size_t>(end - name) - nameBytes) {
        break;
      }
      const unsigned char* desc = name + nameBytes;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        constexpr char kDigits[] = "0123456789abcdef";
        for (std::size_t b = 0; b < note.n_descsz; ++b) {
          hex += kDigits[desc[b] >> 4];
          hex += kDigits[desc[b] & 15];
        }
        return 1;
      }
      at = desc + descBytes;
    }
  }
  return 1;  // the first object is the program: stop there
}

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
    own.programBase = reinterpret_cast<std::uintptr_t>(program.dli_fbase);
    own.isProgram = own.programBase == own.base;
  }
  ::dl_iterate_phdr(readProgramBuildId, &own.programBuildId);
  return own;
}

}  // namespace

const OwnModule& ownModule() {
  static const OwnModule own = findOwnModule();
  return own;
}

}  // namespace nndna::tracing
