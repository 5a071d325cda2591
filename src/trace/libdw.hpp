// elfutils' libdw, loaded the first time it is needed rather than when the program starts.
//
// Call sites are resolved in the spec programs (each links libnndna.so); `nndna` itself resolves
// them only for the specs built into it (`--example`), and the spec runner reads a crashed spec's
// binary only after a crash. Linked, libdw and what it needs (libelf, zlib, liblzma, libbz2) were
// loaded by every `nndna` command at start: about 0.6 ms of a few milliseconds on the VMs nndna
// runs on (docs/specrun.md, "The command as a process").
#pragma once

#include <elfutils/libdwfl.h>

#include "nndna/export.hpp"

namespace nndna::tracing {

// The functions of libdw nndna calls, with the types its header gives them.
struct Libdw {
  decltype(&::dwfl_begin) begin;
  decltype(&::dwfl_end) end;
  decltype(&::dwfl_report_begin) reportBegin;
  decltype(&::dwfl_report_begin_add) reportBeginAdd;
  decltype(&::dwfl_report_end) reportEnd;
  decltype(&::dwfl_report_offline) reportOffline;
  decltype(&::dwfl_linux_proc_report) linuxProcReport;
  decltype(&::dwfl_linux_proc_find_elf) linuxProcFindElf;
  decltype(&::dwfl_standard_find_debuginfo) standardFindDebuginfo;
  decltype(&::dwfl_offline_section_address) offlineSectionAddress;
  decltype(&::dwfl_addrmodule) addrModule;
  decltype(&::dwfl_module_addrdie) moduleAddrDie;
  decltype(&::dwfl_module_getelf) moduleGetElf;
  decltype(&::dwfl_module_getsrc) moduleGetSrc;
  decltype(&::dwfl_module_getsymtab) moduleGetSymtab;
  decltype(&::dwfl_module_getsym_info) moduleGetSymInfo;
  decltype(&::dwfl_lineinfo) lineInfo;
  decltype(&::dwarf_diename) dieName;
};

// Loads libdw.so.1 on the first call (thread-safe) and keeps it for the process. Throws
// std::runtime_error naming the library and dlerror()'s reason when it cannot be loaded or lacks
// one of the functions (every call throws the same again).
NNDNA_API const Libdw& libdw();

}  // namespace nndna::tracing
