// The heap of a one-shot command, backed by 2 MiB pages.
#pragma once

namespace nndna::cli {

// Makes sure the heap has a large free room at its top (virtual: memory is committed only when
// touched), backed by transparent huge pages: when less than 20 MiB is free there, the heap grows
// by 1.5 GiB at once and the new room is advised MADV_HUGEPAGE. Cheap when there is room: the
// commands that read a model call it before reading it and again before drawing it. Never called
// by `serve`, whose heap must shrink again after a request: the first call also tells glibc to
// keep free memory at the top of the heap rather than hand it back to the kernel.
//
// Why: a graph of a million ops is millions of small heap blocks (shapes, inputs) and arrays of
// ops read at random by id; with 4 KiB pages most of those reads miss the TLB. Linux backs memory
// with huge pages only where a program asks (THP "madvise" mode), and glibc asks only when
// GLIBC_TUNABLES=glibc.malloc.hugetlb=1 is set before the program starts. Measured on the
// 200k-op loop's IR (docs/specrun.md): about half the CPU time of reading and drawing it.
void topUpHugePageHeap();

}  // namespace nndna::cli
