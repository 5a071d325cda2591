// What a spec program that crashes leaves behind: where it was (the child side; the runner reads
// it with crash_location.hpp).
#pragma once

namespace nndna::specrun::child {

// Handles the signals a crash raises (SIGSEGV, SIGBUS, SIGFPE, SIGILL), on a stack of their own
// (a runaway recursion has none left): the handler writes to `errorFd`, at its start,
//   {"kind":"crash","base":B,"pc":P,"top":T,"returns":[R1,R2,...]}
// (B: where the program is loaded; P: the instruction that faulted; T: the word at the top of the
// stack, the return address a function without a frame of its own left there; R: the return
// addresses up the frame-pointer chain, on the main thread's stack only), and the signal then
// ends the program as it would have. Only async-signal-safe calls in the handler. Called before
// any of the spec's code runs.
void recordCrashesTo(int errorFd);

}  // namespace nndna::specrun::child
