// Loading the renderer ahead of the first layout.
#pragma once

namespace nndna::diagram {

// Lays out and renders a small diagram (assemble.hpp's warmUpDot) and drops it: a process's first
// layout loads Graphviz's plugins, pango, fontconfig and the fonts, about 20 ms that a command
// drawing GPT-2 small spent after its spec had run. `nndna diagram -o x.svg/.html` calls this on a
// thread of its own while the spec compiles and runs; the real layout waits for it on the
// process's Graphviz lock if it has not finished. Errors are not reported here (the real layout
// reports its own).
void warmUpRenderer() noexcept;

}  // namespace nndna::diagram
