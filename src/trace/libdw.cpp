#include "trace/libdw.hpp"

#include <stdexcept>
#include <string>

#include "loaded_library.hpp"

namespace nndna::tracing {
namespace {

Libdw load() {
  try {
    // libdw's soname, read at configure time from the library pkg-config names
    // (cmake/Dependencies.cmake).
    const LoadedLibrary library(NNDNA_LIBDW_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    Libdw dw{};
    library.take("dwfl_begin", dw.begin);
    library.take("dwfl_end", dw.end);
    library.take("dwfl_report_begin", dw.reportBegin);
    library.take("dwfl_report_begin_add", dw.reportBeginAdd);
    library.take("dwfl_report_end", dw.reportEnd);
    library.take("dwfl_report_offline", dw.reportOffline);
    library.take("dwfl_linux_proc_report", dw.linuxProcReport);
    library.take("dwfl_linux_proc_find_elf", dw.linuxProcFindElf);
    library.take("dwfl_standard_find_debuginfo", dw.standardFindDebuginfo);
    library.take("dwfl_offline_section_address", dw.offlineSectionAddress);
    library.take("dwfl_addrmodule", dw.addrModule);
    library.take("dwfl_module_addrdie", dw.moduleAddrDie);
    library.take("dwfl_module_getelf", dw.moduleGetElf);
    library.take("dwfl_module_getsrc", dw.moduleGetSrc);
    library.take("dwfl_module_getsymtab", dw.moduleGetSymtab);
    library.take("dwfl_module_getsym_info", dw.moduleGetSymInfo);
    library.take("dwfl_lineinfo", dw.lineInfo);
    library.take("dwarf_diename", dw.dieName);
    return dw;
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("call sites cannot be resolved: ") + e.what() +
                             " (elfutils' libdw, Debian's libdw1, which nndna needs)");
  }
}

}  // namespace

const Libdw& libdw() {
  // Loaded once, by whichever thread comes first; a throw leaves it unset, and the next call
  // tries again.
  static const Libdw loaded = load();
  return loaded;
}

}  // namespace nndna::tracing
