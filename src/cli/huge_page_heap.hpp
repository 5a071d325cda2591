// The heap of a one-shot command, backed by 2 MiB pages.
#pragma once

namespace nndna::cli {

// Grows the heap once by a large reserve (virtual: memory is committed only when touched) and
// asks the kernel for transparent huge pages there. Called by the commands that read a model
// (never by `serve`, whose heap must shrink again); only the first call does anything.
//
// Why: a graph of a million ops is millions of small heap blocks (shapes, inputs) and arrays of
// ops read at random by id; with 4 KiB pages most of those reads miss the TLB. Linux backs memory
// with huge pages only where a program asks (THP "madvise" mode), and glibc asks only when
// GLIBC_TUNABLES=glibc.malloc.hugetlb=1 is set before the program starts. Measured on the
// 200k-op loop's IR (docs/specrun.md): about half the CPU time of reading and drawing it.
void backHeapWithHugePages();

}  // namespace nndna::cli
