// `nndna`'s heap in 2 MiB pages: mimalloc is asked to advise its segments MADV_HUGEPAGE (Linux's
// transparent huge pages, "madvise" mode), as MIMALLOC_LARGE_OS_PAGES=1 would.
//
// Why: on the VMs nndna runs on, the first touch of each fresh 4 KiB page is a slow fault, and a
// one-shot command touches megabytes of fresh heap — for GPT-2 small's `nndna diagram -o x.dot`,
// about 570 of the parent's 850 page faults and a fifth of its time (docs/specrun.md "The
// allocator"). One 2 MiB fault replaces 512 of them. Compiled only where mimalloc is linked (not
// under the sanitizers), into the one-shot programs and the benchmarks that stand for them; not
// into `nndna serve`, whose heap is warm after its first requests and should stay small.
#include <mimalloc.h>

#include <cstdlib>

namespace {

// Before the program's own static initializers (101 is the first priority a program may use):
// the heap's first segment, which the first malloc maps, is then advised too (the shared
// libraries' initializers, which run earlier, allocate nothing; cli.large_os_pages checks the
// heap). The environment's own choice (MIMALLOC_LARGE_OS_PAGES=0, say), which mimalloc has read
// by now, wins.
__attribute__((constructor(101))) void adviseLargeOsPages() {
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") == nullptr) mi_option_set(mi_option_large_os_pages, 1);
}

}  // namespace
